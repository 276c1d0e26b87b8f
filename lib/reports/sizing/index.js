'use strict'

const { round } = require('../../base/format')
const { fitUsl, MIN_SIZES } = require('./usl')
const { SUSTAINED_MIN_S } = require('../../results/drift')
const { pointOf, gridEvidence, mixedEvidence } = require('./evidence')
const { writeOnlyOf, planningOf } = require('./planning')

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
      const groupPoints = [...g.shapes.values()].flatMap((s) => s.points)
      const shapes = [...g.shapes.values()].map((s) => shapeFigures(s, headroomPct, groupPoints, g))
        .sort((a, b) => a.nodes - b.nodes || (a.cores_total ?? 0) - (b.cores_total ?? 0))
      const base = shapes.find((s) => s.best !== null && !s.shared_machine) ?? shapes.find((s) => s.best !== null)
      // Nodes that share a machine scale nothing: no efficiency for them; nor against, or of, a figure that ran beside
      // other work (busy): its ratio would be the other work's.
      for (const s of shapes) {
        s.efficiency_pct = s.shared_machine || !s.best || !base || base.best.busy || s.best.busy ? null
          : s === base ? 100 : round((s.per_node / base.per_node) * 100, 1)
      }
      return { ...g, shapes, shared_machine: shapes.some((s) => s.shared_machine), ...scalabilityOf(shapes),
        caveats: caveatsOf(g, groupPoints, shapes) }
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
 * The group's caveats hold for every shape; each shape's own (no mixed capacity, no sustained run) are its own.
 */
function caveatsOf (g, points, shapes) {
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
  // A long run at a rate far below a shape's plan measured nothing of the rate planned with.
  const longEnough = shapes.some((s) => s.sustained && !s.sustained_below_plan) ||
    points.some((p) => !p.sustained && typeof p.seconds === 'number' && p.seconds >= SUSTAINED_MIN_S)
  if (points.length > 0 && !longEnough) {
    caveats.push(`short runs: none ran ${SUSTAINED_MIN_S / 60} minutes or more; what a cluster keeps up for hours ` +
      '(flushes, merges) is not in these figures (a long run: --duration 12h)')
  }
  return caveats
}

/** A shape's own caveats: what its runs did not measure, though other shapes' did (never hidden by them). */
function shapeCaveatsOf (g, points, groupPoints) {
  const caveats = []
  if (g.workload === 'ingest' && groupPoints.some((p) => p.mixed) && !points.some((p) => p.mixed)) {
    caveats.push('no mixed capacity the runs carry for this shape (write-only figures)')
  }
  const long = groupPoints.some((p) => p.sustained)
  if (long && !points.some((p) => p.sustained)) caveats.push('no sustained run of this shape (short runs only)')
  return caveats
}

/** A figure as the reference shows it: the rate, its unit's name, field values, p99, settings, source, interval. */
function figureOf (p) {
  return { per_sec: p.throughput, [`${p.unit}_per_sec`]: p.throughput, field_values_per_sec: p.field_values_per_sec,
    p99_ms: p.p99_ms, settings: p.settings, source: p.source, ci95: p.ci95 ?? null, runs: p.runs,
    busy: p.busy ?? null, cpu: p.cpu ?? null }
}

const medianOf = (items, value) => [...items].sort((a, b) => value(a) - value(b))[Math.floor((items.length - 1) / 2)]

function shapeFigures ({ shape, points }, headroomPct, groupPoints, g) {
  const eligible = points.filter((p) => p.problems.length === 0 && p.throughput > 0)
  const best = eligible.reduce((a, p) => (!a || p.throughput > a.throughput ? p : a), null)
  const recommendations = eligible.map((p) => p.recommended).filter((r) => r && r.problems.length === 0)
  const recommended = recommendations.length ? medianOf(recommendations, (r) => r.throughput) : null
  const cores = typeof shape.cores_per_node === 'number' ? shape.cores_per_node * shape.nodes : null
  const disagreement = disagreementOf(eligible)
  const entry = {
    nodes: shape.nodes,
    cores_per_node: shape.cores_per_node,
    heap_bytes_per_node: shape.heap_bytes_per_node,
    cores_total: cores,
    shared_machine: Boolean(shape.shared_machine),
    results: points.length,
    // A grid's cell stands for the many runs of its study; a single run is a point.
    single_result: points.length === 1 && (points[0].runs ?? 1) === 1 && !points[0].grid,
    evidence: points.map((p) => ({ source: p.source, runs: p.runs, per_sec: p.throughput, ci95: p.ci95,
      recommended_per_sec: p.recommended ? p.recommended.throughput : null,
      undecided: p.undecided ?? null, untested: p.recommended && p.recommended.untested ? p.recommended.untested
        : null, busy_runs: p.grid ? p.grid.busy_runs : p.busy_runs ?? 0,
      runs_done: p.grid ? p.grid.runs_done : null, runs_total: p.grid ? p.grid.runs_total : null,
      left_out: p.problems.length ? p.problems.join(', ') : null })),
    spread: spreadOf(eligible),
    disagreement,
    excluded: points.filter((p) => !eligible.includes(p)).map((p) => ({ source: p.source, why: p.problems.join(', ') ||
      'no throughput' })),
    best: best && figureOf(best),
    recommended: recommended && figureOf(recommended),
    recommended_note: recommended ? null : recommendedNote(eligible),
    verdicts: [...verdictsOf(points), ...[otherSettingsOf(eligible)].filter(Boolean)],
    caveats: shapeCaveatsOf(g, points, groupPoints),
    planning: null,
    write_only: null,
    per_node: null,
    per_core: null,
    replicas: best ? best.replicas : null,
    replicated_writes_per_node: null,
    mixed: mixedOf(points),
    sustained: sustainedOf(points)
  }
  entry.write_only = writeOnlyOf({ best, recommended, recommendations, eligible, disagreement }, headroomPct)
  entry.planning = planningOf(entry, headroomPct, g.unit)
  const s = entry.sustained
  entry.sustained_below_plan = Boolean(s && s.held && s.lower_bound && entry.planning.per_sec !== null &&
    s.target_per_sec < entry.planning.per_sec)
  if (entry.sustained_below_plan) {
    entry.caveats.push(`its long run held ${whole(s.target_per_sec)} ${g.unit}/s, below the figure to plan with ` +
      `(${whole(entry.planning.per_sec)}): no long run at the planning rate (run one: --rate ` +
      `${Math.round(entry.planning.per_sec)} --duration 1h)`)
  } else if (s && s.held && s.lower_bound && entry.planning.per_sec !== null) {
    entry.planning.checked_by = `${s.source} held ${whole(s.target_per_sec)} ${g.unit}/s for ` +
      `${Math.round(s.duration_s / 60)} min at p99 ${round(s.p99_ms, 1)} ms`
  }
  if (!best) return entry
  entry.per_node = round(best.throughput / shape.nodes)
  entry.per_core = cores ? round(best.throughput / cores) : null
  entry.planning_per_node = entry.planning.per_sec === null ? null : round(entry.planning.per_sec / shape.nodes)
  if (typeof best.replicas === 'number' && best.replicas > 0) {
    entry.replicated_writes_per_node = round((best.throughput * (1 + best.replicas)) / shape.nodes)
  }
  return entry
}

const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`

/**
 * Every doubt the inputs of a shape raised, in words: runs on busy nodes (how many of how many), grids that did not
 * finish, grids that could not decide (beside those that did), recommendations untested (one run a cell), a table
 * that grew several-fold through a grid.
 */
function verdictsOf (points) {
  const out = []
  const runsOf = (p) => (p.grid && typeof p.grid.runs_done === 'number' ? p.grid.runs_done : p.runs ?? 1)
  const total = points.reduce((s, p) => s + runsOf(p), 0)
  const busy = points.filter((p) => (p.grid ? p.grid.busy_runs : p.busy_runs) > 0)
  if (busy.length) {
    const count = busy.reduce((s, p) => s + (p.grid ? p.grid.busy_runs : p.busy_runs), 0)
    const first = busy[0].grid ? busy[0].grid.busy : busy[0].busy
    out.push(`busy: ${count} of ${plural(total, 'run')} ran beside other work or on nodes busy beyond the load or ` +
      `before it (${busy.map((p) => p.grid ? p.grid.source : p.source).join(', ')}: ${first})`)
  }
  for (const p of points.filter((x) => x.grid && x.grid.runs_total > 0 && x.grid.runs_done < x.grid.runs_total)) {
    out.push(`incomplete: ${p.grid.source} ran ${p.grid.runs_done} of ${p.grid.runs_total} runs`)
  }
  const decided = points.filter((p) => p.recommended && !p.recommended.untested)
  for (const p of points.filter((x) => x.grid && x.undecided)) {
    out.push(`undecided: ${p.grid.source}: ${p.undecided}${decided.length ? ` (beside ${decided.length} ` +
      `decided ${decided.length === 1 ? 'grid' : 'grids'} of this shape: ${decided.map((d) => d.grid ? d.grid.source
        : d.source).join(', ')})` : ''}`)
  }
  for (const p of points.filter((x) => x.recommended && x.recommended.untested)) {
    out.push(`untested: ${p.grid ? p.grid.source : p.source}: ${p.recommended.untested}`)
  }
  for (const p of points.filter((x) => x.grid && x.grid.table_growth)) {
    out.push(`table grew: ${p.grid.source}: its table grew from ${whole(p.grid.table_growth.first)} to ` +
      `${whole(p.grid.table_growth.last)} rows through the study; its later rounds measured a larger table`)
  }
  return out
}

const whole = (x) => Math.round(x).toLocaleString('en-US')

/** Why a shape has no recommended settings when a grid of it could not decide them; null otherwise. */
function recommendedNote (eligible) {
  const undecided = eligible.filter((p) => p.undecided)
  return undecided.length ? `none: ${undecided.map((p) => `${p.source}: ${p.undecided}`).join('; ')}` : null
}

/**
 * The mixed capacity of a shape: the lowest its searches found (each with the query rate and SLO it held), busy
 * when any search that gave one ran on busy nodes.
 */
function mixedOf (points) {
  const found = points.map((p) => p.mixed).filter((m) => m && typeof m.per_sec === 'number')
  if (found.length) return found.reduce((a, m) => (m.per_sec < a.per_sec ? m : a))
  const searched = points.map((p) => p.mixed).filter(Boolean)
  return searched.length ? { ...searched[0], per_sec: null } : null
}

/**
 * The sustained figure of a shape: its longest run that held (a full-speed run before a --rate run that held its
 * target, a lower bound); without one, its longest run that did not hold, said so. Failures or a partial end never
 * hold (sizing/evidence.js).
 */
function sustainedOf (points) {
  const long = points.map((p) => p.sustained).filter(Boolean)
  if (!long.length) return null
  const longest = (list) => list.reduce((a, s) => (s.duration_s > a.duration_s ? s : a))
  const held = long.filter((s) => s.held)
  const fullSpeed = held.filter((s) => !s.lower_bound)
  return fullSpeed.length ? longest(fullSpeed) : held.length ? longest(held) : longest(long)
}

/** Median, lowest, highest and spread of the results' best figures, when there are two or more. */
function spreadOf (eligible) {
  if (eligible.length < 2) return null
  const values = eligible.map((p) => p.throughput).sort((a, b) => a - b)
  const median = values[Math.floor((values.length - 1) / 2)]
  return { median, min: values[0], max: values[values.length - 1],
    spread_pct: round(((values[values.length - 1] - values[0]) / median) * 100, 1) }
}

// Two figures of one shape this far apart (of the larger) disagree whatever their intervals say: an interval that
// reaches 0 overlaps everything and would let two grids ×1.85 apart pass as agreeing.
const FAR_APART_PCT = 25

/**
 * Results of one shape that cannot both be right: intervals apart (both informative: neither reaching 0), apart
 * beyond DISAGREE_PCT without informative intervals, or beyond FAR_APART_PCT whatever their intervals.
 */
function disagreementOf (eligible) {
  const informative = (ci) => ci && !ci.clipped && ci.low > 0
  for (let i = 0; i < eligible.length; i++) {
    for (let j = i + 1; j < eligible.length; j++) {
      const [a, b] = [eligible[i], eligible[j]]
      // Figures of other settings measured other loads: no disagreement between them (otherSettingsOf says so).
      if (!sameSettings(a, b)) continue
      const apartPct = round((Math.abs(a.throughput - b.throughput) / Math.max(a.throughput, b.throughput)) * 100, 1)
      const intervals = informative(a.ci95) && informative(b.ci95)
      const disjoint = intervals && (a.ci95.high < b.ci95.low || b.ci95.high < a.ci95.low)
      const why = disjoint ? 'beyond their 95% intervals'
        : apartPct > FAR_APART_PCT ? `(more than ${FAR_APART_PCT}%, whatever their intervals say)`
          : !intervals && apartPct > DISAGREE_PCT
            ? 'with no interval to judge (measure each more than once)' : null
      if (why) {
        return `results of this shape disagree: ${a.source} ${round(a.throughput)} and ${b.source} ` +
          `${round(b.throughput)}, ${apartPct}% apart ${why}: measure it again before sizing with it`
      }
    }
  }
  return null
}

/** Whether two figures measured the same load: the same settings (batch, flight, processes, shards, replicas). */
function sameSettings (a, b) {
  const of = (p) => JSON.stringify(Object.entries(p.settings || {}).filter(([k]) => k !== 'rate').sort())
  return of(a) === of(b)
}

const settingsText = (p) => Object.entries(p.settings || {}).filter(([k]) => k !== 'rate')
  .map(([k, v]) => `${k} ${v}`).join(', ') || 'the benchmark\'s defaults'

/** "figures at other settings, shown apart, not compared: …", or null when every figure of the shape shares them. */
function otherSettingsOf (eligible) {
  const kinds = []
  for (const p of eligible) if (!kinds.some((k) => sameSettings(k, p))) kinds.push(p)
  if (kinds.length < 2) return null
  return `figures of this shape at other settings are not compared with each other (they measured other loads): ` +
    kinds.map((k) => `${eligible.filter((p) => sameSettings(p, k)).map((p) => p.source).join(', ')} at ` +
      settingsText(k)).join('; ')
}

module.exports = { pointOf, gridEvidence, mixedEvidence, sizingOf, DEFAULT_HEADROOM_PCT }
