'use strict'

// A worker process: builds its workload's request source, waits for the master's `go`, runs the
// engine from the start time that `go` names, and reports a delta of its counts and histograms
// to the master every second and once more at the end.

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

// Everything the master says goes through one place; `go` and `stop` may arrive in any order
// relative to the worker's own start-up.
const master = {
  control: null,
  stoppedBeforeGo: null,
  goMessage: null,
  waiter: null,
  workerCount: 1
}

function send (message) {
  return new Promise((resolve) => {
    if (!process.connected) return resolve()
    process.send(message, () => resolve())
  })
}

/** Resolves with `go`, or with null when the master stops the group before the load. */
function waitForGo () {
  if (master.goMessage || master.stoppedBeforeGo) return Promise.resolve(master.goMessage)
  return new Promise((resolve) => { master.waiter = resolve })
}

async function start ({ workload: workloadName, options, prepared, workerIndex, workerCount }) {
  await startupFault(process.env)
  const workload = loadWorkload(workloadName)
  const client = createTransport(options.connection, { maxSockets: options.concurrentRequests })
  // The bodies are written in the encoding the transport sends as it is (lib/data/bulk-body.js).
  const source = workload.createSource(options, { workerIndex, workerCount, bulkEncoding: client.bulkEncoding },
    prepared)
  await send({ type: 'ready' })
  const go = await waitForGo()
  if (!go) return leave(client)
  master.control = createControl()
  master.workerCount = workerCount
  const recorder = new Recorder({ warmupUntil: options.warmupMs ? go.startAt + options.warmupMs : null })
  client.on('host-down', ({ host, detail, at }) => recorder.event({ kind: 'host_down', host, detail, at }))
  client.on('host-up', ({ host, at }) => recorder.event({ kind: 'host_up', host, at }))
  // CPU is measured over the run only: start-up (module loading, host tables) is not load cost.
  const cpuAtGo = process.cpuUsage()
  const loadStartedAt = now()
  // How late the event loop runs its timers: a busy client delays its own requests.
  const loopDelay = monitorEventLoopDelay({ resolution: 10 })
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
  process.disconnect()
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

/** Stopped before the load: nothing was sent, so there is nothing to report. */
function leave (client) {
  client.close()
  process.disconnect()
}

process.on('message', (message) => {
  switch (message.type) {
    case 'start':
      start(message).catch(async (error) => {
        await send({ type: 'fatal', message: error.message })
        process.exit(1)
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
    case 'abort':
      if (master.control) master.control.abort(message.reason)
      break
  }
})

// Ctrl-C (and a closed terminal's SIGHUP) reach the whole process group, and `timeout`, systemd and Kubernetes
// send SIGTERM to all of it: the master decides how to stop, so a worker only stops on its word and always gets
// to send its last report.
for (const signal of SIGNALS) process.on(signal, () => {})
// Without a master there is nobody to report to.
process.on('disconnect', () => {
  if (master.control && !master.control.stopped) master.control.abort(stopReason('master_gone'))
  else if (!master.control) process.exit(0)
})
