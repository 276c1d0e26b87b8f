'use strict'

// The live histogram's upper bounds in seconds, 0.5 ms to 60 s: the latencies of a point read and of a bulk of
// 10,000 rows on a loaded cluster both fall inside, with about two buckets per doubling where SLOs are set.
const BUCKETS_S = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.25, 0.4, 0.6, 1, 1.5, 2.5, 4,
  6, 10, 15, 25, 40, 60]

/**
 * An HdrHistogram of microseconds as counts per bucket (not cumulative: prom-client adds them up), its count and
 * its sum in seconds. Values are read at the HDR histogram's own precision (3 significant digits).
 */
function bucketCounts (histogram, bounds = BUCKETS_S) {
  const counts = new Array(bounds.length).fill(0)
  let count = 0
  let sum = 0
  if (histogram.totalCount > 0) {
    const it = histogram.recordedValuesIterator
    it.reset()
    while (it.hasNext()) {
      const v = it.next()
      const seconds = v.valueIteratedTo / 1e6
      const n = v.countAtValueIteratedTo
      count += n
      sum += seconds * n
      const at = bounds.findIndex((b) => seconds <= b)
      if (at >= 0) counts[at] += n
    }
  }
  return { counts, count, sum }
}

module.exports = { BUCKETS_S, bucketCounts }
