'use strict'

const { fmt, round } = require('../../base/format')
const { BOUND_MAX_ERROR_PCT } = require('../../results/cpu-cost')

// How a comparison reads, the same on the terminal and on the page.

const runsText = (n) => `${n} ${n === 1 ? 'run' : 'runs'}`

const signed = (pct) => `${pct > 0 ? '+' : ''}${fmt(pct)}%`

/** The change in %, or why there is none: a base of 0 has no percentage, a figure without data no change. */
function changeText (f) {
  if (f.change_pct !== null) return signed(f.change_pct)
  if (f.base === null || f.new === null) return 'no data'
  if (f.base === 0) return f.new === 0 ? 'none (0 both)' : `from 0 to ${fmt(f.new)}`
  return 'no data'
}

/**
 * The verdict as read: a "no significant difference" says the smallest change the runs could have seen ("no
 * significant difference; a change under 9% would not have been seen").
 */
function verdictText (f) {
  if (f.verdict !== 'no significant difference' || typeof f.detectable_pct !== 'number') return f.verdict
  return `${f.verdict}; a change under ${fmt(f.detectable_pct)}% would not have been seen`
}

// An interval's end past this (in %) says the forks bound nothing: "unbounded", never a figure of twelve digits.
const UNBOUNDED_PCT = 1000

/** An end of an interval of a change in %: "+4.2%", or "unbounded" past ±1,000%. */
const boundText = (pct) => (Math.abs(pct) > UNBOUNDED_PCT ? 'unbounded' : signed(pct))

/** "−3.1% .. +4.2%" of [low, high] in %, an end past ±1,000% "unbounded". */
const rangeText = ([low, high], clipped = false) => `${boundText(low)}${clipped ? ' (clipped)' : ''} .. ` +
  `${boundText(high)}`

/** The 95% interval of the change, or why there is none. */
function intervalText (f) {
  if (f.ci_pct) return rangeText(f.ci_pct, f.ci_clipped)
  return f.p_value === null ? 'not judged' : 'none (base 0)'
}

/** "warning: busy nodes: base a.json, new b.json (…): …", or '' when no run was busy. */
function busyText (busy) {
  if (!busy) return ''
  const side = (name, list) => (list.length ? `${name} ${list.join(', ')}` : null)
  return `warning: busy nodes in ${[side('base', busy.base), side('new', busy.new)].filter(Boolean).join('; ')} ` +
    `(${busy.first}): a difference may be the other load's, not the change's\n`
}

/** One option's values on each side: "batch_size 5000 (base) -> 10000 (new)". */
function optionDifferenceText (d) {
  const side = (values) => (values.length === 0 ? '(not set)' : values.map((v) => JSON.stringify(v)).join(' or '))
  return `${d.option} ${side(d.base)} (base) -> ${side(d.new)} (new)`
}

const PROTOCOL_NAMES = { http: 'HTTP', pg: 'PostgreSQL protocol' }

/** "base over HTTP, new over the PostgreSQL protocol": what carried each side's load. */
function protocolsText (protocols) {
  const side = (list) => list.map((p) => PROTOCOL_NAMES[p] ?? p).join(' and ')
  return `base over ${side(protocols.base)}, new over ${side(protocols.new)}`
}

/** "base: http-1.json (run r1, 2026-11-26 10:00), …\nnew: …": what each side is, one line each. */
function sidesText (sides) {
  if (!sides) return ''
  const run = (r) => `${r.source ?? r.run_id ?? 'a run'}${r.source && r.run_id && r.source !== r.run_id
    ? ` (run ${r.run_id}${r.started_at ? `, ${dateText(r.started_at)}` : ''})`
    : r.started_at ? ` (${dateText(r.started_at)})` : ''}`
  return `base: ${sides.base.map(run).join(', ')}\nnew: ${sides.new.map(run).join(', ')}\n`
}

const dateText = (iso) => String(iso).replace('T', ' ').replace(/:\d\d(\.\d+)?Z$/, ' UTC')

/**
 * The note of runs whose cluster CPU was sampled too coarsely to bound a rate (sys.nodes, ±25% or wider as sampled:
 * a cluster not on this machine, in short runs): its figure and verdict stand on those samples. Null when none.
 */
function coarseCpuNote (results) {
  const coarse = results.map((r) => r.cluster_cpu).filter((c) => c && c.sampling_error_pct > BOUND_MAX_ERROR_PCT)
  if (coarse.length === 0) return null
  const worst = coarse.reduce((a, c) => (c.sampling_error_pct > a.sampling_error_pct ? c : a))
  return `the cluster's CPU per row was sampled coarsely in ${coarse.length} of ${results.length} runs (up to ` +
    `±${fmt(round(worst.sampling_error_pct, 1))}% as sampled: sys.nodes every ${fmt(worst.sampled_every_s)} s over ` +
    `${fmt(round(worst.window_s, 0))} s): its figure and verdict stand on those samples; longer runs, or ` +
    '--monitor_interval 1s in run.args, sample it finer'
}

module.exports = { runsText, changeText, intervalText, rangeText, boundText, verdictText, fmt, optionDifferenceText,
  protocolsText, sidesText, busyText, coarseCpuNote, PROTOCOL_NAMES }
