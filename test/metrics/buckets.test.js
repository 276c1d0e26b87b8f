'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { bucketCounts, BUCKETS_S } = require('../../lib/metrics/buckets')
const { newHistogram, recordMicros } = require('../../lib/results/stats')

/** The same figures read with hdr-histogram-js's own recorded-values iterator. */
function byIterator (histogram) {
  const counts = new Array(BUCKETS_S.length).fill(0)
  let count = 0
  let sum = 0
  const it = histogram.recordedValuesIterator
  it.reset()
  while (it.hasNext()) {
    const v = it.next()
    const seconds = v.valueIteratedTo / 1e6
    count += v.countAtValueIteratedTo
    sum += seconds * v.countAtValueIteratedTo
    const at = BUCKETS_S.findIndex((b) => seconds <= b)
    if (at >= 0) counts[at] += v.countAtValueIteratedTo
  }
  return { counts, count, sum }
}

test('counts per bucket read from the histogram\'s counts equal the recorded-values iterator\'s, to the bucket', () => {
  let seed = 7
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31)
  for (const spread of [1e3, 1e5, 1e7, 2e8]) {
    const histogram = newHistogram()
    // Bounds themselves, values just above them, and a spread of others (beyond 60 s too).
    for (const bound of BUCKETS_S) {
      recordMicros(histogram, bound * 1e6)
      recordMicros(histogram, bound * 1e6 + 1)
    }
    for (let i = 0; i < 5000; i++) recordMicros(histogram, 1 + random() * spread)
    const fast = bucketCounts(histogram)
    const reference = byIterator(histogram)
    assert.deepEqual(fast.counts, reference.counts, `spread ${spread}`)
    assert.equal(fast.count, reference.count)
    assert.ok(Math.abs(fast.sum - reference.sum) < 1e-6 * reference.sum)
  }
  assert.deepEqual(bucketCounts(newHistogram()), { counts: new Array(BUCKETS_S.length).fill(0), count: 0, sum: 0 })
})
