'use strict'

const { round, pairsText: settingsText } = require('../../base/format')
const { exclusionOf, pointOf } = require('../sweep')
const { cellId } = require('./plan')
const { meanMargin, mean } = require('../../reports/compare/welch')
const { undecided, surenessOf } = require('./noise')
const { busyMachineLine } = require('../../reports/cluster-limits')

// What a grid measured, cell by cell, and what it tells a user who sizes a cluster: the best cell, the plateau
// around it, the cell to run in production (the cheapest of the plateau within the latency and error target) and
// the first neighbour past it that breaks; sentences drawn from the numbers as the published sizing studies write them.

const DEFAULT_PLATEAU_PCT = 5
// Two runs give an interval twelve times their spread (t = 12.7): the plateau judges intervals from three runs on.
const RUNS_FOR_INTERVALS = 3

/** One run of a cell as grid.json keeps it: the figures of its --json result (null where it printed none). */
function runFigures ({ result, exitCode, round: runRound, resultFile, wallS }) {
  const point = pointOf({ value: null, exitCode, result })
  const o = (result && result.options) || {}
  const nodes = (result && result.cluster && Array.isArray(result.cluster.nodes)) ? result.cluster.nodes : []
  const highest = (key) => nodes.reduce((m, n) => (n.peak && typeof n.peak[key] === 'number'
    ? Math.max(m ?? -Infinity, n.peak[key]) : m), null)
  const storage = result && result.table_storage ? result.table_storage.start : null
  return {
    round: runRound,
    exit_code: exitCode,
    result_file: resultFile,
    wall_s: wallS === undefined ? null : round(wallS, 1),
    missing: point.missing,
    partial: point.partial,
    unit: point.unit,
    per_sec: point.throughput,
    field_values_per_sec: result && typeof result.metrics_per_sec === 'number' ? result.metrics_per_sec : null,
    p50_ms: result && result.latency_ms ? result.latency_ms.p50 : null,
    p99_ms: point.p99Ms,
    failed: point.failed,
    in_doubt: point.inDoubt,
    abandoned: point.abandoned,
    client_saturated: Boolean(point.clientSaturated),
    busiest_cpu_pct: highest('process_cpu_pct'),
    write_queue_max: highest('write_queue'),
    rejections: point.missing ? null : point.clusterRejected,
    in_flight: (o.concurrent_requests ?? 1) * (o.processes ?? 1),
    batch_size: o.batch_size ?? null,
    // Nodes busy beyond this load (another tenant, a merge storm): the cell's figures are not the cluster's alone.
    busy_machine: result ? busyMachineLine(result) : null,
    // The table as this cell found it: a table that grows through the grid makes later cells pay for earlier ones.
    table_at_start: storage ? { size_bytes: storage.size_bytes, docs: storage.docs, segments: storage.segments } : null,
    cluster: result && result.environment ? result.environment.cluster ?? null : null
  }
}

/** The sweep's point for a run, so that a grid's cell is ruled out by the sweeps' own words. */
const asPoint = (run) => ({ missing: run.missing, exitCode: run.exit_code, partial: run.partial, failed: run.failed,
  unit: run.unit, clientSaturated: run.client_saturated, inDoubt: run.in_doubt, abandoned: run.abandoned,
  throughput: run.per_sec })

/**
 * A cell from its runs: the median run by throughput stands for it (its p50 and p99 too: latency and throughput
 * always from the same run), the spread and a 95% confidence interval of the mean when repeated, failures and the
 * busiest node over every run. `excluded` names why it can never be best or recommended.
 */
function cellFigures (cell, runs) {
  const measured = runs.filter((r) => !r.missing).sort((a, b) => a.per_sec - b.per_sec)
  const median = measured.length ? measured[Math.floor((measured.length - 1) / 2)] : null
  const sum = (key) => runs.reduce((s, r) => s + (r[key] || 0), 0)
  const highest = (key) => runs.reduce((m, r) => (typeof r[key] === 'number' ? Math.max(m ?? -Infinity, r[key]) : m),
    null)
  const perSec = measured.map((r) => r.per_sec)
  const figures = {
    id: cell.id,
    settings: cell.settings,
    runs_done: runs.length,
    unit: median ? median.unit : null,
    per_sec: median ? median.per_sec : null,
    per_sec_min: measured.length ? perSec[0] : null,
    per_sec_max: measured.length ? perSec[perSec.length - 1] : null,
    spread_pct: median && median.per_sec > 0 && measured.length > 1
      ? round(((perSec[perSec.length - 1] - perSec[0]) / median.per_sec) * 100, 1) : null,
    ci95: confidenceInterval(perSec),
    field_values_per_sec: median ? median.field_values_per_sec : null,
    p50_ms: median ? median.p50_ms : null,
    p99_ms: median ? median.p99_ms : null,
    failed: sum('failed'),
    in_doubt: sum('in_doubt'),
    busiest_cpu_pct: highest('busiest_cpu_pct'),
    write_queue_max: highest('write_queue_max'),
    rejections: sum('rejections'),
    client_saturated: runs.some((r) => r.client_saturated),
    partial: runs.some((r) => r.partial),
    exit_codes: runs.map((r) => r.exit_code),
    // The run that stands for the cell: its result is what `crate-bench sizing DIR` reads.
    median_result_file: median ? median.result_file : null,
    in_flight: median ? median.in_flight : null,
    batch_size: median ? median.batch_size : null,
    table_at_start: runs.map((r) => r.table_at_start).filter(Boolean),
    busy_machine: runs.map((r) => r.busy_machine).find(Boolean) ?? null
  }
  const worst = runs.map((r) => exclusionOf(asPoint(r), 0)).find((why) => why !== null)
  figures.excluded = runs.length === 0 ? 'not run yet' : worst ?? null
  return figures
}

// An interval whose half is more than this share of its mean says little about the cell: said to be wide.
const WIDE_INTERVAL_SHARE = 0.25

/**
 * The 95% interval of the mean throughput (Student's t); null for fewer than two runs. No throughput is below zero:
 * the low end is clipped there (`clipped`), and an interval that wide is said to be (`wide`).
 */
function confidenceInterval (values) {
  if (values.length < 2) return null
  const m = mean(values)
  const margin = meanMargin(values, 0.95)
  const interval = { low: round(Math.max(0, m - margin)), high: round(m + margin) }
  if (m - margin < 0) interval.clipped = true
  if (margin > m * WIDE_INTERVAL_SHARE) interval.wide = true
  return interval
}

/**
 * The study's verdicts over its cells: best (the candidate with the highest throughput), the plateau (candidates
 * whose interval overlaps the best's; without repeats, within `plateauPct` of it), the recommended cell (the plateau's
 * cheapest within the SLO: fewest requests in flight, then smallest batch) and where its neighbours break.
 */
function analyseGrid (dimensions, cells, { sloP99Ms = null, plateauPct = DEFAULT_PLATEAU_PCT } = {}) {
  const candidates = cells.filter((c) => c.excluded === null && c.per_sec > 0)
  const best = candidates.reduce((a, c) => (!a || c.per_sec > a.per_sec ? c : a), null)
  const repeated = best !== null && best.ci95 !== null && best.runs_done >= RUNS_FOR_INTERVALS
  const onPlateau = (c) => (repeated && c.ci95 && c.runs_done >= RUNS_FOR_INTERVALS
    ? c.ci95.high >= best.ci95.low
    : c.per_sec >= best.per_sec * (1 - plateauPct / 100))
  const plateau = best ? candidates.filter(onPlateau) : []
  const withinSlo = (c) => sloP99Ms === null || (typeof c.p99_ms === 'number' && c.p99_ms <= sloP99Ms)
  const cheapest = (a, b) => (a.in_flight ?? 0) - (b.in_flight ?? 0) || (a.batch_size ?? 0) - (b.batch_size ?? 0) ||
    b.per_sec - a.per_sec
  let recommended = plateau.filter(withinSlo).sort(cheapest)[0] ?? null
  let note = null
  if (!recommended && best) {
    recommended = candidates.filter(withinSlo).sort((a, b) => b.per_sec - a.per_sec)[0] ?? null
    note = recommended
      ? `every cell of the plateau misses the p99 target of ${sloP99Ms} ms: the fastest cell within it, below the ` +
        'plateau'
      : `no cell met p99 ≤ ${durationText(sloP99Ms)} without failures${nearestText(candidates)}`
  }
  // No recommendation the runs cannot carry: when they cannot tell the cell the rule picks from the best, none.
  const cannotTell = undecided({ best, recommended, plateau, candidates, plateauPct, unit: best && best.unit })
  const breaks = recommended && !cannotTell ? breaksBeyond(dimensions, cells, recommended, { sloP99Ms }) : []
  return {
    best: best && summaryOf(best),
    plateau: plateau.map((c) => c.id),
    plateau_rule: repeated ? '95% confidence intervals overlap the best\'s' : `within ${plateauPct}% of the best`,
    // One run a cell: the rule's pick, not a finding (no interval): said as untested, and sized as none.
    recommended: recommended && !cannotTell
      ? { ...summaryOf(recommended), note, breaks, first_break: breaks[0] ?? null,
          untested: surenessOf(cells) ? 'one run a cell: no cell has an interval, so this is the rule\'s pick, not ' +
            'a finding (--repeat 3 tests it)' : null }
      : null,
    undecided: cannotTell && { ...cannotTell, would_recommend: recommended.id },
    // Cells the runs cannot tell apart are one choice for sizing: any of them within the SLO, planned at the
    // best-bounded one; a cell over the target is never a figure to plan with, however fast.
    equivalent: cannotTell ? equivalentOf(plateau.filter(withinSlo), { sloP99Ms, left: plateau.length -
      plateau.filter(withinSlo).length }) : null,
    // Every cell over the SLO: the first thing a sizing says of such a grid (no cell meets it, whatever the noise).
    slo_unmet: best && !recommended && sloP99Ms !== null ? note : null,
    sureness: recommended && !cannotTell ? surenessOf(cells) : null,
    sentences: sentencesOf(dimensions, cells, { plateauPct })
  }
}

/**
 * The cells of a plateau the runs cannot tell apart, as one choice: the cell whose 95% interval has the highest low end
 * (above zero, not clipped) stands for them, and that low end is what they all hold. Null where no cell has such an
 * interval (then nothing carries a figure).
 */
function equivalentOf (plateau, { sloP99Ms = null, left = 0 } = {}) {
  const bounded = plateau.filter((c) => c.ci95 && !c.ci95.clipped && c.ci95.low > 0 &&
    c.runs_done >= RUNS_FOR_INTERVALS)
  if (plateau.length < 2 || bounded.length === 0) return null
  const best = bounded.reduce((a, c) => (c.ci95.low > a.ci95.low ? c : a))
  const slo = sloP99Ms !== null && left > 0 ? ` (within p99 ≤ ${durationText(sloP99Ms)}; ${left} cell` +
    `${left === 1 ? '' : 's'} of the plateau over it left out)` : ''
  return { cells: plateau.map((c) => c.id), id: best.id, settings: best.settings, ci95: best.ci95,
    median_result_file: best.median_result_file, p99_ms: best.p99_ms,
    text: `these cells are equivalent within noise; any of them${slo}` }
}

/** "; the nearest: batch_size 2000, concurrent_requests 8 at p99 1,230.85 ms" (the lowest p99 of `cells`), or ''. */
function nearestText (cells) {
  const nearest = cells.filter((c) => typeof c.p99_ms === 'number').sort((a, b) => a.p99_ms - b.p99_ms)[0]
  return nearest ? `; the nearest: ${settingsText(nearest.settings)} at p99 ${durationText(nearest.p99_ms)}` : ''
}

const summaryOf = (c) => ({ id: c.id, settings: c.settings, unit: c.unit, runs_done: c.runs_done,
  median_result_file: c.median_result_file, per_sec: c.per_sec,
  field_values_per_sec: c.field_values_per_sec, p50_ms: c.p50_ms, p99_ms: c.p99_ms, ci95: c.ci95 })

/**
 * From the recommended cell, each dimension stepped up (more load) until a cell breaks: failures, a saturated client,
 * or a p99 over the target. The nearest break first.
 */
function breaksBeyond (dimensions, cells, from, { sloP99Ms }) {
  const byId = new Map(cells.map((c) => [c.id, c]))
  const found = []
  for (const d of dimensions) {
    const start = d.values.indexOf(from.settings[d.name])
    for (let i = start + 1; i < d.values.length; i++) {
      const settings = { ...from.settings, [d.name]: d.values[i] }
      const cell = byId.get(cellId(settings))
      if (!cell || cell.runs_done === 0) break
      const why = cell.excluded ?? (sloP99Ms !== null && cell.p99_ms > sloP99Ms
        ? `p99 ${durationText(cell.p99_ms)} over the ${durationText(sloP99Ms)} target` : null)
      if (why) {
        found.push({ dimension: d.name, steps: i - start, settings, reason: `${d.name} ${d.values[i]}: ${why}` })
        break
      }
    }
  }
  return found.sort((a, b) => a.steps - b.steps)
}

/** Whether a cell's p99 misses the grid's --slo (`sloP99Ms`, null without one). */
const missesSlo = (cell, sloP99Ms) => sloP99Ms !== null && sloP99Ms !== undefined && typeof cell.p99_ms === 'number' &&
  cell.p99_ms > sloP99Ms

const durationText = (ms) => (ms >= 1000 ? `${round(ms / 1000, 1)} s` : `${round(ms, 1)} ms`)

/**
 * Along a series of throughputs (null: no candidate there), where more stops paying: the first value beyond which no
 * value gains `pct` percent, the gain up to it, the most any larger value adds, and the drop past it.
 */
function stopAlong (series, pct) {
  const points = series.filter((p) => p.per_sec > 0)
  if (points.length < 2) return null
  for (let i = 0; i < points.length; i++) {
    const later = points.slice(i + 1)
    const gain = (p) => ((p.per_sec - points[i].per_sec) / points[i].per_sec) * 100
    if (later.length === 0 || Math.max(...later.map(gain)) < pct) {
      const lowest = later.length ? Math.min(...later.map(gain)) : null
      return {
        first: points[0],
        stop: points[i],
        climbing: later.length === 0,
        gain_to_stop: points[i].per_sec / points[0].per_sec,
        beyond_max_pct: later.length ? round(Math.max(...later.map(gain)), 1) : null,
        fall_pct: lowest !== null && lowest < -pct ? round(lowest, 1) : null,
        before_last: points[points.length - 2],
        last: points[points.length - 1]
      }
    }
  }
  return null
}

const gainText = (ratio) => (ratio >= 2 ? `×${round(ratio, 1)}`
  : `${ratio >= 1 ? '+' : ''}${Math.round((ratio - 1) * 100)}%`)

/** The best candidate throughput of the cells, per value of `dimension`. */
function ridgeAlong (dimension, cells) {
  const best = bestPerValue(dimension, cells)
  return dimension.values.map((value) => ({ value, per_sec: best.has(value) ? best.get(value) : null }))
}

/**
 * ridgeAlong of `dimension` for each value of `other`, in one pass over the cells: a pass per value made the sentences
 * grow with the square of the cells (issue 57: a grid of 10,000 cells spent 40 s a run here, its signals unheard).
 */
function ridgesAlongEach (dimension, other, cells) {
  const groups = new Map(other.values.map((v) => [v, []]))
  for (const c of cells) if (groups.has(c.settings[other.name])) groups.get(c.settings[other.name]).push(c)
  return new Map([...groups].map(([v, group]) => [v, ridgeAlong(dimension, group)]))
}

/** The best throughput of the candidate cells (none excluded) per value of `dimension`. */
function bestPerValue (dimension, cells) {
  const best = new Map()
  for (const c of cells) {
    if (c.excluded !== null) continue
    const value = c.settings[dimension.name]
    best.set(value, Math.max(best.has(value) ? best.get(value) : -Infinity, c.per_sec))
  }
  return best
}

/**
 * Sentences as the published studies write them: per dimension, what it gains along the ridge (the best over the other
 * settings) and where the gain falls under `plateauPct`; per pair, where one dimension stops paying for each range of
 * the other ("concurrent_requests stops paying at 16 for batch_size ≥ 1000").
 */
function sentencesOf (dimensions, cells, { plateauPct = DEFAULT_PLATEAU_PCT } = {}) {
  const sentences = []
  for (const d of dimensions) {
    const s = stopAlong(ridgeAlong(d, cells), plateauPct)
    if (!s) continue
    if (s.climbing) {
      const step = s.before_last === s.first ? ''
        : ` (${gainText(s.last.per_sec / s.before_last.per_sec)} from ${s.before_last.value})`
      sentences.push(`${d.name} ${s.first.value} → ${s.last.value}: ${gainText(s.gain_to_stop)}, still climbing at ` +
        `${s.last.value}, the largest tried${step}`)
      continue
    }
    const first = s.stop === s.first ? `${d.name}: no gain beyond ${s.first.value}`
      : `${d.name} ${s.first.value} → ${s.stop.value}: ${gainText(s.gain_to_stop)}`
    const beyond = `beyond ${s.stop.value} less than ${plateauPct}%` +
      (s.fall_pct !== null ? `, and down to ${s.fall_pct}% at worst` : '')
    sentences.push(`${first}; ${beyond} (the best over the other settings)`)
  }
  for (const d of dimensions) {
    for (const e of dimensions) {
      if (d === e) continue
      const ridges = ridgesAlongEach(d, e, cells)
      const stops = e.values.map((value) => ({ value, stop: stopAlong(ridges.get(value), plateauPct) }))
      // Consecutive values of e where d stops paying at the same value: one clause each.
      const groups = []
      for (const s of stops) {
        const key = s.stop ? `${s.stop.climbing ? 'climbing' : s.stop.stop.value}` : null
        const last = groups[groups.length - 1]
        if (key !== null && last && last.key === key && last.end === e.values.indexOf(s.value) - 1) {
          last.end++
          last.to = s.value
        } else if (key !== null) {
          const at = e.values.indexOf(s.value)
          groups.push({ key, stop: s.stop, start: at, end: at, from: s.value, to: s.value })
        }
      }
      // One stop for every value of e is what the ridge's sentence says already.
      if (groups.length < 2) continue
      const range = (g) => (g.start === g.end ? `${e.name} ${g.from}`
        : g.end === e.values.length - 1 ? `${e.name} ≥ ${g.from}`
          : g.start === 0 ? `${e.name} ≤ ${g.to}` : `${e.name} ${g.from}–${g.to}`)
      const clauses = groups.map((g) => (g.key === 'climbing'
        ? `still pays at ${d.values[d.values.length - 1]} for ${range(g)}`
        : `stops paying at ${g.key} for ${range(g)}`))
      sentences.push(`${d.name} ${clauses.join('; ')}`)
    }
  }
  return sentences
}

module.exports = { runFigures, cellFigures, analyseGrid, sentencesOf, stopAlong, ridgeAlong, settingsText,
  durationText, missesSlo, asPoint, DEFAULT_PLATEAU_PCT }
