'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { raceOf, nextRound, shuffled, intervalOf } = require('../../../lib/sweep/grid/racing')

/** Cells from rates by round: { id: [round 1's rate, round 2's, …] }, settings named after the id. */
const cellsOf = (rates, excluded = {}) => Object.entries(rates).map(([id, list]) => ({
  id, settings: { cell: id }, excluded: excluded[id] ?? null,
  runs: list.map((perSec, i) => ({ round: i + 1, per_sec: perSec, missing: false }))
}))

// Each round slows or speeds every cell alike (a machine that drifts by ±30%), over rates 1000, 900 and 1010.
const DRIFT = [1, 0.7, 1.3, 0.8, 1.2, 0.9]
const drifting = (base, wobble) => DRIFT.map((d, i) => Math.round(base * d * (1 + wobble[i % wobble.length])))

test('a grid whose cells separate: the slower cell is dropped after round 3, with why, though the machine drifted ' +
  'more than the cells differ', () => {
  const rates = {
    a: drifting(1000, [0.01, -0.01, 0.005]),
    b: drifting(900, [-0.01, 0.01, 0]),
    c: drifting(1010, [0, -0.005, 0.01])
  }
  const early = raceOf(cellsOf(Object.fromEntries(Object.entries(rates).map(([k, v]) => [k, v.slice(0, 2)]))),
    { minRounds: 3 })
  assert.deepEqual(early.dropped, [], 'no drop before the third round')
  const race = raceOf(cellsOf(Object.fromEntries(Object.entries(rates).map(([k, v]) => [k, v.slice(0, 3)]))),
    { minRounds: 3 })
  assert.deepEqual(race.dropped.map((d) => [d.id, d.round]), [['b', 3]])
  assert.match(race.dropped[0].why,
    /^1[01](\.\d)?% below cell c over 3 rounds \(its interval -\d+(\.\d)?% \.\. -\d+(\.\d)?%, paired by round/)
  assert.deepEqual(race.survivors, ['a', 'c'])
  assert.equal(race.leader, 'c')
  // Unpaired, the drift hides it: b's range overlaps a's and c's.
  assert.ok(Math.max(...rates.b.slice(0, 3)) > Math.min(...rates.c.slice(0, 3)))
  assert.equal(race.stop, null, 'two cells left, no precision asked')
})

test('a grid whose cells never separate: nobody is dropped over six rounds, and the race goes on', () => {
  // The same rates, shifted a round from cell to cell: equal cells, each round's noise its own.
  const noise = [1000, 1080, 930, 1040, 960, 1010]
  const rates = { a: noise, b: [...noise.slice(1), noise[0]], c: [...noise.slice(2), ...noise.slice(0, 2)] }
  const race = raceOf(cellsOf(rates), { minRounds: 3, precisionPct: 1 })
  assert.deepEqual(race.dropped, [])
  assert.equal(race.rounds_complete, 6)
  assert.equal(race.stop, null)
  assert.ok(race.leader_interval.half_pct > 1)
})

test('stops: the leader\'s interval within the precision asked, one cell left, every cell ruled out', () => {
  const tight = raceOf(cellsOf({ a: [1000, 1002, 998], b: [1001, 999, 1000] }), { minRounds: 3, precisionPct: 5 })
  assert.equal(tight.stop.reason, 'precision')
  assert.match(tight.stop.text, /^the leader's 95% interval is within ±0\.\d+% \(±5% asked\) after 3 rounds$/)
  const one = raceOf(cellsOf({ a: [1000, 1000, 1001], b: [500, 498, 502] }), { minRounds: 3 })
  assert.deepEqual(one.survivors, ['a'])
  assert.deepEqual(one.stop, { reason: 'one left', text: 'one cell left: cell a' })
  const failing = raceOf(cellsOf({ a: [1000], b: [900] }, { a: 'failures: 3 rows', b: 'failures: 1 row' }),
    { minRounds: 3 })
  assert.equal(failing.stop.reason, 'none left')
  assert.deepEqual(failing.dropped.map((d) => d.why), ['failures: 3 rows', 'failures: 1 row'])
})

test('the next round: the survivors lacking it, in the order drawn; a resumed round runs only what it lacks', () => {
  const cells = cellsOf({ a: [1000, 1000, 1001], b: [500, 498, 502], c: [990, 1010, 1000] })
  const race = raceOf(cells, { minRounds: 3 })
  assert.deepEqual(race.survivors, ['a', 'c'])
  const alwaysFirst = () => 0
  assert.deepEqual(nextRound(race, cells, alwaysFirst).map((r) => [r.cell.id, r.round]), [['c', 4], ['a', 4]])
  cells[0].runs.push({ round: 4, per_sec: 1000, missing: false })
  assert.deepEqual(nextRound(raceOf(cells, { minRounds: 3 }), cells, alwaysFirst).map((r) => r.cell.id), ['c'])
})

test('shuffled draws every order of three (Fisher–Yates): each from its draws', () => {
  const orders = new Set()
  for (const a of [0, 1, 2]) for (const b of [0, 1]) {
    const draws = [a, b]
    orders.add(shuffled(['x', 'y', 'z'], () => draws.shift()).join(''))
  }
  assert.equal(orders.size, 6)
})

test('a cell\'s interval: Student\'s t over its runs, none under two', () => {
  assert.equal(intervalOf([1000]), null)
  const i = intervalOf([90, 100, 110])
  assert.equal(i.mean, 100)
  assert.ok(Math.abs(i.half_pct - 24.84) < 0.01, String(i.half_pct))
})
