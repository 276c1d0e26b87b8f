'use strict'

const { round } = require('../../base/format')
const { fitUsl, MIN_SIZES } = require('./usl')
const { SUSTAINED_MIN_S } = require('../../results/drift')
const { pointOf, gridEvidence, mixedEvidence } = require('./evidence')

// A sizing reference from results measured on clusters of different shapes (a study's grid on each, or single
// runs): per shape every result it stands on, the best measured, the figure at the settings a grid recommended, and a
// planning figure whose rule is written beside it; how well the larger shapes scale against the smallest (per node,
// at each one's best measured: never a load scaled with them). Results that cannot be a figure are left out, named.

const DEFAULT_HEADROOM_PCT = 20
// Two results of one shape apart by more than this, with no intervals to settle it, disagree.
const DISAGREE_PCT = 10

const shapeKey = (s) => JSON.stringify([s.nodes, s.cores_per_node, s.heap_bytes_per_node])
// Results share a table only when they measured the same thing: the workload, its data or query mix, the protocol
// and the row's shape (extra tags, payload, key and value sizes).
const groupKey = (p) => JSON.stringify([p.workload, p.model, p.protocol, p.row_shape])

/** The reference over `points` (pointOf, gridEvidence). */
function sizingOf (points, { headroomPct = DEFAULT_HEADROOM_PCT } = {}) {
  const groups = new Map()
  for (const p of points.filter((x) => x.shape)) {
    const key = groupKey(p)
    if (!groups.has(key)) {
      groups.set(key, { workload: p.workload, model: p.model, protocol: p.protocol, row_shape: p.row_shape,
        unit: p.unit, shapes: new Map() })
    }
    const shapes = groups.get(key).shapes
    if (!shapes.has(shapeKey(p.shape))) shapes.set(shapeKey(p.shape), { shape: p.shape, points: [] })
    shapes.get(shapeKey(p.shape)).points.push(p)
  }
  return {
    headroom_pct: headroomPct,
    without_shape: points.filter((p) => !p.shape && !p.shape_problem).map((p) => p.source),
    bad_shape: points.filter((p) => p.shape_problem).map((p) => ({ source: p.source, why: p.shape_problem })),
    groups: [...groups.values()].map((g) => {
      const shapes = [...g.shapes.values()].map((s) => shapeFigures(s, headroomPct))
        .sort((a, b) => a.nodes - b.nodes || (a.cores_total ?? 0) - (b.cores_total ?? 0))
      const base = shapes.find((s) => s.best !== null && !s.shared_machine) ?? shapes.find((s) => s.best !== null)
      // Nodes that share a machine scale nothing: no efficiency for them.
      for (const s of shapes) {
        s.efficiency_pct = s.shared_machine || !s.best || !base ? null
          : s === base ? 100 : round((s.per_node / base.per_node) * 100, 1)
      }
      return { ...g, shapes, shared_machine: shapes.some((s) => s.shared_machine), ...scalabilityOf(shapes),
        caveats: caveatsOf(g, [...g.shapes.values()].flatMap((s) => s.points)) }
    })
  }
}

/**
 * The Universal Scalability Law fitted per machine size (shapes of the same cores per node, none sharing a machine,
 * at their best measured), from four sizes on; below that, a note that counts what it counted.
 */
function scalabilityOf (shapes) {
  const families = new Map()
  const measured = shapes.filter((x) => x.best)
  for (const s of measured.filter((x) => !x.shared_machine)) {
    const key = JSON.stringify(s.cores_per_node)
    if (!families.has(key)) families.set(key, [])
    families.get(key).push({ nodes: s.nodes, per_sec: s.best.per_sec })
  }
  const usl = []
  for (const [cores, points] of families) {
    const fit = fitUsl(points)
    if (fit) {
      const { predict, ...figures } = fit
      const perNode = JSON.parse(cores)
      usl.push({ cores_per_node: typeof perNode === 'number' ? perNode : null, ...figures,
        curve: Array.from({ length: Math.ceil(Math.max(...fit.sizes) * 1.5) }, (_, i) => ({ nodes: i + 1,
          per_sec: round(predict(i + 1)) })) })
    }
  }
  if (usl.length) return { usl, usl_note: null }
  const most = Math.max(0, ...[...families.values()].map((p) => new Set(p.map((x) => x.nodes)).size))
  const shared = measured.filter((s) => s.shared_machine).length
  const machineSizes = families.size > 1 ? ` (the most of one machine size; ${families.size} machine sizes given)` : ''
  return { usl, usl_note: `the Universal Scalability Law needs ${MIN_SIZES} cluster sizes or more of the same ` +
    `machines, none sharing one: ${most} here${machineSizes}${shared ? `; ${shared} left out: nodes sharing a ` +
      'machine' : ''}; no fit` }
}


/**
 * What the figures of a group are not, from what its results measured: write-only (an ingest), on an empty table
 * (every run started on one), short (no run of ten minutes or more): the studies this tool follows size up for each.
 */
function caveatsOf (g, points) {
  const caveats = []
  if (g.workload === 'ingest' && !points.some((p) => p.mixed)) {
    caveats.push('write-only figures: no mixed capacity was given; a cluster that also serves queries needs more ' +
      '(size up a tier, or measure it: find-capacity --workload mixed --query_rate Q)')
  }
  const known = points.filter((p) => typeof p.table_docs_at_start === 'number')
  if (g.workload === 'ingest' && known.length > 0 && known.every((p) => p.table_docs_at_start === 0)) {
    caveats.push('empty-table figures: every run started on an empty table; throughput drops as the data grows ' +
      '(measure on a table of realistic size)')
  }
  if (points.length > 0 && !points.some((p) => p.sustained) &&
    points.every((p) => typeof p.seconds !== 'number' || p.seconds < SUSTAINED_MIN_S)) {
    caveats.push(`short runs: none ran ${SUSTAINED_MIN_S / 60} minutes or more; what a cluster keeps up for hours ` +
      '(flushes, merges) is not in these figures (a long run: --duration 12h)')
  }
  return caveats
}

/** A figure as the reference shows it: the rate, its unit's name, field values, p99, settings, source, interval. */
function figureOf (p) {
  return { per_sec: p.throughput, [`${p.unit}_per_sec`]: p.throughput, field_values_per_sec: p.field_values_per_sec,
    p99_ms: p.p99_ms, settings: p.settings, source: p.source, ci95: p.ci95 ?? null, runs: p.runs }
}

const medianOf = (items, value) => [...items].sort((a, b) => value(a) - value(b))[Math.floor((items.length - 1) / 2)]

function shapeFigures ({ shape, points }, headroomPct) {
  const eligible = points.filter((p) => p.problems.length === 0 && p.throughput > 0)
  const best = eligible.reduce((a, p) => (!a || p.throughput > a.throughput ? p : a), null)
  const recommendations = eligible.map((p) => p.recommended).filter((r) => r && r.problems.length === 0)
  const recommended = recommendations.length ? medianOf(recommendations, (r) => r.throughput) : null
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
    evidence: points.map((p) => ({ source: p.source, runs: p.runs, per_sec: p.throughput, ci95: p.ci95,
      recommended_per_sec: p.recommended ? p.recommended.throughput : null,
      undecided: p.undecided ?? null, left_out: p.problems.length ? p.problems.join(', ') : null })),
    spread: spreadOf(eligible),
    disagreement: disagreementOf(eligible),
    excluded: points.filter((p) => !eligible.includes(p)).map((p) => ({ source: p.source, why: p.problems.join(', ') ||
      'no throughput' })),
    best: best && figureOf(best),
    recommended: recommended && figureOf(recommended),
    recommended_note: recommended ? null : recommendedNote(eligible),
    planning: null,
    per_node: null,
    per_core: null,
    replicas: best ? best.replicas : null,
    replicated_writes_per_node: null,
    mixed: mixedOf(points),
    sustained: sustainedOf(points)
  }
  if (!best) return entry
  entry.planning = planningOf(recommended, best, headroomPct)
  entry.per_node = round(best.throughput / shape.nodes)
  entry.per_core = cores ? round(best.throughput / cores) : null
  entry.planning_per_node = round(entry.planning.per_sec / shape.nodes)
  if (typeof best.replicas === 'number' && best.replicas > 0) {
    entry.replicated_writes_per_node = round((best.throughput * (1 + best.replicas)) / shape.nodes)
  }
  return entry
}

/**
 * The figure to plan with and its rule: the headroom below the lower end of the 95% interval at the recommended
 * settings; without an interval, below the recommended figure; without recommended settings, below the best measured.
 */
function planningOf (recommended, best, headroomPct) {
  const keep = 1 - headroomPct / 100
  if (recommended && recommended.ci95) {
    return { per_sec: round(recommended.ci95.low * keep), rule: `${headroomPct}% below the lower end of the 95% ` +
      'interval at the recommended settings' }
  }
  if (recommended) {
    return { per_sec: round(recommended.throughput * keep), rule: `${headroomPct}% below the figure at the ` +
      'recommended settings (one run a cell: no interval)' }
  }
  return { per_sec: round(best.throughput * keep), rule: `${headroomPct}% below the best measured (no recommended ` +
    'settings for this shape)' }
}

/** Why a shape has no recommended settings when a grid of it could not decide them; null otherwise. */
function recommendedNote (eligible) {
  const undecided = eligible.filter((p) => p.undecided)
  return undecided.length ? `none: ${undecided.map((p) => `${p.source}: ${p.undecided}`).join('; ')}` : null
}

/** The mixed capacity of a shape: the lowest its searches found (each with the query rate and SLO it held). */
function mixedOf (points) {
  const found = points.map((p) => p.mixed).filter((m) => m && typeof m.per_sec === 'number')
  return found.length ? found.reduce((a, m) => (m.per_sec < a.per_sec ? m : a)) : null
}

/** The sustained figure of a shape: its longest run's, without failures or a partial end. */
function sustainedOf (points) {
  const clean = points.filter((p) => p.sustained && !p.problems.some((x) => /failures|partial|load generator/.test(x)))
  return clean.length ? clean.reduce((a, p) => (p.sustained.duration_s > a.duration_s ? p.sustained : a),
    clean[0].sustained) : null
}

/** Median, lowest, highest and spread of the results' best figures, when there are two or more. */
function spreadOf (eligible) {
  if (eligible.length < 2) return null
  const values = eligible.map((p) => p.throughput).sort((a, b) => a - b)
  const median = values[Math.floor((values.length - 1) / 2)]
  return { median, min: values[0], max: values[values.length - 1],
    spread_pct: round(((values[values.length - 1] - values[0]) / median) * 100, 1) }
}

/** Results of one shape that cannot both be right: intervals apart, or apart beyond DISAGREE_PCT without them. */
function disagreementOf (eligible) {
  for (let i = 0; i < eligible.length; i++) {
    for (let j = i + 1; j < eligible.length; j++) {
      const [a, b] = [eligible[i], eligible[j]]
      const apartPct = round((Math.abs(a.throughput - b.throughput) / Math.max(a.throughput, b.throughput)) * 100, 1)
      const intervals = a.ci95 && b.ci95
      const apart = intervals ? a.ci95.high < b.ci95.low || b.ci95.high < a.ci95.low : apartPct > DISAGREE_PCT
      if (apart) {
        return `results of this shape disagree: ${a.source} ${round(a.throughput)} and ${b.source} ` +
          `${round(b.throughput)}, ${apartPct}% apart ${intervals ? 'beyond their 95% intervals'
            : 'with no interval to judge (measure each more than once)'}: measure it again before sizing with it`
      }
    }
  }
  return null
}

module.exports = { pointOf, gridEvidence, mixedEvidence, sizingOf, DEFAULT_HEADROOM_PCT }
