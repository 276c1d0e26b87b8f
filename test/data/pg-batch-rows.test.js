'use strict'

// Every model's rows written as a JDBC batch's messages (writeBatchRows) carry exactly the values its JSON rows do.

const test = require('node:test')
const assert = require('node:assert/strict')
const { MODELS } = require('../../lib/data/models')
const { BulkBodyPool } = require('../../lib/data/bulk-body')
const { PgBatchFrame } = require('../../lib/data/pg-batch-rows')
const { insertSql } = require('../../lib/data/schema')
const { readBind } = require('../helpers/pg-test-double')

const OPTIONS = {
  seed: 7, scale: 50, intervalMs: 10_000, extraTagsLength: 0, schema: 'doc', payloadBytes: 40, keyBytes: 24,
  valueBytes: 30, table: { schema: 'doc', name: 'bench', display: 'doc.bench', sql: '"doc"."bench"' }
}
const START_MS = Date.parse('2024-01-01T00:00:00Z')

/** The messages of a batch body: its Parse, each row's Bind values (and that an Execute follows), its Sync. */
function readBatch (body) {
  const messages = []
  for (let at = 0; at < body.length;) {
    const end = at + 1 + body.readInt32BE(at + 1)
    messages.push({ type: String.fromCharCode(body[at]), body: body.subarray(at + 5, end) })
    at = end
  }
  const [parse, ...rest] = messages
  assert.equal(parse.type, 'P')
  assert.equal(rest.pop().type, 'S')
  const rows = []
  for (let i = 0; i < rest.length; i += 2) {
    assert.equal(rest[i].type, 'B')
    assert.deepEqual([rest[i + 1].type, rest[i + 1].body], ['E', Buffer.from([0, 0, 0, 0, 0])])
    rows.push(readBind(rest[i].body))
  }
  const [name, text] = parse.body.toString('utf8').split('\0')
  return { name, text, rows }
}

/** A JSON value as the text format carries it. */
const asText = (v) => (v === null ? null : typeof v === 'object' ? JSON.stringify(v) : String(v))

for (const [modelName, model] of Object.entries(MODELS)) {
  test(`--model ${modelName}: a batch's Bind values are its JSON rows' values, in order, over several takes`, () => {
    for (const spec of model.tables(OPTIONS)) {
      const stmt = insertSql(spec.table, spec.insertColumns)
      const worker = { workerIndex: 1, workerCount: 3 }
      const pool = (encoding) => new BulkBodyPool({ stmt, rowWriter: model.rowWriter(spec, OPTIONS, worker, START_MS),
        initialBytesPerRow: 10, encoding, columns: spec.insertColumns.length })
      const json = pool('json')
      const batch = pool('pg-batch')
      assert.equal(batch.encoding, 'pg-batch')
      const frame = new PgBatchFrame(stmt, spec.insertColumns.length)
      for (const rows of [1, 120, 7]) {
        const expected = JSON.parse(json.take(rows).body).bulk_args.map((row) => row.map(asText))
        const written = readBatch(batch.take(rows).body)
        assert.equal(written.name, frame.name)
        assert.match(written.text, /VALUES \(\$1(, \$\d+)*\)$/)
        assert.deepEqual(written.rows.map((r) => r.statement), new Array(rows).fill(frame.name))
        assert.deepEqual(written.rows.map((r) => r.values), expected, spec.label)
      }
    }
  })
}

test('a row writer without writeBatchRows keeps the JSON the transport frames itself', () => {
  const rowWriter = { maxRowBytes: 10, writeRows: (buffer, pos) => pos + buffer.write('[1]', pos) }
  const pool = new BulkBodyPool({ stmt: 'INSERT INTO t (a) VALUES (?)', rowWriter, encoding: 'pg-batch', columns: 1 })
  assert.equal(pool.encoding, 'json')
  assert.deepEqual(JSON.parse(pool.take(1).body).bulk_args, [[1]])
})

test('the statement is named by its text: the same text, the same name; another text, another', () => {
  const a = new PgBatchFrame('INSERT INTO t (a) VALUES (?)', 1)
  assert.equal(a.name, new PgBatchFrame('INSERT INTO t (a) VALUES (?)', 1).name)
  assert.notEqual(a.name, new PgBatchFrame('INSERT INTO u (a) VALUES (?)', 1).name)
  assert.match(a.name, /^crate_bench_[0-9a-f]{16}$/)
})
