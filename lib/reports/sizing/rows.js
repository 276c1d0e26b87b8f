'use strict'

const { fmt, fmtWhole: whole } = require('../../base/format')
const { shapeText } = require('../../cluster/cluster-shape')

// The sizing reference's table and the lines under it, as the terminal and sizing.html both show them.

/** "ingest (cpu, pg, extra_tags_length 500)": what a group measured. */
function groupTitle (g) {
  const shape = Object.entries(g.row_shape || {}).map(([k, v]) => `${k} ${v}`)
  return `${g.workload} (${[g.model, g.protocol, ...shape].filter(Boolean).join(', ')})`
}

const settingsOf = (figure) => (figure ? Object.entries(figure.settings).map(([k, v]) => `${k} ${fmt(v)}`).join(', ')
  : '')

/** "19,075 (215–64,209)": a figure with its 95% interval where it has one. */
const withInterval = (figure) => `${whole(figure.per_sec)}${figure.ci95 ? ` (${whole(figure.ci95.low)}–` +
  `${whole(figure.ci95.high)})` : ''}`

/** The group's table: { head, rows }, one row a cluster shape, every cell text. */
function groupTable (g) {
  // Field values/s (Lindorm's unit) for a model that has them; writes with their replicas where there are any.
  const fields = g.shapes.some((s) => s.best && s.best.field_values_per_sec)
  const replicated = g.shapes.some((s) => s.replicated_writes_per_node !== null)
  const mixed = g.shapes.some((s) => s.mixed)
  const sustained = g.shapes.some((s) => s.sustained)
  const head = ['cluster', 'results', `best measured ${g.unit}/s`, ...(fields ? ['field values/s'] : []),
    'at the recommended settings', 'settings', 'p99 ms', 'per node (best)',
    ...(replicated ? ['with replicas per node'] : []), 'per core (best)', 'to plan with', 'efficiency',
    ...(mixed ? [`mixed ${g.unit}/s`] : []), ...(sustained ? [`sustained ${g.unit}/s`] : [])]
  const rows = g.shapes.map((s) => {
    const shape = shapeText({ nodes: s.nodes, cores_per_node: s.cores_per_node,
      heap_bytes_per_node: s.heap_bytes_per_node, shared_machine: false })
    const at = s.recommended ?? s.best
    return [
      `${shape}${s.shared_machine ? ' (SHARED MACHINE)' : ''}`,
      `${s.results}${s.spread ? ` (${whole(s.spread.min)}–${whole(s.spread.max)}, spread ` +
        `${fmt(s.spread.spread_pct)}%)` : s.single_result ? ' (one run: a point)'
        : s.evidence.length === 1 ? ` (a grid of ${fmt(s.evidence[0].runs)} runs)` : ''}`,
      s.best ? withInterval(s.best) : 'no result within the rules',
      ...(fields ? [s.best ? whole(s.best.field_values_per_sec) : ''] : []),
      s.recommended ? withInterval(s.recommended) : s.best ? 'none' : '',
      settingsOf(at),
      at ? fmt(at.p99_ms) : '',
      whole(s.per_node),
      ...(replicated ? [whole(s.replicated_writes_per_node)] : []),
      whole(s.per_core),
      s.planning ? whole(s.planning.per_sec) : '',
      s.efficiency_pct === null ? (s.shared_machine && s.best ? 'none: shared machine' : '')
        : `${fmt(s.efficiency_pct)}%`,
      ...(mixed ? [s.mixed ? `${whole(s.mixed.per_sec)} beside ${fmt(s.mixed.query_rate)} queries/s at p99 ≤ ` +
        `${fmt(s.mixed.slo_p99_ms)} ms` : ''] : []),
      ...(sustained ? [s.sustained ? `${whole(s.sustained.per_sec)} at the end of ${fmt(Math.round(
        s.sustained.duration_s / 60))} min${s.sustained.table_rows_end !== null ? ` on ${whole(
        s.sustained.table_rows_end)} rows` : ''} (drift ${fmt(s.sustained.drift.throughput_change_pct)}%)` : ''] : [])
    ]
  })
  return { head, rows }
}

/** The lines under a group's table: each planning rule, recommendations, disagreements, scaling, what was left out. */
function groupNotes (g) {
  const out = []
  for (const s of g.shapes) {
    const name = `${s.nodes} node${s.nodes === 1 ? '' : 's'}`
    if (s.planning) out.push(`${name}: to plan with ${whole(s.planning.per_sec)} ${g.unit}/s: ${s.planning.rule}`)
    if (s.best && s.recommended_note) out.push(`${name}: recommended settings ${s.recommended_note}`)
    if (s.disagreement) out.push(`warning: ${name}: ${s.disagreement}`)
  }
  for (const u of g.usl) {
    out.push(`scaling (Universal Scalability Law over ${u.sizes.join(', ')} nodes${u.cores_per_node
      ? ` of ${u.cores_per_node} cores` : ''}; an estimate, R² ${u.r2}): one node ~${fmt(u.lambda)} ${g.unit}/s, ` +
      `contention σ ${u.sigma}, coherency κ ${u.kappa}: ${u.limited_by === 'nothing measured (linear)'
        ? 'linear over the sizes measured' : `limited by ${u.limited_by}`}${u.peak_nodes
        ? `; more nodes stop adding throughput near ${fmt(u.peak_nodes)}` : ''}`)
  }
  if (!g.usl.length && g.shapes.length > 1) out.push(g.usl_note)
  const unreplicated = g.shapes.filter((s) => s.nodes > 1 && s.replicas === 0)
  if (unreplicated.length) {
    out.push(`note: replicas 0 on ${unreplicated.map((s) => `${s.nodes} nodes`).join(', ')}: a production cluster ` +
      'keeps replicas, and every row is then written more than once; size with --replicas 1')
  }
  if (g.shared_machine) {
    out.push('warning: some of these clusters run several nodes on one machine: their scaling is no scaling figure')
  }
  const excluded = g.shapes.flatMap((s) => s.excluded)
  if (excluded.length) out.push(`not sizing figures: ${excluded.map((e) => `${e.source} (${e.why})`).join('; ')}`)
  for (const caveat of g.caveats || []) out.push(`caveat: ${caveat}`)
  return out
}

/** The lines about inputs that made no group. */
function inputNotes (sizing) {
  const out = []
  if (sizing.bad_shape.length) out.push(`left out: ${sizing.bad_shape.map((b) => `${b.source} (${b.why})`).join('; ')}`)
  if (sizing.without_shape.length) {
    out.push(`left out (measured before results carried the cluster's shape): ${sizing.without_shape.join(', ')}`)
  }
  return out
}

module.exports = { groupTitle, groupTable, groupNotes, inputNotes }
