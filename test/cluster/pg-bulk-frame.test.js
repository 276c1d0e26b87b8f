'use strict'

// A bulk body framed for the PostgreSQL protocol byte for byte must send what parsing it and binding its values
// would: every row, every value in its text form.

const test = require('node:test')
const assert = require('node:assert/strict')
const { bulkOf, frameBulk } = require('../../lib/cluster/pg-bulk-frame')
const { textValue } = require('../../lib/cluster/pg-messages')
const { Random } = require('../../lib/base/random')
const { readBind } = require('../helpers/pg-test-double')

/** The messages of framed bytes as a server reads them: each Bind's statement and values, Executes, the Sync. */
function decoded (bytes) {
  const messages = []
  for (let pos = 0; pos < bytes.length;) {
    const type = String.fromCharCode(bytes[pos])
    const length = bytes.readInt32BE(pos + 1)
    const body = bytes.subarray(pos + 5, pos + 1 + length)
    if (type === 'P') messages.push({ parse: body.toString('utf8').split('\0').slice(0, 2) })
    else messages.push(type === 'B' ? { bind: readBind(body) } : type)
    pos += length + 1
  }
  return messages
}

/**
 * What a server must read for these rows: the statement's Parse, a Bind of their values in text form and an Execute
 * each, one Sync.
 */
const expected = (rows, statement, text) => [{ parse: [statement, text] },
  ...rows.flatMap((row) => [{ bind: { statement, values: row.map(textValue) } }, 'E']), 'S']

test('rows of every kind of value frame to exactly what the serializer writes from the parsed values', () => {
  const rows = [
    [{ hostname: 'host_1', region: 'eu-west-1', nested: { a: [1, 2, { b: '}]' }] } }, 1451606400000, 12, -3, 1.5],
    ['plain', 'with "quotes" and \\ backslash', 'ünïcödé ✓', '', null],
    [true, false, null, [1, 'two', null], { '': '' }],
    [[], {}, 'a,b]c}', 1e21, 0]
  ]
  const body = Buffer.from(JSON.stringify({ stmt: 'INSERT INTO "doc"."t" ("a") VALUES (?)', bulk_args: rows }))
  const bulk = bulkOf(body)
  assert.equal(bulk.stmt, 'INSERT INTO "doc"."t" ("a") VALUES (?)')
  const framed = frameBulk(body, bulk.rowsAt, 'crate_bench_1', 'INSERT INTO "doc"."t" ("a") VALUES ($1)')
  assert.equal(framed.rows, 4)
  assert.deepEqual(decoded(framed.bytes), expected(rows, 'crate_bench_1', 'INSERT INTO "doc"."t" ("a") VALUES ($1)'))
  assert.equal(framed.bytes[framed.parseLength], 0x42, 'the rows start past the Parse')
})

test('a large generated body with spaces between values frames the same as a compact one', () => {
  const random = new Random(5, 'frame')
  const rows = Array.from({ length: 2000 }, (_, i) => [{ hostname: `host_${i}`, rack: String(random.int(100)) },
    1451606400000 + i * 10_000, ...Array.from({ length: 10 }, () => random.int(101))])
  const compact = Buffer.from(JSON.stringify({ stmt: 'INSERT', bulk_args: rows }))
  // Spaces between keys, rows and values (a value's own JSON is its text, objects included).
  const spaced = Buffer.from(`{ "stmt" : "INSERT" , "bulk_args" : [ ${rows.map((row) =>
    `[ ${row.map((v) => JSON.stringify(v)).join(' , ')} ]`).join(' ,\n ')} ] }`)
  const a = frameBulk(compact, bulkOf(compact).rowsAt, 's', 'INSERT')
  const b = frameBulk(spaced, bulkOf(spaced).rowsAt, 's', 'INSERT')
  assert.equal(a.rows, 2000)
  assert.deepEqual(a.bytes, b.bytes)
  assert.deepEqual(decoded(a.bytes), expected(rows, 's', 'INSERT'))
  assert.equal(bulkOf(Buffer.from('{"stmt":"SELECT 1","args":[]}')), null, 'not a bulk body')
  const notRows = Buffer.from('{"stmt":"x","bulk_args":[1]}')
  assert.throws(() => frameBulk(notRows, bulkOf(notRows).rowsAt, 's', 'x'), /not an array/)
})
