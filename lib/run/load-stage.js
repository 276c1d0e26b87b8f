'use strict'

const { MachineShare, clusterProcessesOf, DEFAULT_BUSY_OTHERS_PCT } = require('./machine-share')
const { ClusterCpu } = require('./cluster-cpu')
const { holderPid, listenerKind } = require('../base/listeners')
const { isThisMachine } = require('../base/hosts')
const { WorkerGroup } = require('./worker-group')
const { Timeline } = require('../results/timeline')
const { Resolution } = require('../results/resolution')
const { ProgressLine } = require('./progress')
const { FlightCheck } = require('./flight-check')
const { ClusterMonitor } = require('../cluster/monitor')
const { CrateClient } = require('../cluster/http-client')
const { stopReason } = require('./stop-reason')
const { Steering } = require('./steering')
const { unitsPerRequestOf } = require('../workloads/workload')
const { now, sleep } = require('../base/clock')
const { grouped, fmt, round } = require('../base/format')
const { watchSteadyWarmup } = require('./warmup-watch')
const { watchStartedNodes } = require('./node-watch')

// Every worker of every group starts at one instant, this long after the last one is ready: time
// enough for `go` to reach them all, so no worker's timetable starts late.
const GO_LEAD_MS = 100

/**
 * @typedef {object} Load What the load stage returns.
 * @property {Object<string, object>} outcomes per group role, what its workers produced (lib/run/worker-group.js)
 * @property {boolean} loadStarted the main group's workers were told to go
 * @property {number|null} startAt the instant the load started (the timeline's origin), null when it did not
 * @property {object|null} timeline the intervals of the load (lib/results/timeline.js)
 * @property {object|null} cluster the monitor's samples of sys.nodes, null without --monitor_interval
 * @property {number|null} monitorStartedAt when the monitor's baseline sample was taken
 * @property {object|null} steering the rates changed and the stop asked while the load ran (lib/run/steering.js), with
 *   each group's target as it really was
 * @property {object|null} warmup how a steady warm-up ended (watchSteadyWarmup): null for a warm-up of a fixed time
 */

/**
 * The load stage: a worker group per load group (the main workload's and, with --ingest_rate, the companion's
 * next to it). All start at one instant (the coordination's, for a fleet) and run until the main group ends; the
 * companion is then stopped. Ctrl-C stops both; a second one abandons their requests in flight; the steering's stop
 * stops both as the first Ctrl-C does, without making the run partial. Emits 'go' ({ startAt, totals }) on ctx.events
 * when the workers are told to go, 'load' with what a live view watches (the timeline, the groups' totals, the
 * monitor, host events, the steering), and 'warm' when a steady warm-up ended (its verdict). Returns the Load.
 */
/**
 * A --rate run whose flight cannot carry the rate at the first second's latency says so then, on its own line above
 * the progress line (lib/run/flight-check.js).
 */
function watchFlight (ctx, main, progress, { startAt, targetAt }) {
  const { options, workload } = ctx
  const check = new FlightCheck({ targetAt, inFlight: options.concurrentRequests, unit: workload.unit })
  const onDelta = ({ delta }) => {
    const warning = check.addDelta(delta, now() - startAt)
    if (check.done) main.off('delta', onDelta)
    if (warning) ctx.stderr.write(`${progress.refreshing ? '\r\x1b[K' : ''}${warning}\n`)
  }
  main.on('delta', onDelta)
}

/**
 * What the rest of this machine takes while the load runs (machine-share.js): the run's own processes (the master
 * and its workers) and the cluster's nodes that run here are told apart from the others.
 */
function watchMachine (ctx, workerGroups) {
  const own = () => [...new Set([process.pid, ...workerGroups.flatMap((g) => g.workers
    .map((w) => w.child && w.child.pid).filter(Number.isSafeInteger))])]
  const { pids: cluster, forwarders } = clusterProcessesOf(ctx.options, { holderPid, isLocal: isThisMachine,
    kindOf: listenerKind })
  return new MachineShare({ pids: () => ({ own: own(), cluster }), forwarders,
    busyOverPct: busyOverPctOf(process.env.CRATE_BENCH_BUSY_OTHERS_PCT) }).start()
}

/**
 * CRATE_BENCH_BUSY_OTHERS_PCT: the share of this machine's CPU other work may take during a run before it is marked
 * busy (default 25; 100: never). A machine that runs other work by design (a test machine running several tests at
 * once) says so here; a value that is no percentage is the default.
 */
function busyOverPctOf (text) {
  const pct = Number(text)
  return text !== undefined && text !== '' && pct >= 0 && pct <= 100 ? pct : DEFAULT_BUSY_OTHERS_PCT
}

async function runLoad (ctx, loadGroups, coordination, { workersInMaster = false } = {}) {
  const { workload, options } = ctx
  const workerGroups = loadGroups.map((g) => new WorkerGroup({
    name: g.workload.name,
    workload: g.workload,
    options: g.options,
    prepared: g.prepared,
    // Loaded only then: a master of several processes does not need the worker's modules.
    ...(workersInMaster ? { spawnWorker: require('./in-process-worker').inProcessWorker } : {})
  }))
  const [main, side = null] = workerGroups
  const monitor = createMonitor(options)
  const limit = workload.countLimit(options)
  const progress = new ProgressLine({
    stream: ctx.stderr,
    unit: workload.unit,
    enabled: options.progress !== false,
    logEveryMs: progressLogEveryMs(ctx.stderr, options.progress),
    durationMs: options.durationMs,
    totalUnits: limit === Number.MAX_SAFE_INTEGER ? null : limit * options.processes,
    targetRate: options.rate,
    warmupMs: options.warmupMs || 0,
    warmupSteady: Boolean(options.warmupSteady)
  })
  main.on('delta', ({ worker, delta }) => progress.addDelta(delta, worker))
  for (const group of workerGroups) {
    group.on('delta', ({ worker, delta }) => {
      for (const event of delta.events || []) ctx.hostEvents.report(`${group.name}:${worker}`, event)
      if (load.timeline) load.timeline.add(group.name, delta)
    })
  }
  const hostCount = ctx.hostEvents.hosts.length
  progress.extra = () => {
    const up = ctx.hostEvents.upCount
    const hosts = up < hostCount ? `  hosts up ${up}/${hostCount}` : ''
    return monitor ? `${hosts}  cluster write rejections ${grouped(monitor.rejected('write'))}` : hosts
  }
  if (monitor) ctx.hostEvents.watch('monitor', monitor.client)

  const onInterrupt = ({ count }) => {
    progress.stop()
    for (const group of workerGroups) {
      if (count === 1) group.stop(stopReason('interrupted'))
      else group.abort(stopReason('interrupted'))
    }
  }
  ctx.interrupts.on('interrupt', onInterrupt)
  // One group that cannot start ends the run: the others are stopped before their load.
  for (const group of workerGroups) {
    group.once('draining', () => {
      if (!group.loadStarted) {
        for (const other of workerGroups) other.stop(stopReason('stopped', `${group.name} did not start`))
      }
    })
  }
  let masterCpuAtGo = null
  let share = null
  let clusterCpu = null
  let measuredTimer = null
  let warming = null
  let unwatchNodes = () => {}
  /** @type {Load} */
  const load = {
    outcomes: {},
    loadStarted: false,
    startAt: null,
    timeline: null,
    cluster: null,
    machine: null,
    monitorStartedAt: null,
    steering: null,
    warmup: null
  }
  try {
    for (const group of workerGroups) group.start()
    const ready = (await Promise.all(workerGroups.map((g) => g.whenReady()))).every(Boolean)
    const chosenStart = ready ? await beforeGo(ctx, monitor, coordination) : false
    if (chosenStart !== false) {
      // A fleet's generators start at the instant their barrier chose, on this machine's wall clock.
      const startAt = chosenStart == null ? now() + GO_LEAD_MS
        : Math.max(now() + 10, now() + (chosenStart - Date.now()))
      load.startAt = startAt
      // A fleet's generators keep each interval's histogram: the fleet's report merges them into exact percentiles;
      // so does a run in stages, whose stages each get their own.
      load.timeline = new Timeline({ originMs: startAt, keepHistograms: Boolean(options.fleet || options.stages),
        resolution: new Resolution({ breaksMs: timelineBreaks(options) }) })
      // --duration is the measured part: it starts when the warm-up ends.
      const deadline = options.durationMs ? startAt + (options.warmupMs || 0) + options.durationMs : null
      masterCpuAtGo = process.cpuUsage()
      share = watchMachine(ctx, workerGroups)
      clusterCpu = new ClusterCpu({ share, monitor, client: monitor && monitor.client })
      // The cluster's CPU is counted over the measured window, as the rows are: from the warm-up's end.
      const measuredFrom = startAt + (options.warmupMs || 0)
      measuredTimer = setTimeout(() => clusterCpu.markMeasured(), Math.max(0, measuredFrom - now()))
      for (const group of workerGroups) group.go({ startAt, deadline })
      unwatchNodes = watchStartedNodes(options.startedCluster, { onAllGone: (why) => {
        progress.stop()
        ctx.log(`${why}: the run ends now`)
        for (const group of workerGroups) group.abort(stopReason('server_gone', why))
      } })
      if (options.warmupSteady) {
        warming = watchSteadyWarmup(ctx, main, workerGroups, { startAt, onWarm: (warmup) => {
          load.warmup = warmup
          clearTimeout(measuredTimer)
          clusterCpu.markMeasured()
          progress.warmed(warmup.ms)
          ctx.events.emit('warm', warmup)
          ctx.log(`${progress.refreshing ? '\r\x1b[K' : ''}warm-up ended after ${fmt(round(warmup.ms / 1000, 1))} s: ` +
            `${warmup.line}${warmup.steady ? '' : ' (its figures are of nodes that were still settling)'}`)
        } })
      }
      progress.start(startAt, main.totals)
      load.steering = steeringOf(loadGroups, workerGroups, { startAt, deadline })
      // What the main group is asked now (--rate, a stage, a change by hand); none in the closed model.
      progress.targetRate = () => load.steering.profiles().main?.rateAt(now() - startAt)
      if (options.rate) {
        watchFlight(ctx, main, progress, { startAt, targetAt: (ms) => load.steering.profiles().main?.rateAt(ms) })
      }
      load.steering.on('stop', () => {
        progress.stop()
        for (const group of workerGroups) group.stop(stopReason('user_stop'))
      })
      ctx.events.emit('go', { startAt, totals: main.totals })
      ctx.events.emit('load', {
        startAt,
        deadline,
        timeline: load.timeline,
        groups: loadGroups.map((g, i) => ({ role: g.role, workload: g.workload, workerGroup: workerGroups[i] })),
        monitor,
        hostEvents: ctx.hostEvents,
        steering: load.steering,
        countLimit: limit === Number.MAX_SAFE_INTEGER ? null : limit * options.processes
      })
      if (ctx.metrics) {
        watchLoad(ctx, { loadGroups, workerGroups, startAt, deadline: () => (load.warmup && options.durationMs
          ? startAt + load.warmup.ms + options.durationMs : deadline),
        warmupMs: () => (load.warmup ? load.warmup.ms : options.warmupMs || 0) })
      }
    }
    const mainOutcome = await main.whenDone()
    if (side) side.stop(stopReason('main_finished'))
    const sideOutcome = side ? await side.whenDone() : null
    if (share) load.machine = share.stop()
    // The master's own CPU over the load is the main workload's: the companion's figures are its workers'. A worker
    // in the master's process has counted the process's CPU already.
    if (masterCpuAtGo && !workersInMaster) mainOutcome.resources.push(masterResources(masterCpuAtGo))
    load.outcomes = { main: mainOutcome, ...(side ? { companion: sideOutcome } : {}) }
    load.loadStarted = main.loadStarted
  } finally {
    ctx.interrupts.off('interrupt', onInterrupt)
    progress.stop()
    unwatchNodes()
    clearTimeout(measuredTimer)
    if (warming) warming.stop()
    if (monitor) await monitor.stop()
    if (clusterCpu) load.clusterCpu = await clusterCpu.finish(load.machine)
    if (monitor) {
      monitor.client.close()
      load.cluster = monitor.toJSON()
      load.monitorStartedAt = monitor.startedAt
    }
  }
  return load
}

/**
 * --start_at, the coordination's start (a fleet's barrier), then the monitor's baseline sample, so every rejection
 * counted is this run's. Returns the wall-clock start the coordination chose, null for as soon as possible, or
 * false when an interrupt came meanwhile: no load is started then.
 */
async function beforeGo (ctx, monitor, coordination) {
  if (ctx.options.startAt) await waitUntil(Date.parse(ctx.options.startAt), ctx)
  const startAt = await coordination.startAt(ctx)
  if (ctx.interrupts.interrupted) return false
  if (monitor) await monitor.start()
  return ctx.interrupts.interrupted ? false : startAt
}

/** --start_at: all load generators start their load at the same wall-clock time. */
async function waitUntil (atMs, ctx) {
  const late = Date.now() - atMs
  if (late > 0) {
    ctx.log(`note: --start_at ${new Date(atMs).toISOString()} passed ${late} ms ago (setup took longer); starting now`)
    return
  }
  ctx.log(`waiting until ${new Date(atMs).toISOString()} (--start_at)`)
  while (Date.now() < atMs && !ctx.interrupts.interrupted) await sleep(Math.min(200, atMs - Date.now()))
}

function steeringOf (loadGroups, workerGroups, { startAt, deadline }) {
  return new Steering({
    groups: loadGroups.map((g, i) => ({
      role: g.role, name: g.workload.name, unit: g.workload.unit, options: g.options, workerGroup: workerGroups[i]
    })),
    startAt,
    deadline,
    now
  })
}

/**
 * The monitor has its own connection and a short timeout: a cluster that stops answering must
 * not hold the report back for a whole --timeout.
 */
function createMonitor (options) {
  if (!(options.monitorIntervalMs > 0)) return null
  const timeoutMs = Math.min(options.connection.timeoutMs, Math.max(2000, options.monitorIntervalMs))
  const own = timeoutMs !== options.connection.timeoutMs
  const timeoutName = own ? "the monitor's timeout, from --monitor_interval" : '--timeout'
  const client = new CrateClient({ ...options.connection, maxSockets: 1, timeoutMs, timeoutName, retryUnsent: true })
  return new ClusterMonitor({ client, intervalMs: options.monitorIntervalMs })
}

/** What /metrics reads while the load runs: the groups' totals as the workers report them. */
function watchLoad (ctx, { loadGroups, workerGroups, startAt, deadline, warmupMs }) {
  const groups = loadGroups.map((g, i) => [g.workload, workerGroups[i]])
  const main = workerGroups[0]
  const unitsPerRequest = unitsPerRequestOf(ctx.workload, ctx.options)
  const answered = (t) => t.all.ok + t.all.failed + t.all.inDoubt + t.warmup.ok + t.warmup.failed + t.warmup.inDoubt
  ctx.metrics.watch({
    groups: () => groups.map(([workload, group]) => ({ workload: workload.name, totals: group.totals })),
    inFlight: () => Math.max(0, Math.ceil((main.totals.unitsSent - answered(main.totals)) / unitsPerRequest)),
    hostsUp: () => ctx.hostEvents.upCount,
    phase: () => {
      const t = now()
      if (t < startAt + warmupMs()) return 'warmup'
      return deadline() !== null && t > deadline() ? 'drain' : 'measure'
    }
  })
}

// Where stderr is no terminal, a line a minute: a long run's log shows it alive without growing by a line a second.
const PROGRESS_LOG_EVERY_MS = 60_000

/** On a terminal the refreshing line (null); in a log, a plain line a minute, or a second with --progress. */
function progressLogEveryMs (stream, asked) {
  if (stream.isTTY) return null
  return asked === true ? 1000 : PROGRESS_LOG_EVERY_MS
}

function masterResources (cpuAtGo) {
  const cpu = process.cpuUsage(cpuAtGo)
  return {
    cpuMicros: cpu.user + cpu.system,
    startupCpuMicros: cpuAtGo.user + cpuAtGo.system,
    maxRssKb: process.resourceUsage().maxRSS
  }
}

/** Where the timeline's coarse intervals must not reach across: the end of the warm-up and each stage's start. */
function timelineBreaks (options) {
  const breaks = [options.warmupMs || 0]
  let at = 0
  for (const stage of options.stages || []) {
    breaks.push(at)
    at += stage.durationMs
  }
  return breaks
}

module.exports = { runLoad, progressLogEveryMs, GO_LEAD_MS }
