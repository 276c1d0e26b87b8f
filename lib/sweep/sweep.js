'use strict'

const { round } = require('../base/format')

// The analysis behind the sweep scripts: one point per value tried, the change from the value
// before, the best value, and the sweet spot where the curve flattens.

const UNITS = ['rows', 'queries']

/**
 * Turns one benchmark run (its --json result and exit code) into a sweep point. Throughput is
 * what the server acknowledged per second of the run's window. Failed units were refused by the server (or never
 * left); units in doubt were sent and their answer lost, and `abandoned` of those the client gave up on itself at
 * --graceful_stop: not the cluster's doing, and said so.
 */
function pointOf ({ value, exitCode, result }) {
  if (!result || typeof result !== 'object') {
    return {
      value,
      exitCode,
      missing: true,
      seconds: null,
      unit: null,
      ok: null,
      sent: null,
      throughput: null,
      p99Ms: null,
      targetRate: null,
      clusterWriteRejected: null,
      failed: null,
      inDoubt: null,
      abandoned: null,
      partial: true
    }
  }
  const unit = UNITS.find((u) => typeof result[`${u}_ok`] === 'number')
  if (!unit) throw new Error(`the result for ${value} has neither rows_ok nor queries_ok: not a result of this tool`)
  const abandoned = (Array.isArray(result.errors) ? result.errors : [])
    .filter((e) => e.in_doubt && e.code === 'ABORTED')
    .reduce((sum, e) => sum + e.count, 0)
  return {
    value,
    exitCode,
    missing: false,
    seconds: result.seconds,
    unit,
    ok: result[`${unit}_ok`],
    sent: result[`${unit}_sent`],
    throughput: result[`${unit}_per_sec`],
    p99Ms: result.latency_ms ? result.latency_ms.p99 : null,
    targetRate: result.rate ? result.rate.target_per_sec : null,
    clusterWriteRejected: result.cluster ? result.cluster.write_rejected : null,
    clusterRejected: result.cluster
      ? (result.cluster.write_rejected || 0) + (result.cluster.search_rejected || 0)
      : null,
    failed: result[`${unit}_failed`] || 0,
    inDoubt: result[`${unit}_in_doubt`] || 0,
    abandoned,
    partial: Boolean(result.partial),
    // The load generator, not the cluster, may have limited this value.
    clientSaturated: Boolean(result.client && result.client.saturated)
  }
}

/**
 * Folds repeated runs of one value (--repeat) into one point: the median run by throughput
 * stands for the value, the spread is kept, and failures add up over all its runs, so one bad
 * repetition is enough to disqualify a value. Values keep the order they were first run in.
 */
function combineRepeats (points) {
  const byValue = new Map()
  for (const point of points) {
    const key = String(point.value)
    if (!byValue.has(key)) byValue.set(key, [])
    byValue.get(key).push(point)
  }
  return [...byValue.values()].map((runs) => {
    const measured = runs.filter((r) => !r.missing).sort((a, b) => a.throughput - b.throughput)
    const median = measured.length > 0 ? measured[Math.floor((measured.length - 1) / 2)] : runs[runs.length - 1]
    const failedRuns = runs.filter((r) => r.missing)
    return {
      ...median,
      runs: runs.length,
      runThroughputs: measured.map((r) => r.throughput),
      throughputMin: measured.length > 0 ? measured[0].throughput : null,
      throughputMax: measured.length > 0 ? measured[measured.length - 1].throughput : null,
      failed: median.missing ? null : runs.reduce((sum, r) => sum + (r.failed || 0), 0),
      inDoubt: median.missing ? null : runs.reduce((sum, r) => sum + (r.inDoubt || 0), 0),
      abandoned: median.missing ? null : runs.reduce((sum, r) => sum + (r.abandoned || 0), 0),
      sent: median.missing ? null : runs.reduce((sum, r) => sum + (r.sent || 0), 0),
      missing: median.missing || failedRuns.length > 0,
      partial: runs.some((r) => r.partial),
      clientSaturated: runs.some((r) => r.clientSaturated),
      exitCode: Math.max(...runs.map((r) => r.exitCode))
    }
  })
}

/** Percent change of each point's throughput from the point before it (null for the first). */
function withChanges (points) {
  return points.map((point, i) => {
    const before = i > 0 ? points[i - 1].throughput : null
    const change =
      before > 0 && point.throughput !== null ? round(((point.throughput - before) / before) * 100, 1) : null
    return { ...point, changePct: change }
  })
}

/**
 * A point is a candidate for best value and sweet spot only when its run completed and every
 * unit was acknowledged: a value at which the cluster rejects work is past its limit, however
 * fast the rest went.
 */
const isCandidate = (p) =>
  !p.missing && !p.partial && !p.clientSaturated && p.failed === 0 && !(p.inDoubt > 0) && p.throughput > 0

/**
 * Why the values beyond the last candidate are not candidates: 'failures' when any of them had units the server
 * refused, 'in_doubt' when answers were lost, 'abandoned' when the only problem was the client's own requests
 * abandoned at --graceful_stop.
 */
function whyNotBeyond (points) {
  if (points.some((p) => p.failed > 0 || p.missing || p.partial || p.clientSaturated)) return 'failures'
  if (points.some((p) => p.inDoubt > p.abandoned)) return 'in_doubt'
  return 'abandoned'
}

// A larger value that gains less than WORTH_A_LATENCY_JUMP_PCT while its p99 is more than LATENCY_GUARD times the
// smaller one's does not move the sweet spot (--latency_guard; 0 lifts it): +10% rows/s for a p99 of 9 s instead of 3
// is no better place to run.
const LATENCY_GUARD = 2
const WORTH_A_LATENCY_JUMP_PCT = 25

/**
 * best: the candidate with the highest throughput.
 * sweetSpot: the smallest candidate value beyond which no candidate is more than thresholdPct
 * faster (limit 'plateau'), leaving out the larger values whose gain would cost a p99 jump (limit
 * 'latency', latencyJump naming the fastest of them). When no such value exists, the sweet spot is
 * the best value and the limit says why: 'failures' when the values beyond the last candidate all
 * had failures (the cluster saturates there); 'range' when the curve still climbs at the largest
 * value tried, and then there is no sweet spot (null).
 */
function analyse (points, { thresholdPct = 5, maxP99Ms = null, saturatedAt = null, latencyGuard = LATENCY_GUARD }
  = {}) {
  const saturatedIndex = saturatedAt === null ? -1 : points.findIndex((p) => p.value === saturatedAt)
  const reasons = points.map((p, i) => exclusionOf(p, i, { maxP99Ms, saturatedIndex }))
  const ruledOut = points.map((p, i) => ({ value: p.value, reason: reasons[i] })).filter((r) => r.reason !== null)
  const candidates = points.filter((p, i) => reasons[i] === null)
  if (candidates.length === 0) {
    return { best: null, sweetSpot: null, plateauReached: false, limit: null, gainBeyondPct: null, ruledOut }
  }
  const best = candidates.reduce((a, b) => (b.throughput > a.throughput ? b : a))
  for (let i = 0; i < candidates.length; i++) {
    const later = candidates.slice(i + 1)
    if (later.length === 0) break
    const gainOf = (p) => ((p.throughput - candidates[i].throughput) / candidates[i].throughput) * 100
    // A larger value whose small gain costs a p99 many times this one's is not worth it: the guard weighs latency.
    const costly = (p) => latencyGuard > 0 && candidates[i].p99Ms > 0 && p.p99Ms > latencyGuard * candidates[i].p99Ms &&
      gainOf(p) < WORTH_A_LATENCY_JUMP_PCT
    const worth = later.filter((p) => !costly(p))
    const gainPct = worth.length ? Math.max(...worth.map(gainOf)) : -Infinity
    if (gainPct < thresholdPct) {
      const faster = later.filter((p) => costly(p) && gainOf(p) >= thresholdPct)
      const jump = faster.length ? faster.reduce((a, b) => (b.throughput > a.throughput ? b : a)) : null
      return {
        best,
        sweetSpot: candidates[i],
        plateauReached: true,
        limit: jump ? 'latency' : 'plateau',
        gainBeyondPct: worth.length ? round(gainPct, 1) : null,
        latencyJump: jump && { value: jump.value, gainPct: round(gainOf(jump), 1), fromP99Ms: candidates[i].p99Ms,
          toP99Ms: jump.p99Ms, times: round(jump.p99Ms / candidates[i].p99Ms, 1) },
        ruledOut
      }
    }
  }
  const beyond = points.slice(points.indexOf(candidates[candidates.length - 1]) + 1)
  const limit = beyond.length === 0 ? 'range' : saturatedIndex >= 0 && beyond.includes(points[saturatedIndex])
    ? 'saturation'
    : maxP99Ms !== null && beyond.every((p) => p.p99Ms > maxP99Ms) ? 'max_p99' : whyNotBeyond(beyond)
  return {
    best,
    // Still climbing at the largest value tried: no sweet spot, in the text, the summary and the chart alike.
    sweetSpot: limit === 'range' ? null : best,
    plateauReached: false,
    limit,
    gainBeyondPct: null,
    latencyJump: null,
    ruledOut
  }
}

/**
 * Why a value cannot be the best value or the sweet spot, in words that name the rule, or null for a candidate.
 * `saturatedIndex`: a saturation ramp's first saturated point (-1: none); it and every point after it are past the
 * knee.
 */
function exclusionOf (p, index, { maxP99Ms = null, saturatedIndex = -1 } = {}) {
  if (p.missing) return `no result (exit ${p.exitCode})`
  if (p.partial) return 'partial run'
  if (saturatedIndex >= 0 && index === saturatedIndex) return 'the ramp saturated here'
  if (saturatedIndex >= 0 && index > saturatedIndex) return 'beyond the saturation'
  if (p.failed > 0) return `${p.failed} ${p.unit || 'units'} failed`
  if (p.clientSaturated) return 'the load generator was saturated'
  if (p.inDoubt > p.abandoned) return `${p.inDoubt} in doubt (answers lost)`
  if (p.inDoubt > 0) return 'requests abandoned by the client at --graceful_stop'
  if (!(p.throughput > 0)) return 'nothing acknowledged'
  if (maxP99Ms !== null && p.p99Ms > maxP99Ms) return `p99 ${p.p99Ms} ms over --max_p99_ms ${maxP99Ms}`
  return null
}

/**
 * The widest spread between the runs of one value, in percent of its median: when it is larger
 * than the threshold, differences between values of that size are noise, not signal.
 */
function maxSpreadPct (points) {
  let widest = null
  for (const p of points) {
    if (!(p.runs > 1) || !(p.throughput > 0)) continue
    const spread = ((p.throughputMax - p.throughputMin) / p.throughput) * 100
    if (widest === null || spread > widest.spreadPct) widest = { value: p.value, spreadPct: round(spread, 1) }
  }
  return widest
}

/**
 * The stop rule of a saturation ramp, applied after each step, in the terms find-capacity judges a
 * step by: stop when the last point failed more than maxFailurePct of its units, answered slower
 * than maxP99Ms at p99, the cluster rejected work (sys.nodes), the load generator was saturated, or
 * - stepping --rate: achieved more than maxShortfallPct under its target rate;
 * - stepping anything else: gained less than minGainPct over the point before (more load no
 *   longer buys throughput).
 * Returns null to go on, or the reason to stop.
 */
function saturationReason (points, { minGainPct = 5, maxFailurePct = 1, maxP99Ms = null, maxShortfallPct = 1 } = {}) {
  const last = points[points.length - 1]
  if (!last) return null
  if (last.missing) return `the run at ${last.value} produced no result (exit code ${last.exitCode})`
  const failedPct = last.sent > 0 ? (last.failed / last.sent) * 100 : 0
  if (failedPct > maxFailurePct) {
    return `${round(failedPct, 2)}% of ${last.unit} failed at ${last.value} (limit ${maxFailurePct}%)`
  }
  if (maxP99Ms !== null && last.p99Ms > maxP99Ms) {
    return `p99 ${last.p99Ms} ms at ${last.value}, over the SLO of ${maxP99Ms} ms (--max_p99_ms)`
  }
  if (last.clusterRejected > 0) return `${last.clusterRejected} thread-pool rejections in sys.nodes at ${last.value}`
  if (last.clientSaturated) return `the load generator was saturated at ${last.value}: add --processes`
  if (last.targetRate) {
    const shortfallPct = ((last.targetRate - last.throughput) / last.targetRate) * 100
    if (shortfallPct > maxShortfallPct) {
      return `achieved ${last.throughput} ${last.unit}/s at a target of ${last.targetRate} ` +
        `(${round(shortfallPct, 1)}% short, limit ${maxShortfallPct}%)`
    }
    return null
  }
  if (points.length >= 2) {
    const before = points[points.length - 2]
    if (before.throughput > 0) {
      const gainPct = ((last.throughput - before.throughput) / before.throughput) * 100
      if (gainPct < minGainPct) {
        return `throughput gain below the threshold: ${gainPct >= 0 ? '+' : ''}${round(gainPct, 1)}% ` +
          `from ${before.value} to ${last.value} (target at least +${minGainPct}%)`
      }
    }
  }
  return null
}

/**
 * A CSV cell. Text that a spreadsheet would run as a formula (=, +, -, @, tab, CR first) gets a leading quote;
 * numbers stay numbers.
 */
function csvField (x) {
  if (x === null || x === undefined) return ''
  let text = String(x)
  const numeric = /^-?\d+(\.\d+)?(e[+-]?\d+)?$/i.test(text)
  if (typeof x !== 'number' && /^[=+\-@\t\r]/.test(text) && !numeric) text = `'${text}`
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text
}

/**
 * One row per value; the header names the parameter and the unit (rows or queries). With
 * repeats, the row is the median run and the last columns give the spread over the runs.
 */
function toCsv (parameter, points) {
  const unit = unitOf(points)
  const header = [
    parameter,
    'seconds',
    unit,
    `${unit}_per_sec`,
    'change_pct',
    'p99_ms',
    'failed',
    'in_doubt',
    'abandoned',
    'exit_code',
    'partial',
    'runs',
    `${unit}_per_sec_min`,
    `${unit}_per_sec_max`,
    'cluster_write_rejected'
  ]
  const lines = [header.join(',')]
  for (const p of points) {
    lines.push(
      [
        p.value,
        p.seconds,
        p.ok,
        p.throughput,
        p.changePct,
        p.p99Ms,
        p.failed,
        p.inDoubt,
        p.abandoned,
        p.exitCode,
        p.partial,
        p.runs ?? 1,
        p.throughputMin ?? p.throughput,
        p.throughputMax ?? p.throughput,
        p.clusterWriteRejected
      ]
        .map(csvField)
        .join(',')
    )
  }
  return `${lines.join('\n')}\n`
}

/** rows or queries: the unit of the runs in a sweep ('units' when none produced a result). */
function unitOf (points) {
  const measured = points.find((p) => p.unit)
  return measured ? measured.unit : 'units'
}

/** Numbers stay numbers ("0-1" replicas and other text stay text) so the chart can order them. */
function parseValue (text) {
  return /^-?\d+(\.\d+)?$/.test(String(text)) ? Number(text) : String(text)
}

/** Whether a run's point stored (or answered) something with no failure and no answer lost: a figure a gate passes. */
const cleanPoint = (p) => !p.missing && p.throughput > 0 && !(p.failed > 0) && !(p.inDoubt > 0)

/**
 * Why runs that all failed or stored nothing are no result a CI gate may pass (a sweep, a grid), or null when one
 * run is clean (cleanPoint) or none was recorded.
 */
function nothingClean (points) {
  if (points.length === 0 || points.some(cleanPoint)) return null
  const unit = (points.find((p) => p.unit) || {}).unit || 'rows'
  const stored = points.some((p) => !p.missing && (p.ok > 0 || p.throughput > 0))
  return stored ? `every run had ${unit} failed or in doubt: no figure without failures (exit 1)`
    : `no run got a single ${unit === 'rows' ? 'row stored' : 'query answered'} (exit 1)`
}

module.exports = {
  cleanPoint,
  nothingClean,
  exclusionOf,
  pointOf,
  combineRepeats,
  withChanges,
  analyse,
  maxSpreadPct,
  saturationReason,
  toCsv,
  csvField,
  parseValue,
  isCandidate,
  unitOf,
  LATENCY_GUARD
}
