'use strict'

// Latency histograms: how they are made, recorded, encoded for the trip between processes, merged and summed up.

// Of hdr-histogram-js, only the histogram class this tool builds and its encoding: the package's index (and even its
// HistogramBuilder) loads every histogram type, the WebAssembly build and the log reader and writer, which cost
// every process 30 ms of CPU at start-up. Int32Histogram is what build() makes with its default bucket size.
const Int32Histogram = require('hdr-histogram-js/dist/Int32Histogram').default
// Adds encodeIntoCompressedBase64 to every histogram; exports the decoding.
const { decompress, doDecode } = require('hdr-histogram-js/dist/JsHistogram.encoding')
const { decodeCounts, addCounts } = require('./histogram-counts')

// Latencies are recorded in microseconds, 3 significant digits, up to one hour.
const HISTOGRAM_OPTIONS = Object.freeze({
  lowestDiscernibleValue: 1,
  highestTrackableValue: 3_600_000_000,
  numberOfSignificantValueDigits: 3
})

function newHistogram () {
  const { lowestDiscernibleValue, highestTrackableValue, numberOfSignificantValueDigits } = HISTOGRAM_OPTIONS
  const histogram = new Int32Histogram(lowestDiscernibleValue, highestTrackableValue, numberOfSignificantValueDigits)
  histogram.autoResize = true
  return histogram
}

/** A histogram from HdrHistogram's compressed base64 encoding (V2), read as the package's decoder reads it. */
function decodeHistogram (encoded) {
  return doDecode(decompress(Buffer.from(encoded.trim(), 'base64')), 32)
}

function recordMicros (histogram, micros) {
  histogram.recordValue(Math.min(HISTOGRAM_OPTIONS.highestTrackableValue, Math.max(1, Math.round(micros))))
}

// Histograms cross the process boundary in HdrHistogram's compressed encoding, so the master
// merges the exact bucket counts of every worker instead of averaging percentiles.
function encodeHistogram (histogram) {
  return histogram.totalCount === 0 ? null : histogram.encodeIntoCompressedBase64()
}

/** Adds an encoded histogram to `target` by its non-zero buckets (lib/results/histogram-counts.js). */
function addEncoded (target, encoded) {
  if (!encoded) return
  const decoded = decodeCounts(encoded)
  if (!decoded || !addCounts(target, decoded)) target.add(decodeHistogram(encoded))
}

/**
 * Histograms in HdrHistogram's encoding merged into one (exact, never an average of percentiles), and its summary
 * with percentiles capped at the highest of the exact maxima given in ms (those that are numbers).
 */
function mergedSummary (encodedList, maxMsList = []) {
  const histogram = newHistogram()
  for (const encoded of encodedList) addEncoded(histogram, encoded)
  const maxima = maxMsList.filter((v) => typeof v === 'number')
  return { histogram, summary: latencySummary(histogram, maxima.length > 0 ? Math.max(...maxima) * 1000 : null) }
}

const round3 = (x) => Math.round(x * 1000) / 1000

/**
 * Percentiles in milliseconds; all null when nothing was recorded. A merged histogram knows its
 * maximum only to bucket precision, so callers pass the exact maximum they tracked.
 */
function latencySummary (histogram, exactMaxMicros = null) {
  const empty = histogram.totalCount === 0
  const maxMicros = exactMaxMicros ?? histogram.maxValue
  // A percentile is reported at its bucket's upper edge, which can lie above the exact maximum:
  // no percentile is allowed to exceed what was actually measured.
  const at = (p) => (empty ? null : round3(Math.min(histogram.getValueAtPercentile(p), maxMicros) / 1000))
  return {
    p50: at(50),
    p90: at(90),
    p95: at(95),
    p99: at(99),
    p999: at(99.9),
    max: empty ? null : round3(maxMicros / 1000),
    mean: empty ? null : round3(meanOf(histogram) / 1000)
  }
}

/**
 * The histogram's mean exactly as hdr-histogram-js's `mean` computes it (each recorded bucket at its median-equivalent
 * value, in index order), without its iterator: that getter allocates an object per bucket and took ~15 ms of the
 * master's CPU per report.
 */
function meanOf (histogram) {
  let total = 0
  // Nothing lies above the maximum's bucket: the walk ends there, not at the array's 23,552nd bucket.
  const last = Math.min(histogram.countsArrayLength - 1, histogram.countsArrayIndex(histogram.maxValue))
  for (let index = 0; index <= last; index++) {
    const count = histogram.getCountAtIndex(index)
    if (count > 0) total += histogram.medianEquivalentValue(histogram.valueFromIndex(index)) * count
  }
  return total / histogram.totalCount
}

module.exports = {
  HISTOGRAM_OPTIONS,
  newHistogram,
  decodeHistogram,
  recordMicros,
  encodeHistogram,
  addEncoded,
  mergedSummary,
  latencySummary,
  meanOf
}
