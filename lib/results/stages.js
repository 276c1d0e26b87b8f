'use strict'

const { newHistogram, decodeHistogram, latencySummary } = require('./stats')
const { evaluateThresholds } = require('./thresholds')
const { round } = require('../base/format')
const { stageText } = require('../data/load-profile')

// A stage whose achieved rate is below this share of its target did not keep up.
const KEPT_UP_SHARE = 0.95
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
  stoppedAtS = null, granularity = 0 }) {
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
    startS = plannedEndS
    return entry
  })
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
    return { kept: false, reason: `achieved ${entry.achieved_per_sec}/s, below 95% of the target ` +
      `${entry.target_per_sec}/s` }
  }
  const missed = entry.thresholds.find((t) => !t.passed)
  if (missed) return { kept: false, reason: `--threshold ${missed.threshold} missed (${missed.actual ?? 'no value'})` }
  const rejected = entry.nodes.reduce((sum, n) => sum + n.write_rejected + n.search_rejected, 0)
  if (rejected > 0) return { kept: false, reason: `${rejected} thread-pool rejections on the nodes` }
  return { kept: true, reason: null }
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

module.exports = { stageResults, mergedStageResults, KEPT_UP_SHARE }
