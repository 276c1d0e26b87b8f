'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { BulkBodyPool } = require('../../lib/data/bulk-body')

// Rows of varying width, so the pool has to grow when its estimate is too small.
function rowWriter () {
  let n = 0
  return {
    maxRowBytes: 40,
    writeRows (buffer, offset, count) {
      let pos = offset
      for (let i = 0; i < count; i++) {
        if (i > 0) buffer[pos++] = 0x2c
        pos += buffer.write(JSON.stringify([n, 'x'.repeat(n % 30)]), pos, 'latin1')
        n++
      }
      return pos
    }
  }
}

test('bodies are valid JSON with every row, in order, also after growing', () => {
  const pool = new BulkBodyPool({ stmt: 'INSERT INTO t (a, b) VALUES (?, ?)', rowWriter: rowWriter(),
    initialBytesPerRow: 5 })
  let expected = 0
  for (const rows of [1, 7, 100, 1000, 3]) {
    const { body, buffer } = pool.take(rows)
    const parsed = JSON.parse(body.toString('latin1'))
    assert.equal(parsed.stmt, 'INSERT INTO t (a, b) VALUES (?, ?)')
    assert.equal(parsed.bulk_args.length, rows)
    for (const [n] of parsed.bulk_args) assert.equal(n, expected++)
    pool.release(buffer)
  }
})
