'use strict'

const { Random } = require('../../base/random')
const { hostTags, maxHostTagsBytes, HostTable, TAG_NAMES } = require('./tsbs-hosts')
const { withLength } = require('../pg-batch-rows')

const USAGE_COLUMNS = [
  'usage_user', 'usage_system', 'usage_idle', 'usage_nice', 'usage_iowait',
  'usage_irq', 'usage_softirq', 'usage_steal', 'usage_guest', 'usage_guest_nice'
]
const INSERT_COLUMNS = ['tags', 'ts', ...USAGE_COLUMNS]
const METRICS_PER_ROW = USAGE_COLUMNS.length

const COMMA = 0x2c
const OPEN = 0x5b
const CLOSE = 0x5d
const ZERO = 0x30
// Room for "," + the longest timestamp we render, and ten ",100" values, plus brackets.
const FIXED_ROW_BYTES = 2 + 21 + METRICS_PER_ROW * 4 + 1

function columnDefinitions () {
  const tagColumns = TAG_NAMES.map((name) => `"${name}" TEXT`).join(', ')
  return [
    `"tags" OBJECT(DYNAMIC) AS (${tagColumns})`,
    '"ts" TIMESTAMP WITH TIME ZONE',
    ...USAGE_COLUMNS.map((name) => `"${name}" INTEGER`)
  ]
}

/**
 * Rows of the TSBS cpu-only data set for one worker, written straight into a request buffer as
 * the JSON of bulk_args entries: building strings and re-encoding them cost several times more
 * CPU per row than the whole rest of the client.
 *
 * Row k of worker w has the global index i = k * workers + w; host = i mod scale and
 * step = floor(i / scale), so ts = start + step * interval. The mapping i -> (host, ts) is a
 * bijection, which makes every row of a run unique on (hostname, ts) across all workers without
 * any coordination, and each host's timestamps advance by exactly one interval.
 */
class CpuRowGenerator {
  constructor ({ seed, scale, workerIndex, workerCount, startMs, intervalMs, extraTagsLength = 0 }) {
    this.scale = scale
    this.stride = workerCount
    this.startMs = startMs
    this.intervalMs = intervalMs
    this.index = workerIndex
    this.random = new Random(seed, 'rows', workerIndex)
    // Built on first use: start-up does not grow with --scale.
    this.hosts = new HostTable(scale, (h) => Buffer.from(JSON.stringify(hostTags(seed, h, extraTagsLength))))
    this.maxRowBytes = maxHostTagsBytes(scale, extraTagsLength) + FIXED_ROW_BYTES
    const spread = this.hosts.spread()
    const meanTags = spread.reduce((sum, tags) => sum + tags.length, 0) / spread.length
    // A 13-digit timestamp and ten two-digit values, on average.
    this.typicalRowBytes = meanTags + 2 + 14 + METRICS_PER_ROW * 3 + 1
    this.cachedStep = -1
    this.cachedTs = null
    // The same rows as values of a Bind (writeBatchRows): each value its length, then its text.
    this.hostCells = null
    this.cachedCellStep = -1
    this.cachedTsCell = null
  }

  /**
   * Writes the next `count` rows, comma-separated, into `buffer` at `offset` and returns the offset
   * after the last byte. The buffer must hold count * maxRowBytes bytes from offset on.
   */
  writeRows (buffer, offset, count) {
    const random = this.random
    const hosts = this.hosts
    let pos = offset
    for (let n = 0; n < count; n++) {
      const i = this.index
      this.index = i + this.stride
      const step = Math.floor(i / this.scale)
      if (step !== this.cachedStep) {
        this.cachedStep = step
        this.cachedTs = Buffer.from(`,${this.startMs + step * this.intervalMs}`)
      }
      if (n > 0) buffer[pos++] = COMMA
      buffer[pos++] = OPEN
      const host = hosts.get(i % this.scale)
      buffer.set(host, pos)
      pos += host.length
      buffer.set(this.cachedTs, pos)
      pos += this.cachedTs.length
      // Each usage value is uniform in 0..100: 16 random bits scaled to 101 buckets, two per draw.
      for (let pair = 0; pair < METRICS_PER_ROW / 2; pair++) {
        const bits = random.nextUint32()
        pos = writeUsage(buffer, pos, ((bits & 0xffff) * 101) >>> 16)
        pos = writeUsage(buffer, pos, ((bits >>> 16) * 101) >>> 16)
      }
      buffer[pos++] = CLOSE
    }
    return pos
  }

  /**
   * The next `count` rows as Bind and Execute messages of `frame` (lib/data/pg-batch-rows.js): the same rows
   * writeRows would write, each value in text format (the tags as their JSON). A loop of its own rather than a
   * writer passed to one loop: this is the per-row path whose cost the bench holds to a ratio of HTTP's.
   */
  writeBatchRows (buffer, offset, count, frame) {
    const random = this.random
    if (this.hostCells === null) {
      const json = this.hosts
      this.hostCells = new HostTable(this.scale, (h) => withLength(json.get(h)))
    }
    const hosts = this.hostCells
    let pos = offset
    for (let n = 0; n < count; n++) {
      const i = this.index
      this.index = i + this.stride
      const step = Math.floor(i / this.scale)
      if (step !== this.cachedCellStep) {
        this.cachedCellStep = step
        this.cachedTsCell = withLength(Buffer.from(String(this.startMs + step * this.intervalMs)))
      }
      const start = pos
      pos = frame.openRow(buffer, pos)
      const host = hosts.get(i % this.scale)
      buffer.set(host, pos)
      pos += host.length
      buffer.set(this.cachedTsCell, pos)
      pos += this.cachedTsCell.length
      for (let pair = 0; pair < METRICS_PER_ROW / 2; pair++) {
        const bits = random.nextUint32()
        pos = writeUsageCell(buffer, pos, ((bits & 0xffff) * 101) >>> 16)
        pos = writeUsageCell(buffer, pos, ((bits >>> 16) * 101) >>> 16)
      }
      pos = frame.closeRow(buffer, start, pos)
    }
    return pos
  }

  /** The next `count` rows as the JSON text of bulk_args entries. */
  nextRowsJson (count) {
    const buffer = Buffer.allocUnsafe(Math.max(1, count * this.maxRowBytes))
    return buffer.toString('latin1', 0, this.writeRows(buffer, 0, count))
  }

  /** The next `count` rows as arrays; for tests and for callers that want values. */
  nextRows (count) {
    return JSON.parse(`[${this.nextRowsJson(count)}]`)
  }
}

// "," then 0..100 in decimal.
function writeUsage (buffer, pos, value) {
  buffer[pos++] = COMMA
  if (value >= 100) {
    buffer[pos++] = ZERO + 1
    buffer[pos++] = ZERO
    buffer[pos++] = ZERO
  } else if (value >= 10) {
    buffer[pos++] = ZERO + ((value / 10) | 0)
    buffer[pos++] = ZERO + (value % 10)
  } else {
    buffer[pos++] = ZERO + value
  }
  return pos
}

// 0..100 as a Bind value: its length (1 to 3), then its digits.
function writeUsageCell (buffer, pos, value) {
  buffer[pos++] = 0
  buffer[pos++] = 0
  buffer[pos++] = 0
  if (value >= 100) {
    buffer[pos++] = 3
    buffer[pos++] = ZERO + 1
    buffer[pos++] = ZERO
    buffer[pos++] = ZERO
  } else if (value >= 10) {
    buffer[pos++] = 2
    buffer[pos++] = ZERO + ((value / 10) | 0)
    buffer[pos++] = ZERO + (value % 10)
  } else {
    buffer[pos++] = 1
    buffer[pos++] = ZERO + value
  }
  return pos
}

module.exports = { CpuRowGenerator, INSERT_COLUMNS, USAGE_COLUMNS, METRICS_PER_ROW, columnDefinitions }
