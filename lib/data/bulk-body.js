'use strict'

const COMMA = 0x2c

/**
 * Request bodies for bulk INSERTs, written in place into reused buffers:
 *   {"stmt":"INSERT ...","bulk_args":[ <rows> ]}
 * A row writer fills rows at a byte offset (writeRows(buffer, offset, count) -> end) and names
 * the most bytes one row can take (maxRowBytes). Buffers are sized from the bytes per row seen
 * so far rather than the worst case, because with 20 requests in flight of 10,000 rows each the
 * buffers are most of the client's memory.
 */
class BulkBodyPool {
  constructor ({ stmt, rowWriter, initialBytesPerRow }) {
    this.prefix = Buffer.from(`{"stmt":${JSON.stringify(stmt)},"bulk_args":[`)
    this.rowWriter = rowWriter
    this.bytesPerRow = Math.min(initialBytesPerRow || rowWriter.maxRowBytes, rowWriter.maxRowBytes)
    this.free = []
  }

  /** A body of `rows` fresh rows; hand it back with release() once its answer arrived. */
  take (rows) {
    const maxRow = this.rowWriter.maxRowBytes
    const wanted = this.prefix.length + Math.ceil(rows * this.bytesPerRow * 1.01) + 2 * maxRow + 2
    let buffer = this.free.pop()
    if (!buffer || buffer.length < wanted) buffer = Buffer.allocUnsafe(wanted)
    let pos = this.prefix.copy(buffer, 0)
    let left = rows
    while (left > 0) {
      const room = Math.floor((buffer.length - pos - 3) / maxRow)
      if (room === 0) {
        const bigger = Buffer.allocUnsafe(Math.ceil(buffer.length * 1.1) + 2 * maxRow)
        buffer.copy(bigger, 0, 0, pos)
        buffer = bigger
        continue
      }
      const n = Math.min(room, left)
      if (left < rows) buffer[pos++] = COMMA
      pos = this.rowWriter.writeRows(buffer, pos, n)
      left -= n
    }
    if (rows > 0) this.bytesPerRow = Math.max(this.bytesPerRow, (pos - this.prefix.length) / rows)
    buffer[pos++] = 0x5d // ]
    buffer[pos++] = 0x7d // }
    return { body: buffer.subarray(0, pos), buffer }
  }

  release (buffer) {
    this.free.push(buffer)
  }
}

module.exports = { BulkBodyPool }
