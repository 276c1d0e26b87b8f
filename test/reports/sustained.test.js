'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { sustainedVerdict } = require('../../lib/reports/sustained')
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
