'use strict'

const { fmt, fmtWhole: whole } = require('../../base/format')
const { shapeText } = require('../../cluster/cluster-shape')
const { cpuSourceText } = require('../../results/cpu-cost')
const { table } = require('../table')

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

/** "2 (17,333–32,107, spread 85.2%)", "a grid of 12 runs (1 of 12 done)", "1 (one run: a point)". */
function resultsText (s) {
  const grids = s.evidence.filter((e) => e.runs_total !== null)
  const incomplete = grids.filter((e) => e.runs_done < e.runs_total)
  const busy = s.evidence.reduce((n, e) => n + (e.busy_runs || 0), 0)
  const notes = [incomplete.length ? `${incomplete.map((e) => `${fmt(e.runs_done)} of ${fmt(e.runs_total)}`)
    .join(', ')} runs done` : null, busy ? `${fmt(busy)} busy` : null].filter(Boolean)
  const base = `${s.results}${s.spread ? ` (${whole(s.spread.min)}–${whole(s.spread.max)}, spread ` +
    `${fmt(s.spread.spread_pct)}%)` : s.single_result ? ' (one run: a point)'
    : s.evidence.length === 1 && grids.length === 1 ? ` (a grid of ${fmt(grids[0].runs_done)} runs)` : ''}`
  return `${base}${notes.length ? ` [${notes.join('; ')}]` : ''}`
}

/** "20,000 for 10 min at p99 35.7 ms (drift: throughput -1.8%, p99 +520%)", with what it held or did not. */
function sustainedText (s, unit) {
  const minutes = fmt(Math.round(s.duration_s / 60))
  const rows = s.table_rows_end !== null && s.table_rows_end !== undefined ? ` on ${whole(s.table_rows_end)} rows` : ''
  const drift = s.drift || {}
  const latency = typeof s.p99_change_pct === 'number' ? `, p99 ${signed(s.p99_change_pct)}%` : ''
  const mean = typeof s.whole_run_per_sec === 'number' ? `; whole-run mean ${whole(s.whole_run_per_sec)}` : ''
  const driftText = ` (drift: throughput ${fmt(drift.throughput_change_pct)}%${latency}${mean})`
  const p99 = ` at p99 ${fmt(s.p99_ms)} ms`
  if (s.lower_bound) {
    return s.held ? `held ${whole(s.target_per_sec)}/s for ${minutes} min${p99}${rows} (a lower bound)${driftText}`
      : `did not hold ${whole(s.target_per_sec)}/s (${fmt(s.achieved_pct)}%) over ${minutes} min${p99}${driftText}`
  }
  return s.held ? `${whole(s.per_sec)} held at the end of ${minutes} min${p99}${rows}${driftText}`
    : `NOT held: ${whole(s.per_sec)} ${unit}/s at the end of ${minutes} min${p99}, beyond what the cluster ` +
      `serves${driftText}`
}

const signed = (v) => `${v > 0 ? '+' : ''}${fmt(v)}`

/** The mixed cell: "1,750 beside 2 queries/s at p99 ≤ 3,000 ms", "at least 10,000 … below 11,000". */
function mixedText (m) {
  if (m.per_sec === null) return `none the runs carry (beside ${fmt(m.query_rate)} queries/s)`
  const bound = m.lower_bound ? `at least ${whole(m.per_sec)} (every run passed)${m.below ? `, below ` +
    `${whole(m.below)}` : ''}` : whole(m.per_sec)
  return `${bound} beside ${fmt(m.query_rate)} queries/s at p99 ≤ ${fmt(m.slo_p99_ms)} ms${m.busy ? ' (BUSY)' : ''}`
}

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
      resultsText(s),
      s.best ? `${withInterval(s.best)}${s.best.busy ? ' (BUSY)' : ''}` : 'no result within the rules',
      ...(fields ? [s.best ? whole(s.best.field_values_per_sec) : ''] : []),
      s.recommended ? withInterval(s.recommended) : s.best ? 'none' : '',
      settingsOf(at),
      at ? fmt(at.p99_ms) : '',
      whole(s.per_node),
      ...(replicated ? [whole(s.replicated_writes_per_node)] : []),
      whole(s.per_core),
      s.planning.per_sec !== null ? whole(s.planning.per_sec) : 'none: see below',
      s.efficiency_pct === null ? (s.shared_machine && s.best ? 'none: shared machine' : '')
        : `${fmt(s.efficiency_pct)}%`,
      ...(mixed ? [s.mixed ? mixedText(s.mixed) : 'not measured'] : []),
      ...(sustained ? [s.sustained ? sustainedText(s.sustained, g.unit) : 'no run of 10 min'] : [])
    ]
  })
  return { head, rows }
}

/** "CPU 64.2 ms per 1,000 rows (from …); its 2 cores bound the rate at 31,175 rows/s". */
function cpuCostText (cpu, unit) {
  return `CPU ${fmt(cpu.ms_per_1000)} ms per 1,000 ${unit} (from ${cpuSourceText(cpu)})${cpu.bound_per_sec
    ? `; its ${cpu.cores} cores bound the rate at ${whole(cpu.bound_per_sec)} ${unit}/s` : ''}`
}

/**
 * The lines under a group's table: each shape's figure to plan with (or why there is none and what to run next),
 * every verdict of its inputs and its own caveats, then recommendations, disagreements, scaling, what was left out.
 */
function groupNotes (g) {
  const out = []
  for (const s of g.shapes) {
    const name = `${s.nodes} node${s.nodes === 1 ? '' : 's'}`
    const p = s.planning
    if (p.per_sec !== null) {
      out.push(`${name}: to plan with ${whole(p.per_sec)} ${g.unit}/s: ${p.rule}${p.checked_by
        ? `; held for as long by ${p.checked_by.replace(/^\S+ held /, '')} (${p.checked_by.split(' ')[0]})` : ''}`)
    } else {
      out.push(`${name}: no figure to plan with: ${p.none}${p.next ? `; next: ${p.next}` : ''}`)
    }
    if (p.above_failed_sustained) out.push(`warning: ${name}: ${p.above_failed_sustained}`)
    const costed = s.recommended && s.recommended.cpu ? ['recommended', s.recommended]
      : s.best && s.best.cpu ? ['best', s.best] : null
    if (costed) out.push(`${name}: ${cpuCostText(costed[1].cpu, g.unit)} at the ${costed[0]} settings`)
    if (s.best && s.recommended_note) out.push(`${name}: recommended settings ${s.recommended_note}`)
    if (s.disagreement) out.push(`warning: ${name}: ${s.disagreement}`)
    for (const v of s.verdicts) out.push(`${v.startsWith('busy') ? 'warning' : 'note'}: ${name}: ${v}`)
    if (s.sustained && !s.sustained.held) {
      out.push(`warning: ${name}: ${s.sustained.source} did not hold: ${s.sustained.not_held_why}`)
    }
    for (const caveat of s.caveats) out.push(`caveat: ${name}: ${caveat}`)
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

/** The sizing as the terminal shows it: each group's title, its table and notes, then the notes on its inputs. */
function sizingText (sizing) {
  const out = []
  for (const g of sizing.groups) {
    out.push(`${groupTitle(g)}: ${g.unit}/s of each cluster, every figure with the results it stands on`)
    const { head, rows } = groupTable(g)
    const t = table(head)
    for (const row of rows) t.push(row)
    out.push(t.toString(), ...groupNotes(g))
  }
  out.push(...inputNotes(sizing))
  return `${out.join('\n')}\n`
}

module.exports = { sizingText, groupTitle, groupTable, groupNotes, inputNotes }
