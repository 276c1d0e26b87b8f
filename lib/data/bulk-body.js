'use strict'

const { PgBatchFrame, SYNC } = require('./pg-batch-rows')

const COMMA = 0x2c
const JSON_SUFFIX = Buffer.from(']}')

/**
 * Request bodies for bulk INSERTs, written in place into reused buffers, in the encoding the transport takes:
 *   json      {"stmt":"INSERT ...","bulk_args":[ <rows> ]}, the HTTP endpoint's
 *   pg-batch  Parse, then Bind and Execute per row, then Sync: a JDBC batch over the PostgreSQL protocol
 *             (lib/data/pg-batch-rows.js), when the row writer writes those (writeBatchRows); JSON otherwise, which
 *             the transport frames itself
 * A row writer fills rows at a byte offset (writeRows(buffer, offset, count) -> end) and names the most bytes one
 * row can take (maxRowBytes). Buffers are sized from the bytes per row seen so far rather than the worst case,
 * because with 20 requests in flight of 10,000 rows each the buffers are most of the client's memory.
 */
class BulkBodyPool {
  constructor ({ stmt, rowWriter, initialBytesPerRow, encoding = 'json', columns = 0 }) {
    this.rowWriter = rowWriter
    this.frame = encoding === 'pg-batch' && rowWriter.writeBatchRows ? new PgBatchFrame(stmt, columns) : null
    if (this.frame) {
      this.prefix = this.frame.parse
      this.suffix = SYNC
      this.maxRowBytes = rowWriter.maxRowBytes + this.frame.rowOverhead
    } else {
      this.prefix = Buffer.from(`{"stmt":${JSON.stringify(stmt)},"bulk_args":[`)
      this.suffix = JSON_SUFFIX
      this.maxRowBytes = rowWriter.maxRowBytes
    }
    this.bytesPerRow = Math.min(initialBytesPerRow || rowWriter.maxRowBytes, rowWriter.maxRowBytes) +
      (this.maxRowBytes - rowWriter.maxRowBytes)
    this.free = []
  }

  /** The encoding its bodies are in: pg-batch only when the row writer writes those. */
  get encoding () {
    return this.frame ? 'pg-batch' : 'json'
  }

  /** A body of `rows` fresh rows; hand it back with release() once its answer arrived. */
  take (rows) {
    const maxRow = this.maxRowBytes
    const tail = this.suffix.length + 1
    const wanted = this.prefix.length + Math.ceil(rows * this.bytesPerRow * 1.01) + 2 * maxRow + tail
    let buffer = this.free.pop()
    if (!buffer || buffer.length < wanted) buffer = Buffer.allocUnsafe(wanted)
    let pos = this.prefix.copy(buffer, 0)
    let left = rows
    while (left > 0) {
      const room = Math.floor((buffer.length - pos - tail) / maxRow)
      if (room === 0) {
        const bigger = Buffer.allocUnsafe(Math.ceil(buffer.length * 1.1) + 2 * maxRow)
        buffer.copy(bigger, 0, 0, pos)
        buffer = bigger
        continue
      }
      const n = Math.min(room, left)
      if (this.frame) {
        pos = this.rowWriter.writeBatchRows(buffer, pos, n, this.frame)
      } else {
        if (left < rows) buffer[pos++] = COMMA
        pos = this.rowWriter.writeRows(buffer, pos, n)
      }
      left -= n
    }
    if (rows > 0) this.bytesPerRow = Math.max(this.bytesPerRow, (pos - this.prefix.length) / rows)
    pos += this.suffix.copy(buffer, pos)
    return { body: buffer.subarray(0, pos), buffer }
  }

  release (buffer) {
    this.free.push(buffer)
  }
}

module.exports = { BulkBodyPool }
