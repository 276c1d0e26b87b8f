'use strict'

const { round } = require('../base/format')
const { mergedSummary } = require('./stats')
const { entryLengthS } = require('./timeline')

// What changed over a run, from its timeline: the first and the last tenth of the load (at least 10 s each, the
// warm-up left out) side by side, a robust slope per hour, and the moment each figure changed most.
const WINDOW_SHARE = 0.1
const MIN_WINDOW_S = 10
// Shorter loads get no drift: their windows would be most of the run.
const MIN_LOAD_S = 60
// The slopes and change points are taken on at most this many points (intervals merged in order by their counts):
// Theil-Sen compares every pair.
const MAX_POINTS = 240
// A change point is named when the level after differs from the level before by at least this much.
const CHANGE_SHARE = { throughput: 0.1, p99_ms: 0.5, errors_per_sec: 0.1 }
// Sen's confidence interval of the slope: the normal quantile of a two-sided 95%.
const Z95 = 1.959964

/**
 * The run's `drift`: null for a load shorter than a minute. `timeline` is the result's (series on the load's clock,
 * warm-up_s, nodes); `group` the workload whose intervals count; `loadEndS` when the load ended on that clock (the
 * drain after it is no part of a window); `latencyIn(fromS, toS)` the latency of the whole intervals in that span
 * (merged histograms), or null when the run kept none.
 */
function driftOf ({ timeline, group, unit, loadEndS, latencyIn = () => null, targetIn = null }) {
  const startS = timeline.warmup_s || 0
  const loadS = loadEndS - startS
  if (!(loadS >= MIN_LOAD_S)) return null
  const widthS = Math.max(MIN_WINDOW_S, loadS * WINDOW_SHARE)
  const points = intervalsOf(timeline.series || [], group, startS, loadEndS)
  const first = windowFigures(points, startS, startS + widthS, timeline.nodes || [], latencyIn)
  const last = windowFigures(points, loadEndS - widthS, loadEndS, timeline.nodes || [], latencyIn)
  const change = (a, b) => (typeof a === 'number' && typeof b === 'number' && a > 0
    ? round(((b - a) / a) * 100, 1) : null)
  // Under a target (--rate, --stages, a rate steered), throughput is judged as the share of the target each window
  // achieved: two windows under different targets compare what each held, not the targets.
  if (targetIn) {
    for (const [w, from, to] of [[first, startS, startS + widthS], [last, loadEndS - widthS, loadEndS]]) {
      w.target_per_sec = round(targetIn(from, to))
      w.achieved_pct = w.target_per_sec > 0 && w.per_sec !== null ? round((w.per_sec / w.target_per_sec) * 100, 1)
        : null
    }
  }
  const byTarget = targetIn !== null && first.target_per_sec > 0 && last.target_per_sec > 0
  const bins = binned(points, MAX_POINTS)
  if (targetIn) for (const b of bins) b.target = targetIn(b.t_s, b.end_s)
  return {
    rule: `the first and last ${WINDOW_SHARE * 100}% of the load, at least ${MIN_WINDOW_S} s each, warm-up ` +
      'excluded; slopes are Theil-Sen over the intervals with Sen\'s 95% interval; a change point is the split that ' +
      'best separates two levels, named when the lower is 10% below the higher (throughput, errors) or half of it ' +
      '(p99)',
    first_window_s: [round(startS, 3), round(startS + widthS, 3)],
    last_window_s: [round(loadEndS - widthS, 3), round(loadEndS, 3)],
    unit,
    first,
    last,
    // What the --threshold drift_throughput_pct judges: the achieved share's change under a target, else the rate's.
    throughput_judged: byTarget ? 'achieved share of the target' : 'throughput',
    throughput_change_pct: byTarget ? change(first.achieved_pct, last.achieved_pct)
      : change(first.per_sec, last.per_sec),
    raw_throughput_change_pct: change(first.per_sec, last.per_sec),
    p50_change_pct: change(first.p50_ms, last.p50_ms),
    p99_change_pct: change(first.p99_ms, last.p99_ms),
    slope_per_hour: {
      throughput: theilSen(bins, 'throughput'),
      p99_ms: theilSen(bins, 'p99_ms'),
      errors_per_sec: theilSen(bins, 'errors_per_sec')
    },
    changes: ['throughput', 'p99_ms', 'errors_per_sec']
      .map((metric) => changePoint(bins, metric, timeline.nodes || []))
      .filter(Boolean)
  }
}

/**
 * latencyIn for a timeline whose entries carry their group's encoded histogram (`latency_hist`: a merged fleet's):
 * the latency of the whole entries within [fromS, toS).
 */
function latencyOfEntries (series, group) {
  return (fromS, toS) => {
    const inside = series.filter((entry) => {
      const lengthS = entryLengthS(entry)
      return entry[group] && entry[group].latency_hist && entry.t_s >= fromS - 1e-9 && entry.t_s + lengthS <= toS + 1e-9
    }).map((entry) => entry[group])
    const { histogram, summary } = mergedSummary(inside.map((g) => g.latency_hist), inside.map((g) => g.max_ms))
    return histogram.totalCount > 0 ? summary : null
  }
}

/** The group's whole intervals of the load, with their start, length, counts and p99. */
function intervalsOf (series, group, fromS, toS) {
  const points = []
  for (const entry of series) {
    const lengthS = entryLengthS(entry)
    if (entry.t_s < fromS - 1e-9 || entry.t_s + lengthS > toS + 1e-9) continue
    const g = entry[group] || { ok: 0, failed: 0, in_doubt: 0, p99_ms: null }
    points.push({ t_s: entry.t_s, seconds: lengthS, ok: g.ok, errors: g.failed + (g.in_doubt || 0), p99_ms: g.p99_ms })
  }
  return points
}

function windowFigures (points, fromS, toS, nodes, latencyIn) {
  const inside = points.filter((p) => p.t_s >= fromS - 1e-9 && p.t_s + p.seconds <= toS + 1e-9)
  const seconds = inside.reduce((sum, p) => sum + p.seconds, 0)
  const ok = inside.reduce((sum, p) => sum + p.ok, 0)
  const errors = inside.reduce((sum, p) => sum + p.errors, 0)
  const end = inside[inside.length - 1]
  const latency = inside.length ? latencyIn(inside[0].t_s, end.t_s + end.seconds) : null
  return {
    seconds: round(seconds, 3),
    ok,
    failed_or_in_doubt: errors,
    per_sec: seconds > 0 ? round(ok / seconds) : null,
    p50_ms: latency ? latency.p50 : null,
    p99_ms: latency ? latency.p99 : null,
    ...clusterWithin(nodes, fromS, toS)
  }
}

/**
 * The busiest node in a window (highest mean process CPU of its samples there) with its CPU and heap, and the
 * write and search rejections of all nodes within it (their counts since the start, last sample against the one
 * before the window).
 */
function clusterWithin (nodes, fromS, toS) {
  const byName = new Map()
  for (const n of nodes) {
    if (!byName.has(n.name)) byName.set(n.name, [])
    byName.get(n.name).push(n)
  }
  let busiest = null
  let rejected = null
  for (const [name, rows] of byName) {
    const inside = rows.filter((n) => n.t_s >= fromS && n.t_s < toS)
    if (inside.length === 0) continue
    const mean = (key) => {
      const values = inside.map((n) => n[key]).filter((v) => typeof v === 'number')
      return values.length ? round(values.reduce((a, b) => a + b, 0) / values.length, 1) : null
    }
    const cpu = mean('process_cpu_pct')
    if (!busiest || (cpu ?? -1) > (busiest.cpu_pct ?? -1)) {
      const queues = inside.map((n) => n.write_queue).filter((v) => typeof v === 'number')
      busiest = { name, cpu_pct: cpu, heap_used_pct: mean('heap_used_pct'),
        write_queue_max: queues.length ? Math.max(...queues) : null }
    }
    const before = rows.filter((n) => n.t_s < fromS).pop()
    const end = inside[inside.length - 1]
    for (const key of ['write_rejected', 'search_rejected']) {
      if (typeof end[key] !== 'number') continue
      const since = before && typeof before[key] === 'number' && before[key] <= end[key] ? before[key] : 0
      rejected = (rejected ?? 0) + end[key] - since
    }
  }
  return { busiest_node: busiest, rejected }
}

/** Intervals merged in order into at most `max` points, each with its throughput, errors a second and highest p99. */
function binned (points, max) {
  const size = Math.max(1, Math.ceil(points.length / max))
  const bins = []
  for (let i = 0; i < points.length; i += size) {
    const part = points.slice(i, i + size)
    const seconds = part.reduce((sum, p) => sum + p.seconds, 0)
    const p99s = part.map((p) => p.p99_ms).filter((v) => typeof v === 'number')
    bins.push({
      t_s: part[0].t_s,
      middle_s: part[0].t_s + seconds / 2,
      end_s: part[part.length - 1].t_s + part[part.length - 1].seconds,
      throughput: part.reduce((sum, p) => sum + p.ok, 0) / seconds,
      errors_per_sec: part.reduce((sum, p) => sum + p.errors, 0) / seconds,
      // The bin's p99 is its intervals' highest: an upper bound, never an average of percentiles.
      p99_ms: p99s.length ? Math.max(...p99s) : null
    })
  }
  return bins
}

/** Theil-Sen's slope per hour of `metric` over the bins, with Sen's 95% interval (null under 10 points). */
function theilSen (bins, metric) {
  const xs = []
  const ys = []
  for (const b of bins) {
    if (typeof b[metric] !== 'number') continue
    xs.push(b.middle_s / 3600)
    ys.push(b[metric])
  }
  const n = xs.length
  if (n < 10) return null
  const slopes = []
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) if (xs[j] !== xs[i]) slopes.push((ys[j] - ys[i]) / (xs[j] - xs[i]))
  }
  slopes.sort((a, b) => a - b)
  const count = slopes.length
  const median = count % 2 ? slopes[(count - 1) / 2] : (slopes[count / 2 - 1] + slopes[count / 2]) / 2
  const spread = Z95 * Math.sqrt((n * (n - 1) * (2 * n + 5)) / 18)
  const lower = slopes[Math.max(0, Math.floor((count - spread) / 2))]
  const upper = slopes[Math.min(count - 1, Math.ceil((count + spread) / 2))]
  return { per_hour: round(median, 3), low: round(lower, 3), high: round(upper, 3), points: n }
}

/**
 * The split of the bins that best separates two levels of `metric` (the largest |mean after - mean before| weighted
 * by sqrt(k(n-k)/n), as a CUSUM does), named when the levels differ by the metric's share; with what the cluster's
 * busiest node did around it (CPU, heap, write queue, rejections, before and after).
 */
function changePoint (bins, metric, nodes) {
  const values = bins.map((b) => b[metric]).filter((v) => typeof v === 'number')
  const usable = bins.filter((b) => typeof b[metric] === 'number')
  const n = values.length
  if (n < 6) return null
  const total = values.reduce((a, b) => a + b, 0)
  let best = null
  let left = 0
  for (let k = 1; k < n; k++) {
    left += values[k - 1]
    if (k < 2 || k > n - 2) continue
    const before = left / k
    const after = (total - left) / (n - k)
    const score = Math.abs(after - before) * Math.sqrt((k * (n - k)) / n)
    if (!best || score > best.score) best = { k, before, after, score }
  }
  const relative = Math.abs(best.after - best.before) / Math.max(Math.abs(best.before), Math.abs(best.after))
  if (!(relative >= CHANGE_SHARE[metric])) return null
  const atS = usable[best.k].t_s
  // Throughput that rose above its target after falling short of it is a backlog draining, not an improvement.
  const targetBefore = mean(usable.slice(0, best.k).map((b) => b.target))
  const targetAfter = mean(usable.slice(best.k).map((b) => b.target))
  const backlog = metric === 'throughput' && targetBefore !== null && targetAfter !== null &&
    best.after > best.before && best.before < targetBefore * 0.98 && best.after > targetAfter * 1.02
  return {
    metric,
    ...(backlog ? { backlog_draining: true, target_after: round(targetAfter, 3) } : {}),
    at_s: round(atS, 3),
    before: round(best.before, 3),
    after: round(best.after, 3),
    change_pct: best.before !== 0 ? round(((best.after - best.before) / Math.abs(best.before)) * 100, 1) : null,
    cluster_before: clusterWithin(nodes, usable[0].t_s, atS),
    cluster_after: clusterWithin(nodes, atS, usable[n - 1].end_s)
  }
}

const mean = (values) => {
  const known = values.filter((v) => typeof v === 'number')
  return known.length ? known.reduce((a, b) => a + b, 0) / known.length : null
}

// Slopes per hour are printed for loads of at least this long; a shorter run's slope is mostly noise extrapolated.
const SLOPES_PRINTED_FROM_S = 1800

/**
 * The terminal's lines: "over the run: throughput −12% (first 10%: 41,200 rows/s, last 10%: 36,300), p99 ×3.1", the
 * table's size and segments, slopes per hour (loads of half an hour or more) and each change point.
 */
function driftLines (drift, fmtNumber) {
  if (!drift) return []
  const pct = (v) => (v === null ? 'n/a' : `${v > 0 ? '+' : v < 0 ? '\u2212' : '\u00b1'}${fmtNumber(Math.abs(v))}%`)
  const rate = (v) => (v === null ? 'n/a' : fmtNumber(v))
  const share = (w) => `${rate(w.achieved_pct)}% of ${rate(w.target_per_sec)}`
  const parts = [drift.throughput_judged === 'achieved share of the target'
    ? `throughput ${pct(drift.throughput_change_pct)} against its target (first ${WINDOW_SHARE * 100}%: ` +
      `${rate(drift.first.per_sec)} ${drift.unit}/s, ${share(drift.first)}; last ${WINDOW_SHARE * 100}%: ` +
      `${rate(drift.last.per_sec)}, ${share(drift.last)})`
    : `throughput ${pct(drift.throughput_change_pct)} (first ${WINDOW_SHARE * 100}%: ` +
      `${rate(drift.first.per_sec)} ${drift.unit}/s, last ${WINDOW_SHARE * 100}%: ${rate(drift.last.per_sec)})`]
  // The median beside the tail, the one that moved more first: a median ×15 under a p99 ×3 is the bigger story.
  const factors = ['p50', 'p99'].map((p) => {
    const [a, b] = [drift.first[`${p}_ms`], drift.last[`${p}_ms`]]
    return typeof a === 'number' && typeof b === 'number' && a > 0 ? { p, factor: round(b / a, 1) } : null
  }).filter(Boolean).sort((x, y) => Math.abs(Math.log(y.factor || 1)) - Math.abs(Math.log(x.factor || 1)))
  for (const f of factors) parts.push(`${f.p} \u00d7${fmtNumber(f.factor)}`)
  if ([drift.first.rejected, drift.last.rejected].some((r) => r > 0)) {
    parts.push(`rejections ${fmtNumber(drift.first.rejected ?? 0)} \u2192 ${fmtNumber(drift.last.rejected ?? 0)}`)
  }
  const lines = [`over the run: ${parts.join(', ')}`]
  const t = drift.table
  if (t && t.start && t.end) {
    lines.push(`  table: ${mb(t.start.size_bytes, fmtNumber)}, ${fmtNumber(t.start.segments)} segments at the start; ` +
      `${mb(t.end.size_bytes, fmtNumber)}, ${fmtNumber(t.end.segments)} segments at the end`)
  }
  const loadS = drift.last_window_s[1] - drift.first_window_s[0]
  const slope = drift.slope_per_hour.throughput
  if (loadS >= SLOPES_PRINTED_FROM_S && slope) {
    const p99 = drift.slope_per_hour.p99_ms
    lines.push(`  per hour: throughput ${signed(slope.per_hour, fmtNumber)} ${drift.unit}/s (95%: ` +
      `${signed(slope.low, fmtNumber)} to ${signed(slope.high, fmtNumber)})` +
      (p99 ? `, p99 ${signed(p99.per_hour, fmtNumber)} ms (95%: ${signed(p99.low, fmtNumber)} to ` +
        `${signed(p99.high, fmtNumber)})` : ''))
  }
  for (const c of drift.changes) {
    const names = { throughput: `throughput (${drift.unit}/s)`, p99_ms: 'p99 (ms)', errors_per_sec: 'errors/s' }
    const what = names[c.metric]
    const cpu = (side) => (side.busiest_node && side.busiest_node.cpu_pct !== null
      ? `${side.busiest_node.name} CPU ${fmtNumber(side.busiest_node.cpu_pct)}%` +
        (side.busiest_node.write_queue_max > 0 ? `, write queue up to ${fmtNumber(side.busiest_node.write_queue_max)}`
          : '') + (side.rejected > 0 ? `, ${fmtNumber(side.rejected)} rejections` : '')
      : null)
    const cluster = cpu(c.cluster_before) && cpu(c.cluster_after)
      ? `; busiest node ${cpu(c.cluster_before)} before, ${cpu(c.cluster_after)} after` : ''
    const backlog = c.backlog_draining ? `: a backlog draining (above its target of ${fmtNumber(round(c.target_after,
      1))} after falling short of it), not an improvement` : ''
    lines.push(`  changed at ${fmtNumber(c.at_s)} s: ${what} ${fmtNumber(round(c.before, 1))} \u2192 ` +
      `${fmtNumber(round(c.after, 1))}${backlog}${cluster}`)
  }
  return lines
}

const mb = (bytes, fmtNumber) => (typeof bytes === 'number'
  ? `${fmtNumber(round(bytes / (1024 * 1024), 1))} MB` : 'n/a')
const signed = (v, fmtNumber) => `${v > 0 ? '+' : v < 0 ? '\u2212' : '\u00b1'}${fmtNumber(Math.abs(v))}`

// A run shorter than this is never called sustained: flushes, merges and a growing table show after a while.
const SUSTAINED_MIN_S = 600
// A run of --duration 10m ends its load a moment before its deadline (599.5 s measured against the double): it ran
// ten minutes.
const SUSTAINED_SLACK_S = 2

/**
 * A long run's sustained figure from its drift: the last window's throughput and p99, the drift over the run, the
 * table at the end. Null for a run under SUSTAINED_MIN_S of load (its report says it is not sustained).
 */
function sustainedOf (drift, { tableEnd = null } = {}) {
  if (!drift) return null
  const loadS = drift.last_window_s[1] - drift.first_window_s[0]
  if (loadS < SUSTAINED_MIN_S - SUSTAINED_SLACK_S) return null
  return { per_sec: drift.last.per_sec, p99_ms: drift.last.p99_ms, duration_s: round(loadS, 1),
    window_s: drift.last_window_s, table_rows_end: tableEnd ? tableEnd.docs ?? null : null,
    table_bytes_end: tableEnd ? tableEnd.size_bytes ?? null : null,
    drift: { throughput_change_pct: drift.throughput_change_pct, p50_change_pct: drift.p50_change_pct,
      p99_change_pct: drift.p99_change_pct } }
}

/** The report's line: what the run held at its end, or why a short run is not a sustained figure. */
function sustainedLine (drift, sustained, fmtNumber) {
  if (!drift) return null
  if (!sustained) {
    const minutes = round((drift.last_window_s[1] - drift.first_window_s[0]) / 60, 1)
    return `  not a sustained figure: ${fmtNumber(minutes)} min of load (sustained needs ${SUSTAINED_MIN_S / 60} ` +
      'minutes or more)'
  }
  const rows = sustained.table_rows_end === null ? '' : ` on a table of ${fmtNumber(sustained.table_rows_end)} rows`
  const minutes = fmtNumber(round(sustained.duration_s / 60, 1))
  if (sustained.held === false) {
    return `  sustained: NOT held: ${fmtNumber(sustained.per_sec)} ${drift.unit}/s at the end of ${minutes} ` +
      `min${rows}, p99 ${fmtNumber(sustained.p99_ms)} ms (${sustained.not_held_why}): no figure the cluster sustains`
  }
  return `  sustained: ${fmtNumber(sustained.per_sec)} ${drift.unit}/s held at the end of ${minutes} min${rows}, p99 ` +
    `${fmtNumber(sustained.p99_ms)} ms${sustained.lower_bound ? ` (its --rate target: a lower bound)` : ''}` +
    `${sustained.held_check ? `; held by its own drift: ${sustained.held_check}` : ''}`
}

module.exports = { driftOf, driftLines, sustainedOf, sustainedLine, SUSTAINED_MIN_S, latencyOfEntries, theilSen,
  changePoint, binned, MIN_LOAD_S }
