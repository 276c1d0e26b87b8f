'use strict'

const zlib = require('node:zlib')

// An encoded histogram (HdrHistogram's compressed V2, as workers send them each second) added to a histogram by its
// non-zero buckets, without building a histogram of its own: decoding built a 94 KB counts array per report and
// label, twice (the totals, the timeline), and adding walked all 23,552 buckets of it. At a dashboard's 50 queries a
// second that fixed cost per second came to a millisecond of CPU per query.

const V2_COMPRESSED_COOKIE_BASE = 0x1c849304
const V2_COOKIE_BASE = 0x1c849303
const HEADER_BYTES = 40

// The last reports' decoded counts: a report is added to the totals and then to the timeline.
const RECENT = new Map()
const RECENT_MAX = 256

/**
 * The non-zero buckets of an encoded histogram: { indexes, counts, total, digits, lowest }, or null when it is not the
 * V2 encoding. Bucket indexes are the counts array's, valid for a histogram of the same lowest value and digits.
 */
function decodeCounts (encoded) {
  const known = RECENT.get(encoded)
  if (known) return known
  const outer = Buffer.from(encoded.trim(), 'base64')
  if ((outer.readInt32BE(0) & ~0xf0) !== V2_COMPRESSED_COOKIE_BASE) return null
  const data = zlib.inflateSync(outer.subarray(8, 8 + outer.readInt32BE(4)))
  if ((data.readInt32BE(0) & ~0xf0) !== V2_COOKIE_BASE) return null
  const payloadBytes = data.readInt32BE(4)
  const digits = data.readInt32BE(12)
  const lowest = Number(data.readBigInt64BE(16))
  const indexes = []
  const counts = []
  let total = 0
  let index = 0
  let pos = HEADER_BYTES
  const end = HEADER_BYTES + payloadBytes
  while (pos < end) {
    // ZigZag LEB128 in at most nine bytes, the ninth with all eight bits (HdrHistogram's V2 word).
    let value = 0
    let scale = 1
    for (let byte = 0; byte < 9; byte++) {
      const b = data[pos++]
      if (byte === 8) {
        value += b * scale
        break
      }
      value += (b & 0x7f) * scale
      if ((b & 0x80) === 0) break
      scale *= 128
    }
    const count = value % 2 === 0 ? value / 2 : -(value + 1) / 2
    if (count < 0) {
      index -= count
    } else {
      if (count > 0) {
        indexes.push(index)
        counts.push(count)
        total += count
      }
      index++
    }
  }
  const decoded = { indexes, counts, total, digits, lowest }
  if (RECENT.size >= RECENT_MAX) RECENT.clear()
  RECENT.set(encoded, decoded)
  return decoded
}

/**
 * Adds decoded counts to `target` (an autoResize JsHistogram of the same lowest value and digits) as the library's
 * add() would: counts, total, and the maximum and minimum at their buckets' edges, as its decoder sets them.
 * Returns false when the encodings do not match (the caller decodes the slow way).
 */
function addCounts (target, decoded) {
  if (decoded.digits !== target.numberOfSignificantValueDigits || decoded.lowest !== target.lowestDiscernibleValue) {
    return false
  }
  const { indexes, counts } = decoded
  if (indexes.length === 0) return true
  const maxIndex = indexes[indexes.length - 1]
  const maxValue = target.highestEquivalentValue(target.valueFromIndex(maxIndex))
  if (maxIndex >= target.countsArrayLength) target.resize(maxValue)
  for (let i = 0; i < indexes.length; i++) target.addToCountAtIndex(indexes[i], counts[i])
  target.setTotalCount(target.totalCount + decoded.total)
  if (maxValue > target.maxValue) target.updatedMaxValue(maxValue)
  // The decoder's minimum skips bucket 0 (values below the lowest discernible one), as the library's does.
  const minIndex = indexes[0] !== 0 ? indexes[0] : indexes[1]
  if (minIndex !== undefined) {
    const minValue = target.valueFromIndex(minIndex)
    if (minValue < target.minNonZeroValue) target.updateMinNonZeroValue(minValue)
  }
  return true
}

module.exports = { decodeCounts, addCounts }
