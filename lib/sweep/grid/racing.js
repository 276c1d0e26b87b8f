'use strict'

const { randomInt } = require('node:crypto')
const { round, pairsText: settingsText } = require('../../base/format')
const { pairedRatio } = require('../../reports/compare/paired')
const { meanMargin, mean } = require('../../reports/compare/welch')

// A grid that races to a decision (F-Race's idea): every surviving cell runs once a round, in an order drawn anew each
// round; after each round from the first `minRounds` on, a cell shown worse than the leader is dropped, and the time
// goes to the cells left. Rounds are blocks: a cell's runs are judged against the leader's of the same rounds (their
// ratio), so a round the machine slowed slows both and moves no verdict. Pure: replayed from the runs recorded, it
// gives the same drops on a resume; no clock (the budget is the caller's), the order's randomness injected.

const CONFIDENCE = 0.95

/** Fisher–Yates with `random(n)` in [0, n): a new order each round, so that no cell always runs first after a pause. */
function shuffled (items, random = randomInt) {
  const out = [...items]
  for (let i = out.length - 1; i > 0; i--) {
    const j = random(i + 1)
    ;[out[i], out[j]] = [out[j], out[i]]
  }
  return out
}

/** The measured runs of a cell by round: Map(round → per_sec), missing runs and runs of no rate left out. */
const ratesByRound = (runs) => new Map(runs.filter((r) => !r.missing && r.per_sec > 0).map((r) => [r.round, r.per_sec]))

/** The 95% interval of a cell's mean rate and its half-width in % of the mean; null under two runs. */
function intervalOf (rates) {
  if (rates.length < 2) return null
  const m = mean(rates)
  const margin = meanMargin(rates, CONFIDENCE)
  return { mean: m, low: m - margin, high: m + margin, half_pct: m > 0 ? (margin / m) * 100 : Infinity }
}

/**
 * The race as the runs recorded have it. `cells`: [{ id, settings, runs: [{ round, per_sec, missing }], excluded }]
 * (`excluded`: why a cell can never be best, as the grid's figures say: failures, a saturated client). Options:
 * `minRounds` before any drop, `precisionPct` (null: none asked). Returns { survivors, dropped: [{ id, round, why }],
 * leader, leader_interval, rounds_complete, stop: null | { reason: 'precision' | 'one left' | 'none left', text } }.
 */
function raceOf (cells, { minRounds, precisionPct = null }) {
  const rates = new Map(cells.map((c) => [c.id, ratesByRound(c.runs)]))
  const dropped = []
  let survivors = cells.map((c) => c.id)
  const byId = new Map(cells.map((c) => [c.id, c]))
  const dropOut = (id, atRound, why) => {
    dropped.push({ id, round: atRound, settings: byId.get(id).settings, why })
    survivors = survivors.filter((s) => s !== id)
  }
  let complete = 0
  let leader = null
  for (let r = 1; survivors.length > 0 && survivors.every((id) => hasRun(byId.get(id), r)); r++) {
    complete = r
    for (const id of [...survivors]) if (byId.get(id).excluded) dropOut(id, r, byId.get(id).excluded)
    leader = leaderOf(survivors, rates)
    if (r < minRounds || survivors.length < 2 || leader === null) continue
    const others = survivors.filter((id) => id !== leader)
    // Bonferroni over the cells tested this round: a cell is dropped only when its ratio's interval at that stricter
    // confidence lies wholly below the leader's.
    const confidence = 1 - (1 - CONFIDENCE) / others.length
    for (const id of others) {
      const pairs = [...rates.get(id)].filter(([round]) => round <= r && rates.get(leader).has(round))
        .map(([round, rate]) => [rates.get(leader).get(round), rate])
      const ratio = pairedRatio(pairs, confidence)
      if (ratio && ratio.high_pct < 0) {
        dropOut(id, r, `${round(-ratio.change_pct, 1)}% below ${settingsText(byId.get(leader).settings)} over ` +
          `${pairs.length} rounds (its interval ${round(ratio.low_pct, 1)}% .. ${round(ratio.high_pct, 1)}%, paired ` +
          `by round, ${Math.round(CONFIDENCE * 100)}% over the ${others.length} cells tested)`)
      }
    }
  }
  const interval = leader && survivors.includes(leader) ? intervalOf([...rates.get(leader).values()]) : null
  return { survivors, dropped, leader: survivors.includes(leader) ? leader : null, leader_interval: interval,
    rounds_complete: complete, stop: stopOf({ survivors, interval, complete, minRounds, precisionPct, byId }) }
}

const hasRun = (cell, r) => cell.runs.some((run) => run.round === r)

/** The surviving cell of the highest mean rate, or null when none has a rate. */
function leaderOf (survivors, rates) {
  let best = null
  for (const id of survivors) {
    const values = [...rates.get(id).values()]
    if (values.length === 0) continue
    const m = mean(values)
    if (!best || m > best.mean) best = { id, mean: m }
  }
  return best && best.id
}

function stopOf ({ survivors, interval, complete, minRounds, precisionPct, byId }) {
  if (complete === 0) return null
  if (survivors.length === 0) return { reason: 'none left', text: 'every cell was ruled out' }
  if (complete < minRounds) return null
  if (survivors.length === 1) {
    return { reason: 'one left', text: `one cell left: ${settingsText(byId.get(survivors[0]).settings)}` }
  }
  if (precisionPct !== null && interval && interval.half_pct <= precisionPct) {
    return { reason: 'precision', text: `the leader's 95% interval is within ±${round(interval.half_pct, 1)}% ` +
      `(±${precisionPct}% asked) after ${complete} rounds` }
  }
  return null
}

/**
 * The runs of the next round: the survivors that lack it, in a new random order. `race`: raceOf's answer; `cells` as
 * raceOf takes them.
 */
function nextRound (race, cells, random = randomInt) {
  const r = race.rounds_complete + 1
  const lacking = cells.filter((c) => race.survivors.includes(c.id) && !hasRun(c, r))
  return shuffled(lacking, random).map((cell) => ({ cell, round: r }))
}

module.exports = { raceOf, nextRound, shuffled, intervalOf, CONFIDENCE }
