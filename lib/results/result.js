'use strict'

const { round, perSecond } = require('../base/format')
const { encodeHistogram } = require('./stats')

/**
 * A steady warm-up (--warmup steady) as it ended: whether the rate was steady or the cap ended it, the two windows it
 * compared, and the rule, so that a reader can check it on the timeline. Nothing for a warm-up of a fixed time.
 */
function steadyOf (options, verdict) {
  if (!options.warmupSteady) return {}
  const v = verdict || {}
  return {
    until: 'steady',
    max_seconds: round(options.warmupCapMs / 1000, 3),
    steady: v.steady ?? false,
    window_s: v.window_s ?? null,
    before_per_sec: v.before_per_sec ?? null,
    last_per_sec: v.last_per_sec ?? null,
    change_pct: v.change_pct ?? null,
    tolerance_pct: v.tolerance_pct ?? null,
    line: v.line ?? 'the run ended before the warm-up did',
    rule: v.rule ?? null,
    // A run of a duet: its peers, and how long it waited for them once steady itself.
    together: v.together ?? null
  }
}

/**
 * The result object behind both the table and --json. Every rate divides by one window: from the
 * first request sent by any worker to the last answer received by any worker. Units sent are ok
 * (acknowledged one by one), failed (the server said no, or they never left) or in doubt (sent,
 * answer lost: a closed connection, a timeout, a worker that died or was abandoned).
 */
function buildResult ({
  workload,
  options,
  describedOptions,
  totals,
  workers,
  partialReasons,
  resources,
  extra,
  cluster = null,
  events = [],
  targetPerSec = undefined,
  steadyWarmup = null
}) {
  const unit = workload.unit
  const seconds = round(totals.seconds, 3)
  const all = totals.all
  const okPerSecond = perSecond(all.ok, seconds)
  const result = {
    workload: workload.name,
    options: describedOptions,
    started_at: totals.firstSentAt === null ? null : new Date(totals.firstSentAt).toISOString(),
    seconds,
    // The window is sending, then the drain of the last answers (at most --graceful_stop after --duration).
    sending_seconds: round(totals.sendingSeconds, 3),
    drain_seconds: round(Math.max(0, totals.seconds - totals.sendingSeconds), 3),
    // Units answered during --warmup are apart: everything else, the sent units included, is after it.
    [`${unit}_sent`]: totals.unitsSent - totals.warmup.units,
    [`${unit}_ok`]: all.ok,
    [`${unit}_failed`]: all.failed,
    [`${unit}_in_doubt`]: totals.unitsSent - totals.warmup.units - all.ok - all.failed,
    warmup: options.warmupMs
      ? {
          seconds: round(options.warmupMs / 1000, 3),
          [`${unit}_ok`]: totals.warmup.ok,
          [`${unit}_failed`]: totals.warmup.failed,
          [`${unit}_in_doubt`]: totals.warmup.inDoubt,
          requests: totals.warmup.requests,
          ...steadyOf(options, steadyWarmup)
        }
      : null,
    [`${unit}_per_sec`]: okPerSecond,
    requests: all.requests,
    requests_failed: all.requestsFailed,
    latency_ms: all.latencySummary(),
    server_ms: all.serverSummary(),
    errors: totals.errors.toJSON(),
    workers: workers.map((w) => ({
      worker: w.index,
      [`${unit}_ok`]: w.totals.all.ok,
      [`${unit}_failed`]: w.totals.all.failed,
      requests: w.totals.all.requests,
      seconds: round(w.totals.seconds, 3),
      // Each worker's own rate: its units over its own window.
      [`${unit}_per_sec`]: perSecond(w.totals.all.ok, round(w.totals.seconds, 3)),
      stop_reason: w.stopReason ? w.stopReason.kind : w.exit ? 'died' : null,
      stop_detail: w.stopReason
        ? w.stopReason.detail
        : w.exit
          ? `${w.exit.signal || `exit code ${w.exit.code}`} before its final report`
          : null
    })),
    rate: rateOf(options, totals, okPerSecond, targetPerSec),
    cluster,
    events,
    ...extra,
    client: clientResources(resources, totals.unitsSent, unit),
    // HdrHistogram's compressed encoding: runs of several load generators merge exactly from these.
    histograms: {
      latency: encodeHistogram(all.latency),
      // The server's own `duration` of each answer, so that a merged run's server-side percentiles are exact too.
      server: encodeHistogram(all.server),
      labels: Object.fromEntries([...totals.series].map(([label, s]) => [label, encodeHistogram(s.latency)]))
    },
    partial: partialReasons.length > 0,
    partial_reasons: partialReasons
  }
  return workload.extendResult ? workload.extendResult(result, totals, options) : result
}

/**
 * Target vs achieved under --rate or --stages; null in the closed model. Achieved counts acknowledged units. The
 * target is --rate, or what the run says it asked on average (stages, a rate changed by hand).
 */
function rateOf (options, totals, achieved, targetPerSec) {
  const target = targetPerSec ?? options.rate
  if (target === null || target === undefined || !(target > 0)) return null
  return {
    target_per_sec: targetPerSec === undefined ? target : round(target),
    achieved_per_sec: achieved,
    achieved_pct: round((achieved / target) * 100, 1),
    late_requests: totals.lateRequests,
    // The slowest request's own time, send to answer: what --timeout bounds (the latency counts from the schedule).
    request_max_ms: round((totals.maxOwnMicros || 0) / 1000, 3),
    // What the timetable held before --duration ended and never went out: load the cluster was never offered.
    dropped_requests: totals.droppedRequests || 0,
    dropped_units: totals.droppedUnits || 0,
    // Due at a rate that was changed again before they could go out: the steering's, not in the target judged.
    withdrawn_requests: totals.withdrawnRequests || 0,
    withdrawn_units: totals.withdrawnUnits || 0,
    latency_from: 'scheduled start'
  }
}

// Room above the flight a rate needs: latencies vary.
const FLIGHT_HEADROOM = 1.1

/**
 * The --concurrent_requests (per process) that would have served `targetPerSec` where `inFlight` a process served
 * `achievedPerSec` with requests late: N in flight serve N / latency a second. Null when nothing was served (then the
 * answers, not the flight, are what to look at).
 */
function flightNeeded ({ inFlight, targetPerSec, achievedPerSec }) {
  if (!(inFlight > 0) || !(achievedPerSec > 0)) return null
  return Math.ceil(inFlight * (targetPerSec / achievedPerSec) * FLIGHT_HEADROOM)
}

// A worker above either limit may have held the load back: the cluster was not what limited it.
const SATURATED_CPU_PCT = 90
const SATURATED_LOOP_DELAY_MS = 100

function clientResources (resources, unitsSent, unit) {
  const cpuMicros = resources.reduce((sum, r) => sum + r.cpuMicros, 0)
  const maxRssKb = resources.reduce((max, r) => Math.max(max, r.maxRssKb), 0)
  const workers = resources.filter((r) => r.wallMicros > 0).map((r) => ({
    cpu_pct: round((r.cpuMicros / r.wallMicros) * 100, 1),
    event_loop_delay_p99_ms: r.eventLoopDelayP99Ms === null ? null : round(r.eventLoopDelayP99Ms, 1)
  }))
  const startupCpuMicros = resources.reduce((sum, r) => sum + (r.startupCpuMicros || 0), 0)
  return {
    cpu_seconds: round(cpuMicros / 1e6, 3),
    // Master and workers from their launch to the start of the load; not in cpu_seconds.
    startup_cpu_seconds: round(startupCpuMicros / 1e6, 3),
    [`cpu_us_per_${unit === 'rows' ? 'row' : 'query'}`]: unitsSent > 0 ? round(cpuMicros / unitsSent, 3) : null,
    max_rss_mb_per_process: round(maxRssKb / 1024, 1),
    workers,
    saturated: isSaturated(workers)
  }
}

/** The client, not the cluster, may have limited the run. */
function isSaturated (workers) {
  return workers.some(
    (w) => w.cpu_pct >= SATURATED_CPU_PCT || (w.event_loop_delay_p99_ms ?? 0) >= SATURATED_LOOP_DELAY_MS
  )
}

/** 0 only when every unit was acknowledged; a run that went on through a node loss is complete, not partial. */
function exitCodeOf (result, unit) {
  if (result.partial) return 4
  if (result[`${unit}_failed`] > 0 || result[`${unit}_in_doubt`] > 0) return 1
  return 0
}

/** A run's exit code with its --threshold checks: partial says more than a threshold, a miss more than failures. */
function exitCodeWithThresholds (code, thresholds) {
  return code !== 4 && (thresholds || []).some((t) => !t.passed) ? 5 : code
}

/** What a workload's results count: rows (ingest) or queries (analytical). */
const unitOfWorkload = (workload) => (workload === 'ingest' ? 'rows' : 'queries')

const isCount = (x) => Number.isFinite(x) && x >= 0
const isObject = (x) => x !== null && typeof x === 'object' && !Array.isArray(x)

/**
 * Why `result` is not a result this tool wrote (--json, --results_table), or null when it is: the report, compare
 * and merge read these fields, and a file that lacks one must be refused with its name, not crash them.
 */
function resultProblem (result) {
  if (!isObject(result)) return 'not a JSON object'
  if (!['ingest', 'analytical'].includes(result.workload)) return 'no workload (ingest or analytical)'
  const unit = unitOfWorkload(result.workload)
  if (!isObject(result.options) || !Array.isArray(result.options.hosts)) return 'no options with hosts'
  for (const field of ['seconds', `${unit}_sent`, `${unit}_ok`, `${unit}_failed`, `${unit}_in_doubt`, 'requests']) {
    if (!isCount(result[field])) return `no ${field}`
  }
  for (const field of ['errors', 'workers']) if (!Array.isArray(result[field])) return `no ${field} list`
  if (!isObject(result.latency_ms)) return 'no latency_ms'
  if (!isObject(result.client)) return 'no client figures'
  if (unit === 'queries' && !Array.isArray(result.queries)) return 'no queries list'
  if (result.timeline !== undefined && result.timeline !== null) {
    const t = result.timeline
    if (!isObject(t) || !Array.isArray(t.series) || !Array.isArray(t.nodes ?? []) || !Array.isArray(t.events ?? [])) {
      return 'a timeline without its series, nodes and events'
    }
    if (!t.series.every((entry) => isObject(entry) && Number.isFinite(entry.t_s))) return 'a timeline entry without t_s'
  }
  return null
}

module.exports = {
  buildResult,
  exitCodeOf,
  exitCodeWithThresholds,
  unitOfWorkload,
  resultProblem,
  isSaturated,
  flightNeeded,
  SATURATED_CPU_PCT,
  SATURATED_LOOP_DELAY_MS
}
