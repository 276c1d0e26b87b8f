'use strict'

const { EventEmitter } = require('node:events')
const path = require('node:path')
const { fork } = require('node:child_process')
const { Totals } = require('../results/stats')
const { now: machineNow } = require('../base/clock')
const { stopReason } = require('./stop-reason')

const WORKER_PATH = path.join(__dirname, 'worker.js')

// A group stopped before its load has nothing to lose: a worker still busy starting after this
// long (a long synchronous set-up cannot read its messages) is killed.
const STARTUP_STOP_GRACE_MS = 1000
// After abort(), workers get this long to send their last report before they are killed.
const ABANDON_GRACE_MS = 2000

const STATES = Object.freeze(['starting', 'ready', 'running', 'draining', 'done'])

/**
 * The worker processes of one workload, as an explicit state machine:
 *
 *   starting --(every worker ready)--> ready --go()--> running --(all exited)--> done
 *       \                                \                \
 *        `------------ stop() / a worker dies or fails ----`--> draining --(all exited)--> done
 *
 * stop(reason) works in every state: before go() the workers leave without sending anything;
 * while running they finish their requests in flight and send their last report. abort() also
 * abandons the requests in flight and kills the workers that have not exited shortly after.
 *
 * Events: 'state' (name), 'ready', 'delta' ({ worker, delta }), 'incident' ({ kind, worker, detail }),
 * 'worker-exit' ({ worker, code, signal, reported }), 'done' (outcome). Incidents are what makes a
 * run partial or unable to run: worker_died, worker_failed (with phase 'startup' or 'load'),
 * abandoned, server_gone, fatal.
 */
class WorkerGroup extends EventEmitter {
  constructor ({ name, workload, options, prepared, spawnWorker = forkWorker, timers = { setTimeout, clearTimeout },
    now = machineNow }) {
    super()
    this.now = now
    this.name = name
    this.workload = workload
    this.options = options
    this.prepared = prepared
    this.spawnWorker = spawnWorker
    this.timers = timers
    this.state = 'starting'
    this.workers = []
    this.totals = new Totals()
    this.incidents = []
    this.resources = []
    this.stopReason = null
    this.loadStarted = false
    this.pendingTimers = new Set()
    this.donePromise = new Promise((resolve) => this.once('done', resolve))
    this.readyPromise = new Promise((resolve) => {
      this.once('ready', () => resolve(true))
      this.once('draining', () => resolve(false))
    })
  }

  /** Forks the workers and hands each its part of the work. */
  start () {
    const count = this.options.processes
    for (let index = 0; index < count; index++) {
      const child = this.spawnWorker(this.workload)
      const worker = {
        index,
        child,
        totals: new Totals(),
        ready: false,
        reported: false,
        exited: false,
        failure: null,
        stopReason: null,
        exit: null
      }
      this.workers.push(worker)
      child.on('error', () => {})
      child.on('message', (message) => this.onMessage(worker, message))
      child.on('exit', (code, signal) => this.onExit(worker, code, signal))
      send(child, {
        type: 'start',
        workload: this.workload.name,
        options: this.options,
        prepared: this.prepared,
        workerIndex: index,
        workerCount: count
      })
    }
    return this
  }

  /** Resolves true once every worker is ready, false when the group stopped before that. */
  whenReady () {
    return this.readyPromise
  }

  whenDone () {
    return this.donePromise
  }

  /** Starts the load at one instant for every worker of every group (absolute ms on the shared clock). */
  go ({ startAt, deadline = null }) {
    if (this.state !== 'ready') return false
    this.loadStarted = true
    this.loadStartedAt = startAt ?? this.now()
    this.setState('running')
    this.broadcast({ type: 'go', startAt, deadline })
    return true
  }

  /** A new target rate for the whole group from `at` on; each worker takes its share (an open-model run only). */
  steer (at, rate) {
    if (this.state === 'running') this.broadcast({ type: 'steer', at, rate })
  }

  /** A steady warm-up ended: each worker measures from when it hears it, and its --duration counts from there. */
  warm () {
    if (this.state === 'running') this.broadcast({ type: 'warm' })
  }

  stop (reason) {
    if (!this.stopReason) this.stopReason = reason
    if (this.state === 'draining' || this.state === 'done') return
    const beforeLoad = this.state !== 'running'
    this.setState('draining')
    this.broadcast({ type: 'stop', reason })
    if (beforeLoad) this.after(STARTUP_STOP_GRACE_MS, () => this.killRemaining(null))
  }

  /** Ctrl-C twice: requests in flight are abandoned; workers that do not report in time are killed. */
  abort (reason) {
    this.stop(reason)
    if (this.state === 'done' || this.aborted) return
    this.aborted = true
    this.broadcast({ type: 'abort', reason })
    this.after(ABANDON_GRACE_MS, () => this.killRemaining('abandoned'))
  }

  onMessage (worker, message) {
    switch (message.type) {
      case 'ready':
        worker.ready = true
        if (this.state === 'starting' && this.workers.every((w) => w.ready)) {
          this.setState('ready')
          this.emit('ready')
        }
        break
      case 'delta':
        this.addDelta(worker, message.delta)
        break
      case 'done':
        this.addDelta(worker, message.delta)
        worker.reported = true
        worker.stopReason = message.reason
        if (message.resources) this.resources.push(message.resources)
        if (message.reason && (message.reason.kind === 'server_gone' || message.reason.kind === 'fatal')) {
          // Workers stopped for this reason report it back, and several may see one cause.
          const known = this.incidents.some((i) => i.kind === message.reason.kind && i.detail === message.reason.detail)
          if (!known) this.incident(message.reason.kind, worker, message.reason.detail)
          this.stop(message.reason)
        }
        break
      case 'fatal':
        worker.failure = message.message
        break
    }
  }

  addDelta (worker, delta) {
    if (!delta) return
    this.totals.addDelta(delta)
    worker.totals.addDelta(delta)
    // When the worker took it (the machine's clock, shared by every process), not when it got here: on a loaded
    // machine a report can wait in the pipe while the worker keeps sending.
    worker.lastReportAt = typeof delta.at === 'number' ? delta.at : this.now()
    this.emit('delta', { worker: worker.index, delta })
  }

  onExit (worker, code, signal) {
    worker.exited = true
    worker.exit = { code, signal }
    worker.exitAt = this.now()
    if (!worker.reported && !worker.killedBy) {
      if (worker.failure !== null) {
        this.incident('worker_failed', worker, worker.failure, { phase: this.loadStarted ? 'load' : 'startup' })
      } else if (!(this.state === 'draining' && !this.loadStarted && code === 0)) {
        this.incident('worker_died', worker, signal || `exit code ${code}`)
      }
      this.stop(stopReason('stopped', `worker ${worker.index} ended`))
    }
    this.emit('worker-exit', { worker: worker.index, code, signal, reported: worker.reported })
    if (this.workers.every((w) => w.exited)) this.finish()
  }

  finish () {
    for (const timer of this.pendingTimers) this.timers.clearTimeout(timer)
    this.pendingTimers.clear()
    this.setState('done')
    this.emit('done', this.outcome())
  }

  outcome () {
    return {
      name: this.name,
      totals: this.totals,
      workers: this.workers.map((w) => ({
        index: w.index,
        totals: w.totals,
        stopReason: w.stopReason,
        exit: w.exit,
        reported: w.reported,
        // From its last report's taking to its end: what a dead worker sent unheard is bounded by it.
        silentMs: w.exitAt === undefined ? null
          : w.exitAt - (w.lastReportAt ?? this.loadStartedAt ?? w.exitAt)
      })),
      incidents: this.incidents,
      resources: this.resources,
      loadStarted: this.loadStarted,
      stopReason: this.stopReason
    }
  }

  incident (kind, worker, detail, extra = {}) {
    const incident = { kind, worker: worker ? worker.index : null, detail, ...extra }
    this.incidents.push(incident)
    this.emit('incident', incident)
  }

  killRemaining (incidentKind) {
    for (const worker of this.workers) {
      if (worker.exited) continue
      worker.killedBy = incidentKind || 'startup_grace'
      if (incidentKind && !worker.reported) {
        this.incident(incidentKind, worker, 'killed after it did not report in time')
      }
      worker.child.kill('SIGKILL')
    }
  }

  after (ms, fn) {
    const timer = this.timers.setTimeout(() => {
      this.pendingTimers.delete(timer)
      fn()
    }, ms)
    this.pendingTimers.add(timer)
  }

  broadcast (message) {
    for (const worker of this.workers) if (!worker.exited) send(worker.child, message)
  }

  setState (state) {
    this.state = state
    this.emit('state', state)
    if (state === 'draining') this.emit('draining')
  }
}

// A worker may be closing its channel at this very moment; a lost message to a worker that has
// finished anyway is harmless.
function send (child, message) {
  if (child.connected) child.send(message, () => {})
}

/**
 * Workers get their connection settings over IPC, never from the environment: the password must
 * not show up in `ps e` of a worker.
 */
function workerEnv (env) {
  return Object.fromEntries(Object.entries(env).filter(([key]) => !/^CRATE_/.test(key) || /^CRATE_BENCH_/.test(key)))
}

function forkWorker (workload) {
  return fork(WORKER_PATH, [], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    execArgv: [...process.execArgv, ...(workload.workerNodeFlags || [])],
    env: workerEnv(process.env)
  })
}

module.exports = { WorkerGroup, workerEnv, STATES, STARTUP_STOP_GRACE_MS, ABANDON_GRACE_MS }
