'use strict'

const { round } = require('../base/format')

// The cluster's CPU per unit of work (lib/run/cluster-cpu.js measures it): a cost that another tenant of the machine
// moves far less than the rate, and by the operational laws a bound on the rate: rate ≤ cores / cost.

/**
 * The cost per 1,000 `unit`s (CPU milliseconds) and the rate it bounds with the cores given (cores / cost): what
 * the result keeps as `cluster_cpu`. Null without CPU time or units.
 */
function cpuCostOf (cpu, units, unit) {
  if (!cpu || !(units > 0) || !(cpu.cpu_s > 0)) return null
  const perUnitS = cpu.cpu_s / units
  return { ...cpu, unit, ms_per_1000: round(perUnitS * 1e6, 3),
    bound_per_sec: cpu.cores ? Math.round(cpu.cores / perUnitS) : null }
}

module.exports = { cpuCostOf }
