'use strict'

const { round } = require('../../base/format')
const { fitUsl, MIN_SIZES } = require('./usl')

// A sizing reference from results measured on clusters of different shapes (a study's grid on each, or single
// runs): per shape its peak within the rules, per node and per core, a recommended ceiling below it, and how well
// the larger shapes scale against the smallest (per node, at each one's own best: never a load scaled with them).

const DEFAULT_HEADROOM_PCT = 20

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
  return {
    source,
    workload: result.workload,
    // The data (ingest) or the query mix (analytical): results of different ones never share a line.
    model: result.workload === 'ingest' ? o.model ?? 'cpu' : o.queries_config ?? 'queries',
    unit,
    throughput: result[`${unit}_per_sec`] ?? null,
    field_values_per_sec: result.metrics_per_sec ?? null,
    p99_ms: result.latency_ms ? result.latency_ms.p99 : null,
    replicas: typeof o.replicas === 'number' ? o.replicas : null,
    settings: Object.fromEntries(['batch_size', 'concurrent_requests', 'processes', 'shards', 'replicas', 'rate']
      .filter((key) => o[key] !== undefined && o[key] !== null).map((key) => [key, o[key]])),
    shape,
    problems
  }
}

const shapeKey = (s) => JSON.stringify([s.nodes, s.cores_per_node, s.heap_bytes_per_node])

/**
 * The sizing reference: groups (workload and model) of shapes, each with its peak (the highest throughput of its
 * results without failures, partial runs or a saturated client), per node, per core, the recommended ceiling
 * (`headroomPct` below the peak), replicated writes per node with replicas, and the efficiency per node against
 * the group's smallest shape (100%: linear). A shape of one result is a point, and says so.
 */
function sizingOf (points, { headroomPct = DEFAULT_HEADROOM_PCT } = {}) {
  const unknown = points.filter((p) => !p.shape).map((p) => p.source)
  const groups = new Map()
  for (const p of points.filter((x) => x.shape)) {
    const key = `${p.workload}\u0000${p.model}`
    if (!groups.has(key)) groups.set(key, { workload: p.workload, model: p.model, unit: p.unit, shapes: new Map() })
    const shapes = groups.get(key).shapes
    if (!shapes.has(shapeKey(p.shape))) shapes.set(shapeKey(p.shape), { shape: p.shape, points: [] })
    shapes.get(shapeKey(p.shape)).points.push(p)
  }
  return {
    headroom_pct: headroomPct,
    without_shape: unknown,
    groups: [...groups.values()].map((g) => {
      const shapes = [...g.shapes.values()].map((s) => shapeFigures(s, headroomPct))
        .sort((a, b) => a.nodes - b.nodes || (a.cores_total ?? 0) - (b.cores_total ?? 0))
      const base = shapes.find((s) => s.peak !== null)
      for (const s of shapes) {
        s.efficiency_pct = base && s.peak && s !== base
          ? round((s.per_node / base.per_node) * 100, 1) : s === base ? 100 : null
      }
      return { workload: g.workload, model: g.model, unit: g.unit, shapes,
        shared_machine: shapes.some((s) => s.shared_machine), ...scalabilityOf(shapes) }
    })
  }
}

/**
 * The Universal Scalability Law fitted per machine size (shapes of the same cores per node, none sharing a machine),
 * from four sizes on; below that, a note of how many there are.
 */
function scalabilityOf (shapes) {
  const families = new Map()
  for (const s of shapes.filter((x) => x.peak && !x.shared_machine)) {
    const key = String(s.cores_per_node)
    if (!families.has(key)) families.set(key, [])
    families.get(key).push({ nodes: s.nodes, per_sec: s.peak.per_sec })
  }
  const usl = []
  for (const [cores, points] of families) {
    const fit = fitUsl(points)
    if (fit) {
      const { predict, ...figures } = fit
      usl.push({ cores_per_node: cores === 'null' ? null : Number(cores), ...figures,
        curve: Array.from({ length: Math.ceil(Math.max(...fit.sizes) * 1.5) }, (_, i) => ({ nodes: i + 1,
          per_sec: round(predict(i + 1)) })) })
    }
  }
  const most = Math.max(0, ...[...families.values()].map((p) => new Set(p.map((x) => x.nodes)).size))
  return { usl, usl_note: usl.length ? null : `the Universal Scalability Law needs ${MIN_SIZES} cluster sizes or ` +
    `more of the same machines (${most} here): no fit` }
}

function shapeFigures ({ shape, points }, headroomPct) {
  const eligible = points.filter((p) => p.problems.length === 0 && p.throughput > 0)
  const peak = eligible.reduce((best, p) => (!best || p.throughput > best.throughput ? p : best), null)
  const cores = typeof shape.cores_per_node === 'number' ? shape.cores_per_node * shape.nodes : null
  const entry = {
    nodes: shape.nodes,
    cores_per_node: shape.cores_per_node,
    heap_bytes_per_node: shape.heap_bytes_per_node,
    cores_total: cores,
    shared_machine: Boolean(shape.shared_machine),
    results: points.length,
    // A grid's cell stands for the many runs of its study; a single run is a point.
    single_result: points.length === 1 && (points[0].runs ?? 1) === 1,
    excluded: points.filter((p) => !eligible.includes(p)).map((p) => ({ source: p.source, why: p.problems.join(', ') ||
      'no throughput' })),
    peak: null,
    per_node: null,
    per_core: null,
    recommended_per_sec: null,
    replicated_writes_per_node: null
  }
  if (!peak) return entry
  // per_sec for code that reads any workload; rows_per_sec (queries_per_sec) named as the results name it.
  entry.peak = { per_sec: peak.throughput, [`${peak.unit}_per_sec`]: peak.throughput,
    field_values_per_sec: peak.field_values_per_sec, p99_ms: peak.p99_ms,
    settings: peak.settings, source: peak.source }
  entry.per_node = round(peak.throughput / shape.nodes)
  entry.per_core = cores ? round(peak.throughput / cores) : null
  entry.recommended_per_sec = round(peak.throughput * (1 - headroomPct / 100))
  if (peak.replicas > 0) entry.replicated_writes_per_node = round((peak.throughput * (1 + peak.replicas)) / shape.nodes)
  return entry
}

module.exports = { pointOf, sizingOf, DEFAULT_HEADROOM_PCT }
