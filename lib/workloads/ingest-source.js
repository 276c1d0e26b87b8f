'use strict'

const { MODELS } = require('../data/models')
const { insertSql } = require('../data/schema')
const { BulkBodyPool } = require('../data/bulk-body')
const { parseBulkAnswer, accountBulkAnswer } = require('./bulk-answer')

// The ingest workload's worker side: the RequestSource (lib/workloads/workload.js) of one worker.

/**
 * Produces INSERT requests of fresh rows until this worker's max_rows are sent, going round-robin
 * over the model's tables. Each request owns a buffer until its answer arrives; buffers are
 * reused afterwards, so memory stays at (requests in flight) x (batch size) x (row size).
 */
class IngestSource {
  constructor (options, worker) {
    const model = MODELS[options.model || 'cpu']
    const startMs = Date.parse(options.startTime)
    this.tables = MODELS[options.model || 'cpu'].tables(options).map((spec) => {
      const rowWriter = model.rowWriter(spec, options, worker, startMs)
      const stmt = insertSql(spec.table, spec.insertColumns) + (spec.insertSuffix || '')
      return {
        label: spec.label,
        bodies: new BulkBodyPool({ stmt, rowWriter, initialBytesPerRow: rowWriter.typicalRowBytes,
          encoding: worker.bulkEncoding, columns: spec.insertColumns.length })
      }
    })
    this.turn = 0
    this.batchSize = options.batchSize
    this.unitsPerRequest = options.batchSize
    this.remaining = options.maxRows
  }

  next () {
    if (this.remaining === 0) return null
    const rows = Math.min(this.batchSize, this.remaining)
    this.remaining -= rows
    const target = this.tables[this.turn]
    this.turn = (this.turn + 1) % this.tables.length
    const { body, buffer } = target.bodies.take(rows)
    return { body, units: rows, label: target.label, buffer, bodies: target.bodies }
  }

  release (request) {
    request.bodies.release(request.buffer)
  }

  parse (text) {
    return parseBulkAnswer(text)
  }

  account (request, answer) {
    return accountBulkAnswer(request.units, answer)
  }
}

/**
 * Worker w of W in load generator g of N writes the rows of the global worker w * N + g of W * N:
 * every row index it writes is g modulo N, so generators never write the same rows, whatever
 * --processes each of them has.
 */
function createSource (options, worker, prepared = {}) {
  const generator = options.generator || { index: 0, count: 1 }
  const global = {
    workerIndex: worker.workerIndex * generator.count + generator.index,
    workerCount: worker.workerCount * generator.count,
    bulkEncoding: worker.bulkEncoding
  }
  return new IngestSource({ ...options, startTime: prepared.startTime || options.startTime }, global)
}

module.exports = { IngestSource, createSource }
