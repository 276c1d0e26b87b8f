'use strict'

const { round } = require('../base/format')

// The cluster's CPU per unit of work (lib/run/cluster-cpu.js measures it): a cost that another tenant of the machine
// moves far less than the rate, and by the operational laws a bound on the rate: rate ≤ cores / cost.

/**
 * The cost per 1,000 `unit`s (CPU milliseconds) and the rate it bounds with the cores given (cores / cost): what
 * the result keeps as `cluster_cpu`. Where the JIT compiler's share is known (jit_s), the cost leaves it out: a
 * fresh JVM's compiling is its warm-up, not a unit's work, and the share of it a window catches is the cost's
 * largest noise (ms_per_1000_with_jit keeps the whole). Null without CPU time or units.
 */
function cpuCostOf (cpu, units, unit) {
  if (!cpu || !(units > 0) || !(cpu.cpu_s > 0)) return null
  const jitS = typeof cpu.jit_s === 'number' && cpu.jit_s >= 0 && cpu.jit_s < cpu.cpu_s ? cpu.jit_s : null
  const perUnitS = (cpu.cpu_s - (jitS ?? 0)) / units
  // A cost sampled too coarsely bounds nothing: the rate it would bound is as uncertain as the cost.
  const tooCoarse = cpu.sampling_error_pct > BOUND_MAX_ERROR_PCT
  return { ...cpu, jit_s: jitS, unit, ms_per_1000: round(perUnitS * 1e6, 3),
    ms_per_1000_with_jit: jitS === null ? null : round((cpu.cpu_s / units) * 1e6, 3),
    bound_per_sec: cpu.cores && !tooCoarse ? Math.round(cpu.cores / perUnitS) : null }
}

// The widest sampling error (±%) of a cost that still bounds the rate (cores / cost).
const BOUND_MAX_ERROR_PCT = 25

/**
 * Where a cost comes from, in the report's words: "the nodes' processes …; the JIT compiler's 12.3 s left out", a
 * sampled one with its sampling error ("…, ±8.2% as sampled (every 2 s over 60 s)").
 */
function cpuSourceText (cost) {
  const sampled = typeof cost.sampling_error_pct === 'number' ? `, ±${round(cost.sampling_error_pct, 1)}% as ` +
    `sampled (every ${round(cost.sampled_every_s, 1)} s over ${round(cost.window_s, 0)} s)` : ''
  if (typeof cost.jit_s !== 'number') return `${cost.source_text}${sampled}`
  return `${cost.source_text}${sampled}; the JIT compiler's ${round(cost.jit_s, 1)} s left out, ` +
    `${round(cost.ms_per_1000_with_jit, 1)} ms with it`
}

module.exports = { cpuCostOf, cpuSourceText, BOUND_MAX_ERROR_PCT }
