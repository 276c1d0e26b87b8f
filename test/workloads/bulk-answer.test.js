'use strict'

// The bulk answer settled row by row, on the captured answers of CrateDB 6.4.3 (test/fixtures/).

const test = require('node:test')
const assert = require('node:assert/strict')
const { accountBulkAnswer, parseBulkAnswer } = require('../../lib/workloads/bulk-answer')
const { fixture } = require('../helpers/crate-test-double')

const answerOf = (name) => {
  const body = fixture(name).response.body
  return { ...body, duration: 1.5 }
}

test('all rows acknowledged with rowcount 1 count as inserted', () => {
  const outcome = accountBulkAnswer(3, answerOf('06-bulk-insert-ok'))
  assert.deepEqual(
    { ok: outcome.ok, failed: outcome.failed, failures: outcome.failures },
    { ok: 3, failed: 0, failures: [] }
  )
})

test('rowcount -2 under HTTP 200 is a failed row with its error', () => {
  const outcome = accountBulkAnswer(3, answerOf('41-bulk-duplicate-key'))
  assert.equal(outcome.ok, 2)
  assert.equal(outcome.failed, 1)
  assert.equal(outcome.failures[0].code, 4091)
  assert.match(outcome.failures[0].message, /DuplicateKeyException/)
  const all = accountBulkAnswer(2, answerOf('43-bulk-all-fail'))
  assert.equal(all.ok, 0)
  assert.equal(all.failed, 2)
})

test('thread-pool rejections are failed rows, not inserted rows', () => {
  const body = answerOf('48-bulk-thread-pool-rejected')
  const outcome = accountBulkAnswer(body.results.length, body)
  const expectedOk = body.results.filter((r) => r.rowcount === 1).length
  assert.equal(outcome.ok, expectedOk)
  assert.equal(outcome.failed, body.results.length - expectedOk)
  assert.ok(outcome.failures.every((f) => f.code === 5000))
})

test('missing per-row results fail the rows they do not cover', () => {
  const short = accountBulkAnswer(5, { results: [{ rowcount: 1 }, { rowcount: 1 }] })
  assert.equal(short.ok, 2)
  assert.equal(short.failed, 3)
  const none = accountBulkAnswer(4, { cols: [], rows: [[]], rowcount: 4 })
  assert.equal(none.ok, 0)
  assert.equal(none.failed, 4)
  const legacy = accountBulkAnswer(1, { results: [{ rowcount: -2 }] })
  assert.equal(legacy.failed, 1)
  assert.match(legacy.failures[0].message, /rowcount -2/)
})

test('the all-ok fast path agrees with JSON.parse on every captured bulk answer', () => {
  const names = ['06-bulk-insert-ok', '41-bulk-duplicate-key', '42-bulk-check-violation', '43-bulk-all-fail',
    '48-bulk-thread-pool-rejected', '09-bulk-insert-extra-tags']
  for (const name of names) {
    const text = JSON.stringify(answerOf(name))
    const rows = JSON.parse(text).results.length
    assert.deepEqual(
      accountBulkAnswer(rows, parseBulkAnswer(text)),
      accountBulkAnswer(rows, JSON.parse(text)),
      name
    )
  }
  const fast = parseBulkAnswer('{"cols":[],"duration":2.5,"results":[{"rowcount":1},{"rowcount":1}]}')
  assert.deepEqual(fast, { allRowsOk: 2, duration: 2.5 })
  assert.equal(accountBulkAnswer(3, fast).failed, 3 - 2)
})

test('the one-comparison all-ok path counts exactly what the entry scan and JSON.parse count', () => {
  const okEntry = '{"rowcount":1}'
  const answer = (entries, tail = ']}') => `{"cols":[],"duration":0.25,"results":[${entries.join(',')}${tail}`
  for (const rows of [0, 1, 2, 999, 10000, 10001, 3, 4, 5, 6]) {
    assert.deepEqual(parseBulkAnswer(answer(new Array(rows).fill(okEntry))), { allRowsOk: rows, duration: 0.25 })
  }
  // Same length as an all-ok answer, one row different: never counted as all ok.
  const oneFailed = new Array(1000).fill(okEntry)
  oneFailed[500] = '{"rowcount":2}'
  assert.equal(accountBulkAnswer(1000, parseBulkAnswer(answer(oneFailed))).ok, 999)
  const spaced = answer(new Array(4).fill(okEntry)).replace('}]}', '} ]}')
  assert.deepEqual(parseBulkAnswer(spaced).results.length, 4)
  // A trailing newline misses the one comparison; the entry scan still counts it.
  assert.deepEqual(parseBulkAnswer(answer(new Array(4).fill(okEntry), ']}\n')), { allRowsOk: 4, duration: 0.25 })
})

test('bare -2 rows name the error their siblings carry, in a group of their own (a bulk of duplicates)', () => {
  const duplicate = answerOf('41-bulk-duplicate-key').results.find((r) => r.rowcount === -2 && r.error)
  // As seen on 6.4.3: 27 rows with DuplicateKeyException, 3 with rowcount -2 alone.
  const results = Array.from({ length: 30 }, (_, i) => ([24, 27, 29].includes(i) ? { rowcount: -2 } : duplicate))
  const outcome = accountBulkAnswer(30, { results })
  assert.equal(outcome.ok, 0)
  assert.equal(outcome.failed, 30)
  const bare = outcome.failures.find((f) => /without error details/.test(f.message))
  assert.equal(bare.count, 3)
  assert.equal(bare.message,
    `rowcount -2 without error details; the other failed rows of the request: ${duplicate.error.message}`)
  assert.equal(outcome.failures.filter((f) => f.message === duplicate.error.message).length, 27)
})

test('malformed row results fail their rows and keep the others', () => {
  const outcome = accountBulkAnswer(4, { results: [null, { rowcount: 1 }, 5, { rowcount: 1 }] })
  assert.equal(outcome.ok, 2)
  assert.equal(outcome.failed, 2)
  assert.deepEqual(outcome.failures.map((f) => [f.code, f.count]), [['EMALFORMED', 2]])
})
