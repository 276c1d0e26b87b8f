'use strict'

const { clusterLimitReason } = require('./cluster-limits')

// Whether a long run held what it sustained: the run's own report says it, and the sizing reads it back the same way.

// Under a --rate, the share of its target a long run must reach to have held it.
const HELD_PCT = 99

/**
 * The verdict on a long run's sustained figure (`result.sustained`, lib/results/drift.js): under --rate it held its
 * target (a lower bound of what the cluster sustains) or it did not; without one, its end rate is what the cluster
 * kept up, unless its latency grew through the run or its queue grew (the load was beyond what the cluster serves).
 * Failures or a partial end never hold. { target_per_sec, achieved_pct, lower_bound, held, not_held_why }.
 */
function sustainedVerdict (result, unit) {
  const o = result.options || {}
  const target = o.rate !== null && o.rate !== undefined && result.rate ? result.rate.target_per_sec ?? o.rate : null
  const achievedPct = target !== null && result.rate ? result.rate.achieved_pct ?? null : null
  const why = []
  if (result.partial) why.push('it ended partial')
  const failed = (result[`${unit}_failed`] || 0) + (result[`${unit}_in_doubt`] || 0)
  if (failed > 0) why.push(`${failed} ${unit} failed or in doubt`)
  if (target !== null && !(achievedPct >= HELD_PCT)) why.push(`it achieved ${achievedPct}% of its ${target}/s target`)
  const limit = clusterLimitReason(result)
  if (limit) why.push(`the load was beyond what the cluster serves (${limit})`)
  return { target_per_sec: target, achieved_pct: achievedPct, lower_bound: target !== null, held: why.length === 0,
    not_held_why: why.length ? why.join('; ') : null }
}

module.exports = { sustainedVerdict, HELD_PCT }
