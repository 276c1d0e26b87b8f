'use strict'

// A fleet's generator judged dead that stored its result after all (it was paused past the death rule): the fleet's
// verdict counted it from its heartbeats or from the table, at the verdict's time; its own result is shown apart,
// never merged in silently (lib/results/stored-runs.js reads both).

/**
 * Adds the late results to `merged` (the fleet's result without them): each listed apart, the run partial, and the
 * rows a late generator may have stored after the verdict in doubt. A paused process still holds the requests it had
 * queued when it stopped, and sends them when it wakes: the verdict's count cannot hold them, so without this the
 * table would hold more rows than the fleet's figures allow. `verdicts` are the reconciliation's generators
 * (lib/run/fleet-coordination.js), `unit` rows or queries.
 */
function keepLateApart (merged, late, verdicts, unit, generatorOf) {
  const ok = `${unit}_ok`
  const inDoubt = `${unit}_in_doubt`
  const judged = new Map((verdicts || []).map((v) => [v.generator, v]))
  merged.late_results = late.map((r) => ({ generator: generatorOf(r) + 1, [ok]: r[ok],
    [`${unit}_failed`]: r[`${unit}_failed`], [inDoubt]: r[inDoubt] }))
  merged.partial = true
  for (const r of late) {
    const generator = generatorOf(r)
    // Queries store nothing: only rows can be in the table beyond the verdict.
    const after = unit === 'rows' ? storedAfterVerdict(r, judged.get(generator) || {}, unit) : 0
    let reason = `generator ${generator + 1} stored its result after the fleet was finished without it (judged ` +
      `dead): kept apart as late (${r[ok]} ${unit} ok by its own count), not merged`
    if (after > 0) {
      // Sent by the fleet as its verdict did not know: sent stays ok + failed + in doubt.
      merged[`${unit}_sent`] += after
      merged[inDoubt] += after
      reason += `; up to ${after} ${unit} it stored after the fleet's verdict are in doubt`
    }
    merged.partial_reasons.push(reason)
  }
  return merged
}

/**
 * How many more rows a late generator may have left in the table than its verdict allows: what its own result says
 * it stored or may have (its warm-up's too), beyond the rows the verdict counted in the table by their keys, or else
 * beyond what the verdict allowed it (sent and not failed by its last heartbeat, and its bound since).
 */
function storedAfterVerdict (result, verdict, unit) {
  const warm = result.warmup || {}
  const own = (result[`${unit}_ok`] || 0) + (result[`${unit}_in_doubt`] || 0) + (warm[`${unit}_ok`] || 0) +
    (warm[`${unit}_in_doubt`] || 0)
  const allowed = verdict.stored_in_table !== undefined
    ? verdict.stored_in_table
    : mostStoredBy(verdict.counts, verdict.unreported_bound)
  return Math.max(0, own - allowed)
}

/**
 * The most rows a fleet's generator can have left in the table by its heartbeat's counts: what it sent and did not see
 * fail, and what it may have sent since (`bound`, for one judged dead).
 */
function mostStoredBy (counts, bound = 0) {
  const c = counts || {}
  return (c.sent || 0) - (c.failed || 0) + (bound || 0)
}

module.exports = { keepLateApart, storedAfterVerdict, mostStoredBy }
