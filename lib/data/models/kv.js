'use strict'

const { Random } = require('../../base/random')
const { StringPool, kvKey } = require('../generators/strings')
const { writeLatin1Cell, writeCellOf } = require('../pg-batch-rows')

// YCSB / YugabyteDB-style key-value: k TEXT PRIMARY KEY, v TEXT. Row k of worker w writes the key
// of sequence number k * workers + w, so a run of N rows writes exactly the keys 0 .. N-1 and a
// read run can draw keys that exist. A key written twice fails its row (DuplicateKeyException)
// unless --upsert turns the INSERT into INSERT ... ON CONFLICT (k) DO UPDATE.
class KvRowWriter {
  constructor ({ seed, workerIndex, workerCount, keyBytes, valueBytes, firstKey = 0 }) {
    this.keyBytes = keyBytes
    this.valueBytes = valueBytes
    this.index = firstKey + workerIndex
    this.stride = workerCount
    this.strings = new StringPool(new Random(seed, 'kv', workerIndex), valueBytes)
    this.maxRowBytes = keyBytes + valueBytes + 8
    this.typicalRowBytes = this.maxRowBytes
  }

  writeRows (buffer, offset, count) {
    let pos = offset
    for (let n = 0; n < count; n++) {
      const key = kvKey(this.index, this.keyBytes)
      this.index += this.stride
      pos += buffer.write(`${n > 0 ? ',' : ''}["${key}","`, pos, 'latin1')
      pos = this.strings.write(buffer, pos, this.valueBytes)
      buffer[pos++] = 0x22
      buffer[pos++] = 0x5d
    }
    return pos
  }

  /** The same rows as Bind and Execute messages of `frame` (lib/data/pg-batch-rows.js). */
  writeBatchRows (buffer, offset, count, frame) {
    let pos = offset
    const writeValue = (b, at) => this.strings.write(b, at, this.valueBytes)
    for (let n = 0; n < count; n++) {
      const key = kvKey(this.index, this.keyBytes)
      this.index += this.stride
      const start = pos
      pos = frame.openRow(buffer, pos)
      pos = writeLatin1Cell(buffer, pos, key)
      pos = writeCellOf(buffer, pos, this.valueBytes, writeValue)
      pos = frame.closeRow(buffer, start, pos)
    }
    return pos
  }
}

module.exports = {
  name: 'kv',
  describe: 'key-value: k TEXT PRIMARY KEY (--key_bytes), v TEXT (--value_bytes); --upsert for ON CONFLICT DO UPDATE',
  defaultTable: 'doc.kv',
  tables: (options) => [
    {
      label: options.table.display,
      table: options.table,
      columns: ['"k" TEXT PRIMARY KEY', '"v" TEXT'],
      insertColumns: ['k', 'v'],
      insertSuffix: options.upsert ? ' ON CONFLICT (k) DO UPDATE SET v = excluded.v' : '',
      fieldsPerRow: 1
    }
  ],
  rowWriter: (spec, options, worker) =>
    new KvRowWriter({
      seed: options.seed,
      workerIndex: worker.workerIndex,
      workerCount: worker.workerCount,
      keyBytes: options.keyBytes,
      valueBytes: options.valueBytes
    }),
  KvRowWriter
}
