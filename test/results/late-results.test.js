'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { keepLateApart, storedAfterVerdict } = require('../../lib/results/late-results')

const generatorOf = (r) => r.options.generator.index
const fleetResult = () => ({ rows_sent: 86_950, rows_ok: 86_900, rows_failed: 50, rows_in_doubt: 0, partial: false,
  partial_reasons: [] })
const accounted = (m) => m.rows_ok + m.rows_failed + m.rows_in_doubt === m.rows_sent
const lateResult = (ok, more = {}) => ({ options: { generator: { index: 1 } }, rows_ok: ok, rows_failed: 0,
  rows_in_doubt: 0, ...more })

test('a late generator that stored rows after the verdict counted its rows in the table: those rows are in doubt, ' +
  'so the table\'s count stays within the fleet\'s figures', () => {
  // Judged dead with 28,900 of its rows in the table; awake again, it sent the two batches it had queued when paused.
  const verdicts = [{ generator: 0, counts: { sent: 29_000, ok: 29_000, failed: 0 } },
    { generator: 1, counts: { sent: 28_900, ok: 28_700, failed: 0 }, stored_in_table: 28_900, found_in_table: 200 }]
  const merged = keepLateApart(fleetResult(), [lateResult(29_100)], verdicts, 'rows', generatorOf)
  assert.equal(merged.rows_in_doubt, 200)
  assert.equal(merged.rows_ok, 86_900, 'the fleet\'s acknowledged rows are not changed')
  assert.equal(merged.rows_sent, 87_150)
  assert.ok(accounted(merged), 'ok + failed + in doubt = sent')
  assert.equal(merged.partial, true)
  assert.deepEqual(merged.late_results, [{ generator: 2, rows_ok: 29_100, rows_failed: 0, rows_in_doubt: 0 }])
  assert.deepEqual(merged.partial_reasons, ['generator 2 stored its result after the fleet was finished without it ' +
    '(judged dead): kept apart as late (29100 rows ok by its own count), not merged; up to 200 rows it stored after ' +
    'the fleet\'s verdict are in doubt'])
  // The table: 86,900 counted by the verdict, and the 200 sent since.
  const counted = 87_100
  assert.ok(counted >= merged.rows_ok && counted <= merged.rows_ok + merged.rows_in_doubt)
})

test('a late generator that stored nothing after the verdict adds nothing in doubt', () => {
  const verdicts = [{ generator: 1, counts: { sent: 28_900, ok: 28_700, failed: 0 }, stored_in_table: 28_900 }]
  const merged = keepLateApart(fleetResult(), [lateResult(28_900)], verdicts, 'rows', generatorOf)
  assert.equal(merged.rows_in_doubt, 0)
  assert.equal(merged.rows_sent, 86_950)
  assert.doesNotMatch(merged.partial_reasons[0], /in doubt/)
})

test('without a count by keys, the verdict allowed what was sent and not failed and its bound since: only beyond ' +
  'that is in doubt; its own warm-up and rows in doubt count as stored; queries add nothing', () => {
  const verdict = { generator: 1, counts: { sent: 1_000, ok: 900, failed: 50 }, unreported_bound: 200 }
  assert.equal(storedAfterVerdict(lateResult(1_100), verdict, 'rows'), 0)
  assert.equal(storedAfterVerdict(lateResult(1_100, { rows_in_doubt: 100 }), verdict, 'rows'), 50)
  assert.equal(storedAfterVerdict(lateResult(1_100, { warmup: { rows_ok: 60, rows_in_doubt: 10 } }), verdict, 'rows'),
    20)
  // No verdict row for it: everything it may have stored is beyond the fleet's figures.
  assert.equal(storedAfterVerdict(lateResult(300), {}, 'rows'), 300)
  const queries = keepLateApart({ queries_ok: 10, queries_in_doubt: 0, partial_reasons: [] },
    [{ options: { generator: { index: 2 } }, queries_ok: 7, queries_failed: 0, queries_in_doubt: 0 }],
    [{ generator: 2, counts: { sent: 5, ok: 5, failed: 0 }, unreported_bound: 0 }], 'queries', generatorOf)
  // Queries store nothing: a late query generator adds nothing in doubt.
  assert.equal(queries.queries_in_doubt, 0)
  assert.match(queries.partial_reasons[0],
    /^generator 3 stored its result after .*\(7 queries ok by its own count\), not merged$/)
})
