'use strict'

// The live histogram's upper bounds in seconds, 0.5 ms to 60 s: the latencies of a point read and of a bulk of
// 10,000 rows on a loaded cluster both fall inside, with about two buckets per doubling where SLOs are set.
const BUCKETS_S = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.25, 0.4, 0.6, 1, 1.5, 2.5, 4,
  6, 10, 15, 25, 40, 60]

/**
 * An HdrHistogram of microseconds as counts per bucket (not cumulative: prom-client adds them up), its count and
 * its sum in seconds. Values are read at the HDR histogram's own precision (3 significant digits): each recorded
 * bucket at its highest equivalent value, as hdr-histogram-js's recorded-values iterator gives it, read from the
 * counts themselves (that iterator allocates an object per bucket: most of a scrape's CPU).
 */
function bucketCounts (histogram, bounds = BUCKETS_S) {
  const counts = new Array(bounds.length).fill(0)
  let count = 0
  let sum = 0
  if (histogram.totalCount > 0) {
    let at = 0
    for (let index = 0; index < histogram.countsArrayLength; index++) {
      const n = histogram.getCountAtIndex(index)
      if (n === 0) continue
      const seconds = histogram.highestEquivalentValue(histogram.valueFromIndex(index)) / 1e6
      count += n
      sum += seconds * n
      // Values come in increasing order: the bucket only moves up.
      while (at < bounds.length && seconds > bounds[at]) at++
      if (at < bounds.length) counts[at] += n
    }
  }
  return { counts, count, sum }
}

module.exports = { BUCKETS_S, bucketCounts }
