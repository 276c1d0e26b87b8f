'use strict'

const { welch, mean } = require('./welch')
const { pairedRatio, detectableMargin } = require('./paired')
const { round } = require('../../base/format')
const { comparedOptions } = require('../../fleet/compared-options')
const { unitOfWorkload } = require('../../results/result')
const { busyMachineLine } = require('../cluster-limits')

// The figures compared, and which way is better.
const MIN_RUNS = 3
const SIGNIFICANCE = 0.05

function figuresOf (result) {
  const unit = unitOfWorkload(result.workload)
  const figures = {
    [`${unit}/s`]: { value: result[`${unit}_per_sec`], higherIsBetter: true },
    'p50 ms': { value: result.latency_ms && result.latency_ms.p50, higherIsBetter: false },
    'p99 ms': { value: result.latency_ms && result.latency_ms.p99, higherIsBetter: false },
    'p99.9 ms': { value: result.latency_ms && result.latency_ms.p999, higherIsBetter: false },
    [`${unit} failed`]: { value: result[`${unit}_failed`] + (result[`${unit}_in_doubt`] || 0), higherIsBetter: false }
  }
  // What the client spent per unit: the figure a comparison of HTTP and the PostgreSQL protocol is about.
  const per = unit === 'rows' ? 'row' : 'query'
  const cpu = result.client && result.client[`cpu_us_per_${per}`]
  if (typeof cpu === 'number') figures[`client CPU µs/${per}`] = { value: cpu, higherIsBetter: false, client: true }
  // The cluster's CPU per 1,000 units: the cost another tenant of the machine moves far less than the rate.
  const cost = result.cluster_cpu
  if (cost && typeof cost.ms_per_1000 === 'number') {
    figures[`cluster CPU ms/1000 ${unit}`] = { value: cost.ms_per_1000, higherIsBetter: false }
  }
  for (const q of result.queries || []) {
    figures[`${q.name}: queries/s`] = { value: q.queries_per_sec, higherIsBetter: true }
    figures[`${q.name}: p99 ms`] = { value: q.latency_ms && q.latency_ms.p99, higherIsBetter: false }
  }
  return figures
}

const protocolsOf = (results) => [...new Set(results.map((r) => (r.options && r.options.protocol) || 'http'))]

/**
 * Base against new, figure by figure: the means, the change in %, and with at least three runs a
 * side, Welch's t-test: a 95% confidence interval of the change and a verdict (better, worse, or
 * no significant difference at p < 0.05, with the smallest change the runs could have seen).
 * `paired`: base[i] and new[i] ran together (a study's fork, a duet): each figure judged on their
 * ratios (lib/reports/compare/paired.js), so that what the machine did to both cancels.
 */
function compareRuns (baseResults, newResults, { baseNames = [], newNames = [], paired = false } = {}) {
  if (paired && baseResults.length !== newResults.length) {
    throw new Error(`paired runs come in pairs: ${baseResults.length} base, ${newResults.length} new`)
  }
  const base = baseResults.map(figuresOf)
  const next = newResults.map(figuresOf)
  const names = Object.keys(base[0]).filter((name) => next.every((f) => name in f) && base.every((f) => name in f))
  const judged = baseResults.length >= MIN_RUNS && newResults.length >= MIN_RUNS
  // What was compared: each run's file (or run id), its run id and when it started.
  const sideOf = (results, names) => results.map((r, i) => ({ source: names[i] ?? null,
    run_id: (r.options && r.options.run_id) ?? null, started_at: r.started_at ?? null }))
  return {
    base_runs: baseResults.length,
    new_runs: newResults.length,
    sides: { base: sideOf(baseResults, baseNames), new: sideOf(newResults, newNames) },
    // What carried each side's load: HTTP or the PostgreSQL protocol (runs before --protocol were HTTP).
    protocols: { base: protocolsOf(baseResults), new: protocolsOf(newResults) },
    option_differences: optionDifferences(baseResults, newResults),
    // Runs whose nodes were busy beyond their load or before it: their figures are not the cluster's alone.
    busy: busyOf(baseResults, newResults, baseNames, newNames),
    paired,
    method: paired
      ? `paired: the ratio new / base of each pair (geometric mean), Student's t on its logarithm, two-sided, p < ` +
        `${SIGNIFICANCE}; 95% confidence interval of the change; a "no difference" says the smallest change its ` +
        'pairs would have shown 4 times in 5'
      : `Welch's t-test, two-sided, p < ${SIGNIFICANCE}; 95% confidence interval of the change; a "no difference" ` +
        'says the smallest change its runs would have shown 4 times in 5',
    judged,
    figures: names.map((name) => ({
      ...compareFigure(
        name,
        base.map((f) => f[name].value),
        next.map((f) => f[name].value),
        base[0][name].higherIsBetter,
        judged,
        paired
      ),
      // The load generator's own cost: shown and judged, never a regression of the cluster's.
      ...(base[0][name].client ? { of: 'client' } : {})
    }))
  }
}

/** The runs of each side whose nodes were busy, with the first one's words; null when none was. */
function busyOf (baseResults, newResults, baseNames, newNames) {
  const side = (results, names) => results.map((r, i) => ({ source: names[i] ?? `run ${i + 1}`,
    busy: busyMachineLine(r) })).filter((x) => x.busy)
  const base = side(baseResults, baseNames)
  const next = side(newResults, newNames)
  if (!base.length && !next.length) return null
  return { base: base.map((x) => x.source), new: next.map((x) => x.source), first: (base[0] || next[0]).busy }
}

/**
 * The options that tell the two sides apart: what was changed between them (batch_size 5000 -> 10000), so that a
 * verdict reads against its cause. Each side's values as the set its runs had; the run's own (id, seed, files, ports)
 * are left out, as a fleet leaves them out when it compares its generators.
 */
function optionDifferences (baseResults, newResults) {
  const valuesOf = (results) => {
    const values = new Map()
    for (const r of results) {
      for (const [key, value] of Object.entries(comparedOptions(r.options || {}, { seedGiven: false }))) {
        if (!values.has(key)) values.set(key, new Set())
        values.get(key).add(JSON.stringify(value ?? null))
      }
    }
    return values
  }
  const base = valuesOf(baseResults)
  const next = valuesOf(newResults)
  const keys = [...new Set([...base.keys(), ...next.keys()])].sort()
  const shown = (set) => (set ? [...set].map((v) => JSON.parse(v)) : [])
  const differing = keys
    .filter((key) => [...(base.get(key) || [])].sort().join('|') !== [...(next.get(key) || [])].sort().join('|'))
    .map((key) => ({ option: key, base: shown(base.get(key)), new: shown(next.get(key)) }))
  // The PostgreSQL protocol's own options follow from --protocol: a change of protocol is the one difference.
  if (!differing.some((d) => d.option === 'protocol')) return differing
  return differing.filter((d) => !PROTOCOL_OWN.has(d.option) || (d.base.length > 0 && d.new.length > 0))
}

const PROTOCOL_OWN = new Set(['pg_insert', 'pg_port'])

// Squares of larger values overflow the variance: such figures are not a measurement of this tool.
const MAX_MAGNITUDE = 1e150

function compareFigure (name, baseValues, newValues, higherIsBetter, judged, paired = false) {
  const inRange = (v) => typeof v === 'number' && Number.isFinite(v) && Math.abs(v) <= MAX_MAGNITUDE
  const usable = baseValues.every(inRange) && newValues.every(inRange)
  const b = usable ? mean(baseValues) : null
  const n = usable ? mean(newValues) : null
  const pct = (x) => {
    const value = b ? round((x / b) * 100, 1) : null
    return Number.isFinite(value) ? value : null
  }
  const entry = {
    figure: name,
    higher_is_better: higherIsBetter,
    base: b === null ? null : round(b, 3),
    new: n === null ? null : round(n, 3),
    change_pct: usable && b ? pct(n - b) : null,
    ci_pct: null,
    p_value: null,
    verdict: null,
    // The smallest change the runs would have shown 4 times in 5 (80% power): what a "no difference" could not see.
    detectable_pct: null,
    base_values: baseValues,
    new_values: newValues
  }
  if (!usable) return { ...entry, verdict: 'no data' }
  // Which way the change goes, judged or not: -61% p50 is for the better, -20% rows/s for the worse.
  entry.direction = n === b ? 'unchanged' : (n > b) === higherIsBetter ? 'better' : 'worse'
  if (!judged) return { ...entry, verdict: `${entry.direction}, not judged` }
  // Paired where every value is above zero (a ratio of 0 means nothing); a count of failures that is 0 on a side is
  // judged as the pooled runs are.
  const ratio = paired ? pairedRatio(baseValues.map((v, i) => [v, newValues[i]])) : null
  if (ratio) {
    entry.change_pct = round(ratio.change_pct, 1)
    entry.ci_pct = [round(ratio.low_pct, 1), round(ratio.high_pct, 1)]
    entry.p_value = round(ratio.p_value, 4)
    entry.detectable_pct = round(ratio.detectable_pct, 1)
    entry.paired = true
    if (ratio.p_value >= SIGNIFICANCE) entry.verdict = 'no significant difference'
    else entry.verdict = (ratio.change_pct > 0) === higherIsBetter ? 'better' : 'worse'
    return entry
  }
  const test = welch(baseValues, newValues)
  const margin = test.se === 0 ? 0 : detectableMargin(test.se, test.df)
  entry.detectable_pct = b && margin !== null ? round((margin / Math.abs(b)) * 100, 1) : null
  entry.p_value = round(test.pValue, 4)
  // No figure compared here goes below zero (rates, latencies, counts): the change cannot be worse than -100%.
  entry.ci_pct = b ? [pct(test.low), pct(test.high)] : null
  if (entry.ci_pct && b > 0 && entry.ci_pct[0] < -100) {
    entry.ci_pct[0] = -100
    entry.ci_clipped = true
  }
  if (test.pValue >= SIGNIFICANCE) entry.verdict = 'no significant difference'
  else entry.verdict = (test.diff > 0) === higherIsBetter ? 'better' : 'worse'
  return entry
}

/**
 * Figures significantly worse by more than `pct` percent. From a base of zero (no failures, then some) the change
 * has no percentage, and any significant worsening is a regression.
 */
/**
 * The figures that got significantly worse by more than `pct` percent: the cluster's, never the client's own CPU
 * (it measures the machine the load generator ran on, which --fail_on_regression does not gate).
 */
function regressions (comparison, pct) {
  const beyond = (f) => f.change_pct === null || Math.abs(f.change_pct) > pct
  return comparison.figures.filter((f) => f.verdict === 'worse' && f.of !== 'client' && beyond(f))
}

module.exports = { compareRuns, regressions, figuresOf, MIN_RUNS }
