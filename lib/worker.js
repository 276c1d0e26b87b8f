'use strict'

// A worker process: builds its workload's request source, runs the engine, and reports a delta
// of its counts and histograms to the master every second and once more at the end.

const { CrateClient } = require('./http-client')
const { Recorder } = require('./stats')
const { runEngine, createControl } = require('./engine')
const { loadWorkload } = require('./workloads')

const REPORT_INTERVAL_MS = 1000

let control = null
let startSignal = null

function send (message) {
  return new Promise((resolve) => {
    if (!process.connected) return resolve()
    process.send(message, () => resolve())
  })
}

async function start ({ workload: workloadName, options, prepared, workerIndex, workerCount }) {
  const workload = loadWorkload(workloadName)
  const source = workload.createSource(options, { workerIndex, workerCount }, prepared)
  const client = new CrateClient({ ...options.connection, maxSockets: options.concurrentRequests })
  control = createControl()
  const go = await new Promise((resolve) => {
    startSignal = resolve
    send({ type: 'ready' })
  })
  const recorder = new Recorder()
  // CPU is measured over the run only: start-up (module loading, host tables) is not load cost.
  const cpuAtGo = process.cpuUsage()
  const timer = setInterval(() => send({ type: 'delta', delta: recorder.takeDelta() }), REPORT_INTERVAL_MS)
  let reason
  try {
    reason = await runEngine({
      client,
      source,
      concurrency: options.concurrentRequests,
      deadline: go.deadline,
      recorder,
      control,
      pace: paceOf(options, source, workerIndex, workerCount)
    })
  } finally {
    clearInterval(timer)
    client.close()
  }
  const cpu = process.cpuUsage(cpuAtGo)
  await send({
    type: 'done',
    reason,
    delta: recorder.takeDelta(),
    resources: { cpuMicros: cpu.user + cpu.system, maxRssKb: process.resourceUsage().maxRSS }
  })
  process.disconnect()
}

/**
 * --rate is over all processes: each takes an equal share, and worker w starts w/N of a request
 * interval after worker 0, so the processes' requests interleave instead of arriving in bursts.
 */
function paceOf (options, source, workerIndex, workerCount) {
  if (options.rate === null || options.rate === undefined) return null
  const unitsPerSecond = options.rate / workerCount
  const requestIntervalMs = (source.unitsPerRequest * 1000) / unitsPerSecond
  return { unitsPerSecond, offsetMs: (workerIndex / workerCount) * requestIntervalMs }
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
      if (startSignal) startSignal(message)
      break
    case 'stop':
      if (control) control.stop(message.reason)
      break
    case 'abort':
      if (control) control.abort(message.reason)
      break
  }
})

// Ctrl-C reaches the whole process group; the master decides how to stop, so a worker only
// stops on its word. Without a master there is nobody to report to.
process.on('SIGINT', () => {})
process.on('disconnect', () => {
  if (control && !control.stopped) control.abort('master_gone')
  else if (!control) process.exit(0)
})
