'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { sustainedVerdict, shortSustainedNote } = require('../../lib/reports/sustained')
const { sustainedLine } = require('../../lib/results/drift')
const { fmt } = require('../../lib/base/format')

// Issue 61: a --rate 200000 run that reached 4.6% of its target said "held at the end of 10 min".
test('a long run\'s own report says whether it held: a --rate run far below its target did not, and says why', () => {
  const drift = { unit: 'rows' }
  const sustained = { per_sec: 8644, p99_ms: 570_425, duration_s: 600, table_rows_end: null }
  const below = { options: { rate: 200_000 }, rate: { target_per_sec: 200_000, achieved_pct: 4.6 }, rows_failed: 0,
    rows_in_doubt: 0, sustained }
  const verdict = sustainedVerdict(below, 'rows')
  assert.deepEqual([verdict.held, verdict.lower_bound, verdict.not_held_why],
    [false, true, 'it achieved 4.6% of its 200000/s target'])
  assert.equal(sustainedLine(drift, { ...sustained, ...verdict }, fmt), '  sustained: NOT held: 8,644 rows/s at the ' +
    'end of 10 min, p99 570,425 ms (it achieved 4.6% of its 200000/s target): no figure the cluster sustains')
  const kept = { ...below, rate: { target_per_sec: 200_000, achieved_pct: 99.6 } }
  const held = sustainedVerdict(kept, 'rows')
  assert.equal(held.held, true)
  assert.equal(sustainedLine(drift, { ...sustained, per_sec: 199_300, p99_ms: 40, ...held }, fmt),
    '  sustained: 199,300 rows/s held at the end of 10 min, p99 40 ms (its --rate target: a lower bound)')
  const failed = sustainedVerdict({ options: {}, rows_failed: 3, rows_in_doubt: 2, partial: true, sustained }, 'rows')
  assert.deepEqual([failed.held, failed.not_held_why], [false, 'it ended partial; 5 rows failed or in doubt'])
})

// Issue 68: a full-speed 10-minute run whose p99 went ×2.1, whose throughput fell 31.9% and whose change point the tool
// itself named was "held at the end of 10 min".
test('held is judged on the run\'s own drift: a p99 that grew, a throughput that fell, a change point for the worse',
  () => {
    const sustained = { per_sec: 26_430.6, p99_ms: 3762, duration_s: 600, table_rows_end: null }
    const drift = { unit: 'rows', throughput_judged: 'throughput', first: { per_sec: 38_750, p99_ms: 1757 },
      last: { per_sec: 26_390, p99_ms: 3762 }, throughput_change_pct: -31.9, p99_change_pct: 114.1,
      changes: [{ metric: 'throughput', at_s: 60, before: 38_750, after: 26_430.6 }] }
    const grown = sustainedVerdict({ options: {}, rows_failed: 0, rows_in_doubt: 0, sustained, drift }, 'rows')
    assert.equal(grown.held, false)
    assert.equal(grown.not_held_why, 'its p99 grew ×2.1 through the run (1,757 → 3,762 ms); its throughput fell ' +
      '31.9% through the run; its throughput changed at 60 s: 38,750 → 26,430.6')
    assert.match(grown.held_rule, /a p99 within ×1\.5 and a throughput within −20%, with no change point/)
    assert.match(sustainedLine(drift, { ...sustained, ...grown }, fmt), /^ {2}sustained: NOT held: 26,430\.6 rows\/s /)
    // A steady run holds, and its line shows the rule against what it measured.
    const steady = { ...drift, last: { per_sec: 38_100, p99_ms: 1800 }, throughput_change_pct: -1.7,
      p99_change_pct: 2.4, changes: [] }
    const held = sustainedVerdict({ options: {}, rows_failed: 0, rows_in_doubt: 0, sustained, drift: steady }, 'rows')
    assert.equal(held.held, true)
    assert.equal(sustainedLine(steady, { ...sustained, per_sec: 38_100, p99_ms: 1800, ...held }, fmt), '  sustained: ' +
      '38,100 rows/s held at the end of 10 min, p99 1,800 ms; held by its own drift: p99 ×1.02 (at most ×1.5), ' +
      'throughput -1.7% (at least −20%) from its first tenth to its last, no change point for the worse')
    // A backlog draining after a shortfall is no change for the worse.
    const draining = { ...steady, changes: [{ metric: 'throughput', at_s: 30, before: 900, after: 1100,
      backlog_draining: true }, { metric: 'p99_ms', at_s: 30, before: 90, after: 40 }] }
    assert.equal(sustainedVerdict({ options: {}, sustained, drift: draining }, 'rows').held, true)
  })

test('a sustained run shorter than a sustained figure needs is said when the study file is read', () => {
  assert.equal(shortSustainedNote('3m'), 'note: sustained.duration 3m is under the 10 minutes a sustained figure ' +
    'needs: the run is measured, but it says no held or not held (give sustained.duration: 10m or more for one)')
  assert.equal(shortSustainedNote('10m'), null)
  assert.equal(shortSustainedNote('2h'), null)
  assert.equal(shortSustainedNote('soon'), null, 'a bad duration is the benchmark\'s to name')
})
