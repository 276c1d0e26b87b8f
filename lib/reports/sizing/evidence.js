'use strict'

const { busyMachineLine } = require('../cluster-limits')
const { sustainedVerdict } = require('../sustained')
const { tableGrowth } = require('../table-growth')

// What one input of a sizing measured: a result file (a run), or a grid's folder (its best cell and, when the grid
// could decide, its recommended cell, each as the median run that stands for it, with the cell's interval). Each
// point says why it cannot be a sizing figure (failures, a --rate target held, a shape that is no cluster's).

/** Per data model, the options that change what a row costs: results differing in one never share a table. */
const ROW_SHAPE = { cpu: ['extra_tags_length'], devops: ['extra_tags_length'], loadtest: ['payload_bytes'],
  kv: ['key_bytes', 'value_bytes'] }

// A run of fewer requests than this measured how it began, not a rate the cluster holds.
const MIN_REQUESTS = 10

/** "0" as 0: a replica count is a number; a range ('0-1') stays as given. */
const replicasOf = (value) => (typeof value === 'string' && /^[0-9]+$/.test(value) ? Number(value)
  : typeof value === 'number' ? value : value ?? null)

/**
 * Why `shape` (environment.cluster) is no cluster a sizing can stand on, or null: its nodes a whole number of at
 * least 1 that its node list agrees with, its cores per node at least 1 where known.
 */
function shapeProblem (shape) {
  if (!Number.isSafeInteger(shape.nodes) || shape.nodes < 1) {
    return `its cluster has ${JSON.stringify(shape.nodes)} nodes, not a whole number of at least 1`
  }
  if (!Array.isArray(shape.node_list) || shape.node_list.length !== shape.nodes) {
    return `its cluster says ${shape.nodes} node${shape.nodes === 1 ? '' : 's'} but lists ` +
      `${Array.isArray(shape.node_list) ? shape.node_list.length : 'no'} nodes`
  }
  const cores = [].concat(shape.cores_per_node).filter((c) => c !== null && c !== undefined)
  if (cores.some((c) => typeof c !== 'number' || !(c >= 1))) {
    return `its nodes have ${JSON.stringify(shape.cores_per_node)} cores, fewer than 1`
  }
  return null
}

/** What a result measured, in the figures sizing compares; null for what is no result of a benchmark. */
function pointOf (result, source) {
  if (!result || typeof result !== 'object' || !result.workload) return null
  const unit = result.workload === 'ingest' ? 'rows' : 'queries'
  const o = result.options || {}
  const shape = result.environment && result.environment.cluster ? result.environment.cluster : null
  const problems = []
  if (result.partial) problems.push('partial')
  if ((result[`${unit}_failed`] || 0) + (result[`${unit}_in_doubt`] || 0) > 0) problems.push('failures or in doubt')
  if (result.client && result.client.saturated) problems.push('the load generator was the limit')
  // A run of a few requests measured its start, not a rate: 1,000 rows in one request of 51 ms is no peak.
  if (typeof result.requests === 'number' && result.requests < MIN_REQUESTS) {
    problems.push(`too short for a steady rate (${result.requests} request${result.requests === 1 ? '' : 's'} in ` +
      `${result.seconds ?? '?'} s, under ${MIN_REQUESTS})`)
  }
  // Throughput under a target is the target: it says the cluster held it, not what the cluster can do.
  if (o.rate !== null && o.rate !== undefined) {
    problems.push(`a --rate run: it held ${held(result, unit)} of a ${o.rate}/s target, not a peak`)
  } else if (o.stages) {
    problems.push('a --stages run: its throughput followed its stages, not a peak')
  }
  const shapeWhy = shape ? shapeProblem(shape) : null
  const model = result.workload === 'ingest' ? o.model ?? 'cpu' : o.queries_config ?? 'queries'
  const rowShape = Object.fromEntries((ROW_SHAPE[model] || [])
    .filter((k) => o[k] !== undefined && o[k] !== null && o[k] !== 0).map((k) => [k, o[k]]))
  return {
    source,
    workload: result.workload,
    // The data (ingest) or the query mix (analytical): results of different ones never share a line.
    model,
    protocol: o.protocol ?? 'http',
    row_shape: rowShape,
    unit,
    // One reading of a long run: its sustained figure (its last tenth, what it held at its end) is the figure of the
    // results range, the disagreement check and the sustained column alike; its whole-run mean only labelled beside it.
    throughput: sustainedReading(result, unit),
    ...(result.sustained && typeof result.sustained.per_sec === 'number'
      ? { whole_run_per_sec: result[`${unit}_per_sec`] ?? null, throughput_reading: 'its last tenth (sustained)' }
      : {}),
    field_values_per_sec: result.metrics_per_sec ?? null,
    p99_ms: result.latency_ms ? result.latency_ms.p99 : null,
    // The cluster's CPU per 1,000 units and the rate it bounds (lib/results/cpu-cost.js), where the run could tell.
    cpu: result.cluster_cpu && typeof result.cluster_cpu.ms_per_1000 === 'number' ? result.cluster_cpu : null,
    replicas: replicasOf(o.replicas),
    settings: Object.fromEntries(['batch_size', 'concurrent_requests', 'processes', 'shards', 'replicas', 'rate']
      .filter((key) => o[key] !== undefined && o[key] !== null)
      .map((key) => [key, key === 'replicas' ? replicasOf(o[key]) : o[key]])),
    shape: shape && !shapeWhy ? shape : null,
    shape_problem: shapeWhy,
    problems,
    // The table as the run found it, and how long the run was: what a sizing says it stands on.
    table_docs_at_start: result.table_storage && result.table_storage.start
      ? result.table_storage.start.docs ?? null : null,
    seconds: typeof result.seconds === 'number' ? result.seconds : null,
    runs: 1,
    ci95: null,
    recommended: null,
    undecided: null,
    // A run of ten minutes or more: what it held at its end (lib/results/drift.js), and whether it held at all.
    sustained: result.sustained ? sustainedEvidence(result, unit, source) : null,
    mixed: null,
    // Nodes busy beyond this load or before it: the figure is not the cluster's alone (reports/cluster-limits.js).
    busy: busyMachineLine(result),
    busy_runs: busyMachineLine(result) ? 1 : 0,
    grid: null
  }
}

/** A run's figure for the sizing: a long run's sustained figure (its last tenth), any other run's rate. */
function sustainedReading (result, unit) {
  if (result.sustained && typeof result.sustained.per_sec === 'number') return result.sustained.per_sec
  return result[`${unit}_per_sec`] ?? null
}

/** A long run's sustained figure with its verdict (reports/sustained.js), as the sizing shows it. */
function sustainedEvidence (result, unit, source) {
  const s = result.sustained
  const drift = s.drift || {}
  return { ...s, source, ...sustainedVerdict(result, unit), p99_change_pct: drift.p99_change_pct ?? null,
    p50_change_pct: drift.p50_change_pct ?? null, whole_run_per_sec: result[`${unit}_per_sec`] ?? null }
}

/**
 * A mixed capacity search (find-capacity --workload mixed: its capacity.summary.json and a step's result for the
 * cluster's shape and the ingest's model): the ingest rows/s held beside the query mix within the SLO. It joins the
 * ingest's group; it is no write-only figure.
 */
function mixedEvidence (summary, stepResult, source) {
  const ingest = stepResult.ingest || {}
  const base = pointOf({ ...stepResult, workload: 'ingest', options: { ...(ingest.options || {}),
    protocol: (stepResult.options || {}).protocol } }, source)
  if (!base) return null
  const busy = summary.busy_steps > 0 ? summary.busy : null
  // The search's runs are its steps: a busy step counts among them.
  return { ...base, throughput: null, sustained: null, problems: ['a mixed capacity: no write-only figure'],
    busy, busy_runs: summary.busy_steps || 0, runs: Array.isArray(summary.steps) ? summary.steps.length : 1,
    mixed: { per_sec: summary.capacity, range: summary.capacity_range ?? null, query_rate: summary.query_rate,
      slo_p99_ms: summary.slo ? summary.slo.p99_ms : null, source,
      // "at least X (every run passed), below Y": the search's lower bound where the edge's runs disagreed.
      lower_bound: summary.capacity_kind === 'lower_bound', below: summary.capacity_below ?? null,
      runs: Array.isArray(summary.steps) ? summary.steps.filter((s) => s.rate === summary.capacity).length : null,
      busy } }
}

const held = (result, unit) => {
  const achieved = result.rate && typeof result.rate.achieved_pct === 'number' ? `${result.rate.achieved_pct}%`
    : `${Math.round(result[`${unit}_per_sec`] || 0)}/s`
  return achieved
}

/**
 * A grid as sizing reads it (`grid`: its parsed grid.json, `readRun(relative)`: a result file of its runs/ folder):
 * its best cell as the measured figure, its recommended cell beside it when the grid decided one (each the median
 * run of its cell, with the cell's 95% interval), or why it decided none. Null when no cell could be best.
 */
function gridEvidence (grid, source, readRun) {
  const cellPoint = (cell, which) => {
    const point = pointOf(readRun(cell.median_result_file), `${source} (the grid's ${which} cell: ` +
      `${Object.entries(cell.settings || {}).map(([k, v]) => `${k} ${v}`).join(', ')})`)
    if (!point) return null
    // The figure stands on its cell's runs; busy when any of them ran on busy nodes.
    const busy = busyOfCell(grid, cell.id)
    return { ...point, ci95: cell.ci95 ?? null, runs: cell.runs_done ?? 1, busy: busy.line ?? point.busy,
      busy_runs: busy.runs }
  }
  if (!grid.best || !grid.best.median_result_file) return null
  // The grid's measured figure is the cell its figure to plan with stands on (where a study runs its later parts):
  // every figure of a shape's row then describes one cell, never a cell over the grid's own SLO where one meets it.
  const figure = figureCellOf(grid)
  const best = figure ? cellPoint(figure.cell, figure.which)
    : cellPoint(grid.best, 'best, over its SLO: no cell met it')
  if (!best) return null
  const picked = grid.recommended && grid.recommended.median_result_file
    ? cellPoint(grid.recommended, 'recommended') : null
  // A grid of one run a cell recommends untested (grids before this version said so in `sureness` alone).
  const untested = grid.recommended ? grid.recommended.untested ?? grid.sureness ?? null : null
  const recommended = picked && { ...picked, untested: typeof untested === 'string' ? untested : null }
  // Cells the grid could not tell apart, as one choice: the best-bounded one's point, its interval the figure.
  const e = !recommended && grid.equivalent && grid.equivalent.median_result_file && grid.equivalent.ci95
    ? cellPoint({ ...grid.equivalent, runs_done: (cellsOf(grid).find((c) => c.id === grid.equivalent.id) || {})
      .runs_done }, 'best-bounded equivalent') : null
  const equivalent = e && { ...e, cells: Array.isArray(grid.equivalent.cells) ? grid.equivalent.cells.length : null }
  const all = busyOfCell(grid, null)
  return { ...best, recommended, equivalent,
    undecided: recommended ? null : (grid.undecided && grid.undecided.why) ?? 'the grid recommended no cell',
    grid: { source, runs_done: numberOr(grid.runs_done, null), runs_total: numberOr(grid.runs_total, null),
      repeat: numberOr(grid.repeat, null),
      // The rounds that ran (a budget may stop a grid before its --repeat): what the advice counts.
      rounds: Math.max(0, ...cellsOf(grid).map(roundsRun)),
      busy_runs: all.runs, busy: all.line,
      slo_unmet: typeof grid.slo_unmet === 'string' ? grid.slo_unmet : null,
      one_run_a_cell: numberOr(grid.repeat, null) === 1, table_growth: tableGrowth(grid) } }
}

/**
 * The cell a grid's figure stands on (grid.json's form): its recommended cell; else, when the runs could not tell its
 * cells apart, the best-bounded of those equivalent within noise (each within the SLO); else its fastest cell within
 * the SLO. { cell, which }, or null when no cell meets the SLO. A study runs its later parts at this cell.
 */
function figureCellOf (grid) {
  if (grid.recommended && grid.recommended.median_result_file) return { cell: grid.recommended, which: 'recommended' }
  if (grid.equivalent && grid.equivalent.median_result_file && grid.equivalent.ci95) {
    const runsDone = (cellsOf(grid).find((c) => c.id === grid.equivalent.id) || {}).runs_done
    return { cell: { ...grid.equivalent, runs_done: runsDone }, which: 'best-bounded equivalent' }
  }
  const fastest = fastestWithinSlo(grid)
  if (!fastest || !fastest.median_result_file) return null
  return { cell: fastest, which: grid.best && fastest.id === grid.best.id ? 'best' : 'fastest within its SLO' }
}

/**
 * The grid's fastest cell that meets its SLO (grid.json's form): its best when it has none or its best meets it, else
 * the fastest cell without failures whose p99 is within it; null when no cell does.
 */
function fastestWithinSlo (grid) {
  const slo = numberOr(grid.slo_p99_ms, null)
  if (slo === null || (grid.best && numberOr(grid.best.p99_ms, Infinity) <= slo)) return grid.best || null
  const rate = (c) => numberOr(c[`${grid.unit}_per_sec`], 0)
  return cellsOf(grid).filter((c) => c.excluded === null && rate(c) > 0 && numberOr(c.p99_ms, Infinity) <= slo)
    .sort((a, b) => rate(b) - rate(a))[0] || null
}

const numberOr = (value, otherwise) => (typeof value === 'number' && Number.isFinite(value) ? value : otherwise)
/** The rounds a grid's cell ran: the highest round of its runs, else how many it has done. */
const roundsRun = (cell) => (Array.isArray(cell.runs) && cell.runs.length
  ? Math.max(0, ...cell.runs.map((r) => numberOr(r && r.round, 0))) : numberOr(cell.runs_done, 0))
const cellsOf = (grid) => (Array.isArray(grid.cells) ? grid.cells.filter((c) => c && typeof c === 'object') : [])
const runsOfCell = (cell) => (Array.isArray(cell.runs) ? cell.runs.filter((r) => r && typeof r === 'object') : [])

/** How many runs of a cell (`id`), or of the whole grid (null), ran on busy nodes, and the first one's words. */
function busyOfCell (grid, id) {
  const runs = cellsOf(grid).filter((c) => id === null || c.id === id).flatMap(runsOfCell)
    .filter((r) => typeof r.busy_machine === 'string')
  return { runs: runs.length, line: runs.length ? runs[0].busy_machine : null }
}

module.exports = { pointOf, gridEvidence, figureCellOf, fastestWithinSlo, mixedEvidence, shapeProblem, ROW_SHAPE }
