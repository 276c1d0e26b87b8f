'use strict'

const { clusterLimitReason } = require('./cluster-limits')
const { fmt, round } = require('../base/format')
const { parseDuration } = require('../base/values')
const { SUSTAINED_MIN_S } = require('../results/drift')

// Whether a long run held what it sustained: the run's own report says it, and the sizing reads it back the same way.

// Under a --rate, the share of its target a long run must reach to have held it.
const HELD_PCT = 99
// Through the run (its first tenth against its last, lib/results/drift.js): a p99 that grew past this factor, or a
// throughput (its share of the target under --rate) that fell by more, held nothing: the load was beyond what the
// cluster keeps, however the run ended.
const HELD_P99_FACTOR = 1.5
const HELD_THROUGHPUT_FALL_PCT = 20

/** The rule a long run is held by, as the JSON states it, so that a user can check it. */
const heldRule = (unit) => `held: not partial, no ${unit} failed or in doubt, under --rate at least ${HELD_PCT}% of ` +
  'its target, the load within what the cluster serves (no growing write queue, no busy nodes), and through the run ' +
  `(its first tenth against its last) a p99 within ×${HELD_P99_FACTOR} and a throughput within ` +
  `−${HELD_THROUGHPUT_FALL_PCT}%, with no change point that lowered the throughput or raised the p99`

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
  why.push(...driftReasons(result.drift))
  return { target_per_sec: target, achieved_pct: achievedPct, lower_bound: target !== null, held: why.length === 0,
    not_held_why: why.length ? why.join('; ') : null, held_rule: heldRule(unit),
    held_check: why.length === 0 ? heldCheck(result.drift) : null }
}

/** What the run's own drift measured against the rule, for the line of a run that held: "p99 ×1.1 (at most ×1.5) …". */
function heldCheck (drift) {
  if (!drift) return null
  const factor = (pct) => fmt(round(1 + pct / 100, 2))
  const p99 = typeof drift.p99_change_pct === 'number' ? `p99 ×${factor(drift.p99_change_pct)}` : 'p99 unknown'
  const change = drift.throughput_change_pct
  const rate = typeof change === 'number' ? `throughput ${change > 0 ? '+' : ''}${fmt1(change)}%`
    : 'throughput unknown'
  return `${p99} (at most ×${HELD_P99_FACTOR}), ${rate} (at least −${HELD_THROUGHPUT_FALL_PCT}%) from its first ` +
    'tenth to its last, no change point for the worse'
}

const fmt1 = (x) => fmt(round(x, 1))

/** Why a run's own drift says it held nothing: its p99 grew, its throughput fell, a change point (none: []). */
function driftReasons (drift) {
  if (!drift) return []
  const why = []
  const p99 = [drift.first && drift.first.p99_ms, drift.last && drift.last.p99_ms]
  if (typeof drift.p99_change_pct === 'number' && 1 + drift.p99_change_pct / 100 > HELD_P99_FACTOR) {
    why.push(`its p99 grew ×${fmt1(1 + drift.p99_change_pct / 100)} through the run (${fmt1(p99[0])} → ` +
      `${fmt1(p99[1])} ms)`)
  }
  if (typeof drift.throughput_change_pct === 'number' && drift.throughput_change_pct < -HELD_THROUGHPUT_FALL_PCT) {
    why.push(`its ${drift.throughput_judged === 'throughput' ? 'throughput' : 'share of its target'} fell ` +
      `${fmt1(-drift.throughput_change_pct)}% through the run`)
  }
  for (const c of drift.changes || []) {
    const worse = (c.metric === 'throughput' && c.after < c.before && !c.backlog_draining) ||
      (c.metric === 'p99_ms' && c.after > c.before)
    if (worse) {
      why.push(`its ${c.metric === 'throughput' ? 'throughput' : 'p99 (ms)'} changed at ${fmt1(c.at_s)} s: ` +
        `${fmt1(c.before)} → ${fmt1(c.after)}`)
    }
  }
  return why
}

/**
 * Said when a study file is read: a sustained run shorter than a sustained figure needs is measured, but says no held
 * or not held. Null for one long enough (or a duration the benchmark will name as bad).
 */
function shortSustainedNote (duration, key = 'sustained.duration') {
  let ms
  try {
    ms = parseDuration(String(duration), 'duration')
  } catch {
    return null
  }
  if (ms >= SUSTAINED_MIN_S * 1000) return null
  return `note: ${key} ${duration} is under the ${SUSTAINED_MIN_S / 60} minutes a sustained figure needs: the run is ` +
    `measured, but it says no held or not held (give ${key}: ${SUSTAINED_MIN_S / 60}m or more for one)`
}

module.exports = { shortSustainedNote, sustainedVerdict, heldRule, HELD_PCT, HELD_P99_FACTOR, HELD_THROUGHPUT_FALL_PCT }
