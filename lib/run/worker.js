'use strict'

// A worker: builds its workload's request source, waits for the master's `go`, runs the engine from the start time
// that `go` names, and reports a delta of its counts and histograms to the master every second and once more at the
// end. It runs in a process of its own, forked by the worker group (this file is that process's entry), or in the
// master's process for a run of one process (lib/run/in-process-worker.js): the same code over another channel.

const { createTransport } = require('../cluster/transport')
const { Recorder } = require('../results/stats')
const { runEngine, createControl } = require('./engine')
const { workerPace } = require('./timetable')
const { stopReason } = require('./stop-reason')
const { loadWorkload } = require('../workloads')
const { startupFault } = require('./fault-injection')
const { SIGNALS } = require('../cli/interrupts')
const { now } = require('../base/clock')
const { monitorEventLoopDelay } = require('node:perf_hooks')

const REPORT_INTERVAL_MS = 1000

/**
 * @typedef {object} MasterChannel how a worker talks with its master
 * @property {(message: object) => Promise<void>} send a message to the master, resolved once handed over
 * @property {(listener: (message: object) => void) => void} onMessage the master's messages
 * @property {(listener: () => void) => void} onMasterGone the master is gone: there is nobody to report to
 * @property {() => void} leave the worker is done: the channel closes
 * @property {(code: number) => void} fail the worker cannot go on
 */

/** The channel of a forked worker: its process's IPC. */
function processChannel () {
  return {
    send: (message) => new Promise((resolve) => {
      if (!process.connected) return resolve()
      process.send(message, () => resolve())
    }),
    onMessage: (listener) => process.on('message', listener),
    onMasterGone: (listener) => process.on('disconnect', listener),
    leave: () => process.disconnect(),
    fail: (code) => process.exit(code)
  }
}

/** A worker on `channel`: it starts on the master's `start` message. */
function attachWorker (channel) {
  // Everything the master says goes through one place; `go` and `stop` may arrive in any order relative to the
  // worker's own start-up.
  const master = { control: null, stoppedBeforeGo: null, goMessage: null, waiter: null, workerCount: 1, warm: null }

  channel.onMessage((message) => {
    switch (message.type) {
      case 'start':
        runWorker(message, master, channel).catch(async (error) => {
          await channel.send({ type: 'fatal', message: error.message })
          channel.fail(1)
        })
        break
      case 'go':
        master.goMessage = message
        if (master.waiter) master.waiter(message)
        break
      case 'stop':
        if (master.control) master.control.stop(message.reason)
        else {
          master.stoppedBeforeGo = message.reason
          if (master.waiter) master.waiter(null)
        }
        break
      case 'steer':
        // The group's new rate from `at` on: this worker's share of it.
        if (master.control) master.control.steer(message.at, message.rate / master.workerCount)
        break
      case 'warm':
        // A steady warm-up ended: measured from now on, and --duration counts from here.
        if (master.warm) master.warm()
        break
      case 'abort':
        if (master.control) master.control.abort(message.reason)
        break
    }
  })

  // Without a master there is nobody to report to.
  channel.onMasterGone(() => {
    if (master.control && !master.control.stopped) master.control.abort(stopReason('master_gone'))
    else if (!master.control) channel.fail(0)
  })
}

/** Resolves with `go`, or with null when the master stops the group before the load. */
function waitForGo (master) {
  if (master.goMessage || master.stoppedBeforeGo) return Promise.resolve(master.goMessage)
  return new Promise((resolve) => { master.waiter = resolve })
}

async function runWorker ({ workload: workloadName, options, prepared, workerIndex, workerCount }, master, channel) {
  const send = channel.send
  await startupFault(process.env)
  const workload = loadWorkload(workloadName)
  const client = createTransport(options.connection, { maxSockets: options.concurrentRequests })
  // The bodies are written in the encoding the transport sends as it is (lib/data/bulk-body.js).
  const source = workload.createSource(options, { workerIndex, workerCount, bulkEncoding: client.bulkEncoding },
    prepared)
  await send({ type: 'ready' })
  const go = await waitForGo(master)
  if (!go) {
    // Stopped before the load: nothing was sent, so there is nothing to report.
    client.close()
    return channel.leave()
  }
  master.control = createControl()
  master.workerCount = workerCount
  // A steady warm-up's boundary is its cap until the master says the nodes are warm.
  const recorder = new Recorder({ warmupUntil: options.warmupMs ? go.startAt + options.warmupMs : null })
  master.warm = () => {
    const at = now()
    if (recorder.endWarmup(at) && options.durationMs) master.control.moveDeadline(at + options.durationMs)
  }
  client.on('host-down', ({ host, detail, at }) => recorder.event({ kind: 'host_down', host, detail, at }))
  client.on('host-up', ({ host, at }) => recorder.event({ kind: 'host_up', host, at }))
  // CPU is measured over the run only: start-up (module loading, host tables) is not load cost.
  const cpuAtGo = process.cpuUsage()
  const loadStartedAt = now()
  // How late the event loop runs its timers: a busy client delays its own requests.
  const loopDelay = monitorEventLoopDelay({ resolution: 50 })
  loopDelay.enable()
  const reports = reportEveryInterval(go.startAt, () => send({ type: 'delta', delta: recorder.takeDelta() }))
  let reason
  try {
    reason = await runEngine({
      client,
      source,
      concurrency: options.concurrentRequests,
      startAt: go.startAt,
      deadline: go.deadline,
      gracefulStopMs: options.gracefulStopMs ?? null,
      recorder,
      control: master.control,
      pace: options.rate == null && !options.stages
        ? null
        : workerPace({
          rate: options.rate, stages: options.stages, workerIndex, workerCount, unitsPerRequest: source.unitsPerRequest
        })
    })
  } finally {
    reports.stop()
    client.close()
  }
  const cpu = process.cpuUsage(cpuAtGo)
  loopDelay.disable()
  await send({
    type: 'done',
    reason,
    delta: recorder.takeDelta(),
    resources: {
      cpuMicros: cpu.user + cpu.system,
      // From the process's launch to go: module loading, the data model, the first connections' set-up.
      startupCpuMicros: cpuAtGo.user + cpuAtGo.system,
      maxRssKb: process.resourceUsage().maxRSS,
      // From go, which includes the short wait for the shared start.
      wallMicros: Math.round((now() - loadStartedAt) * 1000),
      eventLoopDelayP99Ms: loopDelay.count ? loopDelay.percentile(99) / 1e6 : null
    }
  })
  channel.leave()
}

/**
 * A report at the end of every interval counted from the load's start (the same instants in every
 * worker), so that each report covers one interval of the run's timeline.
 */
function reportEveryInterval (startAt, report) {
  let timer = null
  let k = 1
  const next = () => {
    timer = setTimeout(() => {
      report()
      k = Math.max(k + 1, Math.floor((now() - startAt) / REPORT_INTERVAL_MS) + 1)
      next()
    }, Math.max(0, startAt + k * REPORT_INTERVAL_MS - now()))
  }
  next()
  return { stop: () => clearTimeout(timer) }
}

if (require.main === module) {
  // Ctrl-C (and a closed terminal's SIGHUP) reach the whole process group, and `timeout`, systemd and Kubernetes
  // send SIGTERM to all of it: the master decides how to stop, so a worker only stops on its word and always gets
  // to send its last report.
  for (const signal of SIGNALS) process.on(signal, () => {})
  attachWorker(processChannel())
}

module.exports = { attachWorker }
