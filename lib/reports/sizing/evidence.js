'use strict'

// What one input of a sizing measured: a result file (a run), or a grid's folder (its best cell and, when the grid
// could decide, its recommended cell, each as the median run that stands for it, with the cell's interval). Each
// point says why it cannot be a sizing figure (failures, a --rate target held, a shape that is no cluster's).

/** Per data model, the options that change what a row costs: results differing in one never share a table. */
const ROW_SHAPE = { cpu: ['extra_tags_length'], devops: ['extra_tags_length'], loadtest: ['payload_bytes'],
  kv: ['key_bytes', 'value_bytes'] }

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
    throughput: result[`${unit}_per_sec`] ?? null,
    field_values_per_sec: result.metrics_per_sec ?? null,
    p99_ms: result.latency_ms ? result.latency_ms.p99 : null,
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
    // A run of ten minutes or more: what it held at its end (lib/results/drift.js).
    sustained: result.sustained ? { ...result.sustained, source } : null,
    mixed: null
  }
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
  return { ...base, throughput: null, sustained: null, problems: ['a mixed capacity: no write-only figure'],
    mixed: { per_sec: summary.capacity, range: summary.capacity_range ?? null, query_rate: summary.query_rate,
      slo_p99_ms: summary.slo ? summary.slo.p99_ms : null, source } }
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
    return point && { ...point, ci95: cell.ci95 ?? null, runs: cell.runs_done ?? 1 }
  }
  if (!grid.best || !grid.best.median_result_file) return null
  const best = cellPoint(grid.best, 'best')
  if (!best) return null
  const recommended = grid.recommended && grid.recommended.median_result_file
    ? cellPoint(grid.recommended, 'recommended') : null
  return { ...best, runs: grid.runs_done ?? best.runs, recommended,
    undecided: recommended ? null : (grid.undecided && grid.undecided.why) ?? 'the grid recommended no cell' }
}

module.exports = { pointOf, gridEvidence, mixedEvidence, shapeProblem, ROW_SHAPE }
