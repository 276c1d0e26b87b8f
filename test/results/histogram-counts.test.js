'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { newHistogram, decodeHistogram, encodeHistogram, addEncoded, latencySummary,
  Series } = require('../../lib/results/stats')
const { decodeCounts, addCounts } = require('../../lib/results/histogram-counts')

/** A seeded generator: the same histograms every run. */
function random (seed) {
  let state = seed
  return () => (state = (state * 16807) % 2147483647) / 2147483647
}

test('an encoded histogram added by its non-zero buckets gives exactly what decoding and add() give', () => {
  const next = random(7)
  for (let trial = 0; trial < 100; trial++) {
    const encoded = []
    for (let k = 0; k < 4; k++) {
      const h = newHistogram()
      // From 1 µs to past the one hour the histograms are made for (they grow): every bucket range.
      for (let i = Math.floor(next() * 200); i > 0; i--) h.recordValue(Math.max(1, Math.round(Math.exp(next() * 22.5))))
      encoded.push(encodeHistogram(h))
    }
    const slow = newHistogram()
    const fast = newHistogram()
    for (const e of encoded) {
      if (e) slow.add(decodeHistogram(e))
      addEncoded(fast, e)
    }
    assert.deepEqual([fast.totalCount, fast.maxValue, fast.minNonZeroValue, fast.countsArrayLength],
      [slow.totalCount, slow.maxValue, slow.minNonZeroValue, slow.countsArrayLength], `trial ${trial}`)
    assert.deepEqual(latencySummary(fast), latencySummary(slow))
    for (let i = 0; i < slow.countsArrayLength; i++) assert.equal(fast.getCountAtIndex(i), slow.getCountAtIndex(i))
  }
})

test('the buckets of an encoding: indexes and counts, zero runs skipped; another layout is refused', () => {
  const h = newHistogram()
  for (const v of [5, 5, 5, 1000, 2_000_000]) h.recordValue(v)
  const decoded = decodeCounts(encodeHistogram(h))
  assert.equal(decoded.total, 5)
  assert.deepEqual(decoded.counts, [3, 1, 1])
  assert.deepEqual(decoded.indexes, [5, 1000, h.countsArrayIndex(2_000_000)])
  const Int32Histogram = require('hdr-histogram-js/dist/Int32Histogram').default
  const twoDigits = new Int32Histogram(1, 3_600_000_000, 2)
  assert.equal(addCounts(twoDigits, decoded), false, 'a histogram of other digits is added the slow way')
  assert.equal(decodeCounts(Buffer.from('not a histogram').toString('base64')), null)
})

test('a series emptied for reuse is as a new one', () => {
  const s = new Series()
  s.ok = 3
  s.recordLatency(1500)
  s.recordServer(700)
  s.reset()
  assert.deepEqual([s.ok, s.latency.totalCount, s.server.totalCount, s.latencyMax, s.serverMax], [0, 0, 0, 0, 0])
  assert.deepEqual(s.toDelta(), new Series().toDelta())
  const latencyOnly = new Series({ withServer: false })
  latencyOnly.recordServer(700)
  assert.equal(latencyOnly.toDelta().server, null)
})
