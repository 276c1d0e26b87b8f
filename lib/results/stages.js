'use strict'

const { newHistogram, decodeHistogram, latencySummary } = require('./stats')
const { evaluateThresholds } = require('./thresholds')
const { round, grouped } = require('../base/format')
const { stageText } = require('../data/load-profile')

// A stage whose achieved rate is below this share of its target did not keep up.
const KEPT_UP_SHARE = 0.95
// A stage whose p50 or p99 is more than this many times the first kept stage's met its rate by queueing (and by at
// least QUEUEING_FLOOR_MS: a few milliseconds more on a fast cluster, or one JVM pause in a short stage's p99, are
// no queue). --queueing_factor sets it; 0 turns it off.
const QUEUEING_FACTOR = 4
const QUEUEING_FLOOR_MS = 20
// A ramp is judged on windows of this share of it (at least MIN_WINDOW_S): where it first fell behind, not on its
// mean, which the rates before that point (and the last stage's answers arriving in it) make up for.
const RAMP_WINDOW_SHARE = 0.1
const MIN_WINDOW_S = 3
// Per-stage checks of the run's own thresholds: what one stage has (a latency, a count), not the whole run's drops.
const STAGE_METRICS = new Set(['p50', 'p90', 'p95', 'p99', 'p999', 'max', 'mean', 'failed', 'in_doubt'])

/**
 * Each stage of --stages with its own figures, from the intervals of the timeline inside it (the stages are whole
 * intervals; the drain after the last stage belongs to the last): the target (the mean of what the profile asked,
 * changes by hand included) and the achieved rate, p50/p90/p99 from the intervals' merged histograms, failed and in
 * doubt, and the nodes' CPU and thread-pool rejections from the monitor's samples within it. Names the first stage
 * where the cluster stopped keeping up: achieved below 95% of the target, a --threshold of the run missed within
 * the stage, or rejections; a shortfall of at most `granularity` units (a request per process) is none. The stages'
 * units add up to the run's. A run stopped early (the page, the API, Ctrl-C)
 * at `stoppedAtS`: the stage it cut is judged on the part that ran (status 'stopped'), those after it are 'not run'
 * (kept_up.kept null) and never the knee.
 */
function stageResults ({ stages, profile, timeline, group, unit, nodes = [], thresholds = [], scale = 1,
  stoppedAtS = null, granularity = 0, queueingFactor = QUEUEING_FACTOR }) {
  if (!stages || stages.length === 0) return null
  const series = timeline.series || []
  let startS = 0
  const results = stages.map((stage, i) => {
    const plannedEndS = startS + stage.durationMs / 1000
    // A run stopped before the stage's end: judged on the part that ran; a stage it never reached is not judged.
    const status = stoppedAtS === null || stoppedAtS >= plannedEndS - 1e-9 ? 'ran'
      : stoppedAtS > startS + 1e-9 ? 'stopped' : 'not run'
    const endS = status === 'stopped' ? stoppedAtS : plannedEndS
    // The drain after the last stage that ran belongs to it.
    const last = i === stages.length - 1 || status === 'stopped'
    const inside = status === 'not run' ? []
      : series.filter((e) => e.t_s >= startS - 1e-9 && (last || e.t_s < endS - 1e-9))
    const figures = stageFigures({ inside, group, seconds: endS - startS })
    const target = profile ? profile.meanRate(startS * 1000, endS * 1000) * scale : (stage.from + stage.to) / 2
    const entry = {
      stage: i + 1,
      start_s: startS,
      end_s: plannedEndS,
      status,
      ran_s: status === 'not run' ? 0 : round(endS - startS, 3),
      planned: stageText({ ...stage, from: stage.from * scale, to: stage.to * scale }),
      // This generator's share of the stage as planned (a fleet's merged report adds its generators' up).
      from: stage.from * scale,
      to: stage.to * scale,
      target_per_sec: status === 'not run' ? null : round(target),
      achieved_per_sec: status === 'not run' ? null : figures.achieved,
      achieved_pct: status !== 'not run' && target > 0 ? round((figures.achieved / target) * 100, 1) : null,
      [`${unit}_ok`]: figures.ok,
      [`${unit}_failed`]: figures.failed,
      [`${unit}_in_doubt`]: figures.inDoubt,
      latency_ms: figures.latency,
      nodes: status === 'not run' ? [] : nodesWithin(nodes, startS, last ? Infinity : endS)
    }
    entry.thresholds = status === 'not run' ? []
      : evaluateThresholds(thresholds.filter((t) => t.label === null && STAGE_METRICS.has(t.metric)),
        { latency_ms: entry.latency_ms, [`${unit}_failed`]: figures.failed, [`${unit}_in_doubt`]: figures.inDoubt },
        unit)
    entry.kept_up = keptUp(entry, granularity / (endS - startS))
    if (entry.kept_up.kept && stage.from !== stage.to) {
      const rateAt = (fromS, toS) => (profile ? profile.meanRate(fromS * 1000, toS * 1000) * scale
        : ((stage.from + (stage.to - stage.from) * ((fromS + toS) / 2 - startS) / (endS - startS)) * scale))
      entry.fell_behind = fellBehind(inside, group, rateAt, granularity)
      if (entry.fell_behind) {
        entry.kept_up = { kept: false, reason: `fell behind at ${grouped(entry.fell_behind.target_per_sec, 0)}/s, ` +
          `${round(entry.fell_behind.at_s - startS, 1)} s into the ramp (achieved ` +
          `${grouped(entry.fell_behind.achieved_per_sec, 0)}/s there)` }
      }
    }
    startS = plannedEndS
    return entry
  })
  judgeQueueing(results, queueingFactor)
  const knee = results.find((s) => s.kept_up.kept === false)
  return {
    stages: results,
    first_not_kept_up: knee ? { stage: knee.stage, reason: knee.kept_up.reason } : null
  }
}

function stageFigures ({ inside, group, seconds }) {
  let ok = 0
  let failed = 0
  let inDoubt = 0
  const histogram = newHistogram()
  for (const entry of inside) {
    const g = entry[group]
    if (!g) continue
    ok += g.ok
    failed += g.failed
    inDoubt += g.in_doubt
    if (g.latency_hist) histogram.add(decodeHistogram(g.latency_hist))
  }
  const l = latencySummary(histogram)
  return {
    ok,
    failed,
    inDoubt,
    achieved: round(ok / seconds),
    latency: { p50: l.p50, p90: l.p90, p99: l.p99, max: l.max }
  }
}

/**
 * The monitor's samples within [startS, endS): each node's mean process CPU, and its thread-pool rejections in the
 * stage (the samples count since the run's start: the last one in the stage less the last one before it).
 */
function nodesWithin (nodes, startS, endS) {
  const names = [...new Set(nodes.map((n) => n.name))]
  return names.map((name) => {
    const own = nodes.filter((n) => n.name === name)
    const within = own.filter((n) => n.t_s >= startS && n.t_s < endS)
    const before = own.filter((n) => n.t_s < startS).pop()
    const lastIn = within[within.length - 1]
    const rejected = (pool) => lastIn && lastIn[pool] != null
      ? Math.max(0, lastIn[pool] - ((before && before[pool]) ?? 0))
      : 0
    const cpu = within.map((n) => n.process_cpu_pct).filter((v) => typeof v === 'number')
    return {
      name,
      cpu_pct: cpu.length ? round(cpu.reduce((a, b) => a + b, 0) / cpu.length, 1) : null,
      write_rejected: rejected('write_rejected'),
      search_rejected: rejected('search_rejected')
    }
  })
}

// A stage cut by a stop after less than this ran is not judged: too little of it to say.
const MIN_JUDGED_S = 1

/** `slackPerSec`: one request per process over the stage, as a rate: a shortfall within it is not a knee. */
function keptUp (entry, slackPerSec = 0) {
  if (entry.status === 'not run') return { kept: null, reason: 'not run: the run was stopped before it' }
  if (entry.status === 'stopped' && entry.ran_s < MIN_JUDGED_S) {
    return { kept: null, reason: `stopped ${entry.ran_s} s into it: too little ran to judge` }
  }
  if (entry.target_per_sec > 0 && entry.achieved_per_sec < entry.target_per_sec * KEPT_UP_SHARE &&
    entry.target_per_sec - entry.achieved_per_sec > slackPerSec) {
    return { kept: false, reason: `achieved ${grouped(entry.achieved_per_sec, 2)}/s, below 95% of the target ` +
      `${grouped(entry.target_per_sec, 2)}/s` }
  }
  const missed = entry.thresholds.find((t) => !t.passed)
  if (missed) return { kept: false, reason: `--threshold ${missed.threshold} missed (${missed.actual ?? 'no value'})` }
  const rejected = entry.nodes.reduce((sum, n) => sum + n.write_rejected + n.search_rejected, 0)
  if (rejected > 0) return { kept: false, reason: `${rejected} thread-pool rejections on the nodes` }
  return { kept: true, reason: null }
}

/**
 * A ramp's first window (RAMP_WINDOW_SHARE of it, at least MIN_WINDOW_S, sliding by an interval) whose achieved rate
 * is below 95% of what the profile asked in it (beyond a request per process): where it fell behind, or null.
 */
function fellBehind (inside, group, rateAt, granularity) {
  const points = inside.filter((e) => e.partial_s === undefined).map((e) => ({ t_s: e.t_s,
    seconds: e.interval_s ?? 1, ok: e[group] ? e[group].ok : 0 }))
  if (points.length === 0) return null
  const spanS = points.reduce((sum, p) => sum + p.seconds, 0)
  const widthS = Math.max(MIN_WINDOW_S, spanS * RAMP_WINDOW_SHARE)
  for (let first = 0; first < points.length; first++) {
    let seconds = 0
    let ok = 0
    let last = first
    while (last < points.length && seconds < widthS - 1e-9) {
      seconds += points[last].seconds
      ok += points[last].ok
      last++
    }
    if (seconds < widthS - 1e-9) break
    const fromS = points[first].t_s
    const toS = fromS + seconds
    const target = rateAt(fromS, toS)
    const achieved = ok / seconds
    if (target > 0 && achieved < target * KEPT_UP_SHARE && (target - achieved) * seconds > granularity) {
      return { at_s: round(toS, 3), window_s: round(seconds, 3), target_per_sec: round(target),
        achieved_per_sec: round(achieved) }
    }
  }
  return null
}

/**
 * A stage that kept its rate with a p50 or p99 more than `factor` times the first kept stage's did it by queueing:
 * not kept up. Each stage gets `latency_vs_first` (its p50 and p99 over the reference's).
 */
function judgeQueueing (results, factor) {
  const reference = results.find((r) => r.kept_up.kept === true && typeof r.latency_ms.p50 === 'number')
  if (!reference) return
  for (const r of results) {
    if (r === reference || r.status === 'not run' || typeof r.latency_ms.p50 !== 'number') continue
    const times = (key) => (reference.latency_ms[key] > 0 ? round(r.latency_ms[key] / reference.latency_ms[key], 1)
      : null)
    r.latency_vs_first = { stage: reference.stage, p50_x: times('p50'), p99_x: times('p99') }
    if (!factor || r.kept_up.kept !== true) continue
    const queued = ['p50', 'p99'].find((key) => r.latency_vs_first[`${key}_x`] > factor &&
      r.latency_ms[key] - reference.latency_ms[key] >= QUEUEING_FLOOR_MS)
    if (queued) {
      const ms = (v) => round(v, v >= 100 ? 0 : 1)
      r.kept_up = { kept: false, queueing: true, reason: `queueing: ${queued} ${ms(r.latency_ms[queued])} ms, ` +
        `${r.latency_vs_first[`${queued}_x`]}x stage ${reference.stage}'s ${ms(reference.latency_ms[queued])} ms ` +
        '(the rate was met by waiting)' }
    }
  }
}

/**
 * The stages of a fleet's merged report: each generator ran its share of every stage on the fleet's one clock, so a
 * stage of the fleet is the sum of theirs, judged on the merged timeline (exact percentiles from the merged
 * histograms) with the run's thresholds.
 */
function mergedStageResults (results, merged, unit) {
  const staged = results.filter((r) => Array.isArray(r.stages))
  if (staged.length === 0) return null
  const stages = staged[0].stages.map((s, i) => ({
    durationMs: (s.end_s - s.start_s) * 1000,
    from: staged.reduce((sum, r) => sum + (r.stages[i] ? r.stages[i].from : 0), 0),
    to: staged.reduce((sum, r) => sum + (r.stages[i] ? r.stages[i].to : 0), 0)
  }))
  const thresholds = (staged[0].thresholds || []).map((t) => ({ text: t.threshold, label: t.label, metric: t.metric,
    op: t.op, limit: t.limit }))
  // The fleet stopped when its last generator did: a stage any of them ran is judged on what ran.
  const stops = results.map((r) => r.stopped_at_s)
  const stoppedAtS = stops.every((t) => typeof t === 'number') ? Math.max(...stops) : null
  return stageResults({ stages, profile: null, timeline: merged.timeline, group: merged.workload, unit,
    nodes: merged.timeline.nodes, thresholds, stoppedAtS })
}

module.exports = { stageResults, mergedStageResults, KEPT_UP_SHARE, QUEUEING_FACTOR }
