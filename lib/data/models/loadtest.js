'use strict'

const { Random } = require('../../base/random')
const { StringPool } = require('../generators/strings')
const { writeCellOf } = require('../pg-batch-rows')

// CrateDB's large-cluster ingest record: one TEXT column of random strings, refresh turned off
// during the load (refresh_interval = 0) and reset afterwards.
class PayloadRowWriter {
  constructor ({ seed, workerIndex, payloadBytes }) {
    this.payloadBytes = payloadBytes
    this.strings = new StringPool(new Random(seed, 'payload', workerIndex), payloadBytes)
    this.maxRowBytes = payloadBytes + 5
    this.typicalRowBytes = this.maxRowBytes
  }

  writeRows (buffer, offset, count) {
    let pos = offset
    for (let n = 0; n < count; n++) {
      if (n > 0) buffer[pos++] = 0x2c
      buffer[pos++] = 0x5b // [
      buffer[pos++] = 0x22 // "
      pos = this.strings.write(buffer, pos, this.payloadBytes)
      buffer[pos++] = 0x22
      buffer[pos++] = 0x5d // ]
    }
    return pos
  }

  /** The same rows as Bind and Execute messages of `frame` (lib/data/pg-batch-rows.js). */
  writeBatchRows (buffer, offset, count, frame) {
    let pos = offset
    const writePayload = (b, at) => this.strings.write(b, at, this.payloadBytes)
    for (let n = 0; n < count; n++) {
      const start = pos
      pos = frame.openRow(buffer, pos)
      pos = writeCellOf(buffer, pos, this.payloadBytes, writePayload)
      pos = frame.closeRow(buffer, start, pos)
    }
    return pos
  }
}

module.exports = {
  name: 'loadtest',
  describe: 'large-cluster record: one TEXT column of --payload_bytes random characters, refresh off during the load',
  defaultTable: 'doc.loadtest',
  defaultRefreshIntervalMs: 0,
  tables: (options) => [
    {
      label: options.table.display,
      table: options.table,
      columns: ['"data" TEXT'],
      insertColumns: ['data'],
      fieldsPerRow: 1,
      payloadBytes: options.payloadBytes
    }
  ],
  rowWriter: (spec, options, worker) =>
    new PayloadRowWriter({ seed: options.seed, workerIndex: worker.workerIndex, payloadBytes: options.payloadBytes }),
  PayloadRowWriter
}
