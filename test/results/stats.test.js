'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const {
  Recorder, Totals, ErrorGroups, errorPattern, newHistogram, recordMicros, latencySummary, MAX_ERROR_GROUPS,
  encodeHistogram, decodeHistogram
} = require('../../lib/results/stats')
const { fixture } = require('../helpers/crate-test-double')

test('histograms merged from worker deltas equal one histogram of all values', () => {
  const reference = newHistogram()
  let referenceMax = 0
  const totals = new Totals()
  for (let worker = 0; worker < 3; worker++) {
    const recorder = new Recorder()
    for (let i = 1; i <= 1000; i++) {
      const micros = (worker + 1) * i * 37
      recordMicros(reference, micros)
      referenceMax = Math.max(referenceMax, micros)
      recorder.sent(1, 1000 + i)
      recorder.answered({ label: 'q', units: 1, ok: 1, failed: 0, latencyMicros: micros, at: 2000 + i })
      if (i % 250 === 0) totals.addDelta(recorder.takeDelta())
    }
  }
  assert.equal(totals.all.latency.totalCount, 3000)
  assert.deepEqual(totals.all.latencySummary(), latencySummary(reference, referenceMax))
  assert.equal(totals.all.latencySummary().max, referenceMax / 1000)
  assert.equal(totals.all.ok, 3000)
  assert.equal(totals.unitsSent, 3000)
})

test('no percentile exceeds the exact maximum, though HDR buckets round up', () => {
  const h = newHistogram()
  for (let i = 0; i < 100; i++) recordMicros(h, 23_943)
  const summary = latencySummary(h, 23_943)
  assert.ok(h.getValueAtPercentile(99) > 23_943, 'the bucket edge lies above the value')
  assert.equal(summary.p99, 23.943)
  assert.equal(summary.max, 23.943)
})

test("the mean is hdr-histogram's own, from buckets across the whole range, decoded or not", () => {
  const { Random } = require('../../lib/base/random')
  const random = new Random(7, 'mean')
  const h = newHistogram()
  for (let i = 0; i < 5000; i++) recordMicros(h, 1 + random.int(2 ** (1 + (i % 31))))
  const mean = Math.round((h.mean / 1000) * 1000) / 1000
  assert.equal(latencySummary(h).mean, mean)
  assert.ok(mean > 0)
  const decoded = decodeHistogram(encodeHistogram(h))
  assert.equal(latencySummary(decoded).mean, mean)
})

test('the window runs from the first send to the last answer of any worker', () => {
  const totals = new Totals()
  const a = new Recorder()
  a.sent(1, 100)
  a.answered({ label: 'x', units: 1, ok: 1, failed: 0, latencyMicros: 1, at: 900 })
  const b = new Recorder()
  b.sent(1, 50)
  b.answered({ label: 'x', units: 1, ok: 1, failed: 0, latencyMicros: 1, at: 2050 })
  totals.addDelta(a.takeDelta())
  totals.addDelta(b.takeDelta())
  assert.equal(totals.seconds, 2)
})

test('CrateDB messages that differ only in ids and values fall into one group', () => {
  const rejected = fixture('48-bulk-thread-pool-rejected').response.body.results
  const groups = new ErrorGroups()
  for (const r of rejected.filter((x) => x.error))
    groups.add({ code: r.error.code, status: 200, message: r.error.message })
  const check = fixture('43-bulk-all-fail').response.body.results
  for (const r of check) groups.add({ code: r.error.code, status: 200, message: r.error.message })
  const list = groups.toJSON()
  assert.equal(list.length, 2)
  assert.equal(list.find((g) => g.code === 5000).count, rejected.filter((x) => x.error).length)
  assert.equal(list.find((g) => g.code === 4000).count, 2)
  assert.equal(list.find((g) => g.code === 4000).sample, check[0].error.message)
  assert.notEqual(errorPattern('DuplicateKeyException[A document with the same primary key exists already]'),
    errorPattern('SQLParseException[x]'))
})

test('different codes never share a group', () => {
  const groups = new ErrorGroups()
  groups.add({ code: 4000, message: 'same' })
  groups.add({ code: 4091, message: 'same' })
  groups.add({ code: 4091, message: 'same' }, 5)
  assert.deepEqual(groups.toJSON().map((g) => [g.code, g.count]), [[4091, 6], [4000, 1]])
})

test('error groups are bounded: past the limit, new kinds of error add up in one group per outcome', () => {
  const groups = new ErrorGroups()
  const kind = (i) => `error ${i.toString(26).replace(/\d/g, (d) => 'qrstuvwxyz'[d])}` // letters only: never masked
  for (let i = 0; i < 5 * MAX_ERROR_GROUPS; i++) groups.add({ code: 5000, message: kind(i), inDoubt: i % 2 === 0 })
  const list = groups.toJSON()
  assert.ok(list.length <= MAX_ERROR_GROUPS + 2, `${list.length} groups`)
  assert.equal(list.reduce((sum, g) => sum + g.count, 0), 5 * MAX_ERROR_GROUPS, 'every error is still counted')
  const overflow = list.filter((g) => /other errors/.test(g.message))
  assert.deepEqual(overflow.map((g) => g.in_doubt).sort(), [false, true])
  // Merging keeps the bound too (the master merges every worker's groups).
  const merged = new ErrorGroups()
  merged.merge(list)
  merged.merge(list)
  assert.ok(merged.size <= MAX_ERROR_GROUPS + 2)
  assert.equal(merged.toJSON().reduce((sum, g) => sum + g.count, 0), 10 * MAX_ERROR_GROUPS)
})

test('a steady warm-up ended early: answers from then on are measured and the window starts there', () => {
  let time = 1000
  const recorder = new Recorder({ now: () => time, warmupUntil: 61_000 })
  recorder.sent(10, 1000)
  recorder.answered({ label: 'x', units: 10, ok: 10, failed: 0, latencyMicros: 5000, at: 5000 })
  assert.equal(recorder.endWarmup(20_000), true)
  assert.equal(recorder.endWarmup(30_000), false, 'it ends once, never later')
  recorder.sent(10, 20_500)
  recorder.answered({ label: 'x', units: 10, ok: 10, failed: 0, latencyMicros: 5000, at: 21_000 })
  time = 22_000
  const delta = recorder.takeDelta()
  assert.deepEqual([delta.warmup.ok, delta.series.x.ok, delta.firstSentAt], [10, 10, 20_000])
  assert.equal(new Recorder({ warmupUntil: null }).endWarmup(5), false, 'no warm-up: nothing to end')
})
