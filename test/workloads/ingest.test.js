'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const ingest = require('../../lib/workloads/ingest')
const { parseOptions } = require('../../lib/cli/options')


test('the source sends exactly max_rows rows, the last batch smaller, fresh rows each time', () => {
  const options = parseOptions(ingest, ['--max_rows', '25', '--batch_size', '10', '--seed', '3', '--scale', '1000'], {})
  const source = ingest.createSource(options, { workerIndex: 0, workerCount: 1 })
  const batches = []
  let request
  while ((request = source.next()) !== null) {
    const body = JSON.parse(request.body.toString())
    assert.equal(body.bulk_args.length, request.units)
    assert.match(body.stmt, /^INSERT INTO "doc"."cpu" \("tags", "ts", "usage_user"/)
    batches.push(body.bulk_args)
    source.release(request)
  }
  assert.deepEqual(batches.map((b) => b.length), [10, 10, 5])
  const keys = new Set(batches.flat().map(([tags, ts]) => `${tags.hostname}|${ts}`))
  assert.equal(keys.size, 25)
})

test('a dead worker\'s unheard rows are bounded by its request slots turning over at its quickest answer, for the ' +
  'time the master heard nothing from it', async () => {
  const options = parseOptions(ingest, ['--batch_size', '100', '--concurrent_requests', '2'], {})
  // 10,000 acknowledged, 200 in doubt; the worker killed sent 7,700 more the master never heard of. Its average pace
  // (5,000 rows in 2.5 s, slow at its start) would allow 2,000 rows/s; its slots answered within 20 ms at best.
  const client = { sql: async (stmt) => (/^SELECT count/.test(stmt) ? { rows: [[17_900]] } : { rows: [],
    rowcount: 1 }) }
  const totals = { unitsSent: 10_200, all: { ok: 10_000, failed: 0 }, warmup: { ok: 0, failed: 0 } }
  const finishWith = (silentS, fastestAnswerMs) => ingest.finish({ client, options, prepared: { created: ['doc.cpu'] },
    totals, lostWorkers: [{ index: 1, unitsSent: 5000, seconds: 2.5, silentS, fastestAnswerMs }], log: () => {} })
  const late = (await finishWith(1.1, 20)).reconciliation
  assert.deepEqual([late.verdict, late.excess, late.unreported], ['above', 7700, { workers: [1], bound: 11_200 }],
    '2 slots of 100 rows, 55 answers each in 1.1 s and one in flight')
  const prompt = (await finishWith(0.2, 20)).reconciliation
  assert.equal(prompt.unreported.bound, 10_200, 'a report interval at least: 50 answers a slot in 1 s, one in flight')
  const unanswered = (await finishWith(3.5, null)).reconciliation
  assert.equal(unanswered.unreported.bound, 7200, 'no answer yet: its pace, 2,000 rows/s for 3.5 s, and 200 in flight')
})
