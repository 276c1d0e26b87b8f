'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { parseTableName, createTableSql, insertSql, quoteIdentifier } = require('../../lib/data/schema')
const { columnDefinitions, INSERT_COLUMNS } = require('../../lib/data/generators/cpu')
const { fixture } = require('../helpers/crate-test-double')

test('table names: default schema doc, quoted in SQL', () => {
  assert.deepEqual(parseTableName('cpu'), { schema: 'doc', table: 'cpu', sql: '"doc"."cpu"', display: 'doc.cpu' })
  assert.equal(parseTableName('bench.cpu_2').sql, '"bench"."cpu_2"')
})

test('identifiers that could change the SQL are rejected', () => {
  for (const bad of ['doc.cpu;drop', 'a.b.c', 'Doc.cpu', '"cpu"', 'cpu x', '', '1cpu', 'doc.']) {
    assert.throws(() => parseTableName(bad), /not a valid table name/, bad)
  }
  assert.throws(() => quoteIdentifier('a"b'), /refusing/)
})

test('CREATE TABLE matches the captured TSBS cpu table definition', () => {
  const captured = fixture('03-create-cpu-table').request.body.stmt
  const ours = createTableSql({ table: parseTableName('doc.fixture_cpu'), columns: columnDefinitions(), shards: 3,
    replicas: '0' })
  // Same columns and types, same CLUSTERED/WITH clause; ours adds IF NOT EXISTS and quotes names.
  const normalize = (s) => s.replace(/IF NOT EXISTS /, '').replace(/"/g, '').replace(/\s+/g, ' ').replace(/\( /g,
    '(').replace(/ \)/g, ')')
  const columnsOf = (s) => normalize(s).match(/\((.*)\) CLUSTERED/)[1].split(/,\s*/).map((c) => c.trim()).sort()
  assert.deepEqual(columnsOf(ours), columnsOf(captured))
  assert.match(ours, /^CREATE TABLE IF NOT EXISTS "doc"."fixture_cpu" \(/)
  assert.match(ours, /\) CLUSTERED INTO 3 SHARDS WITH \(number_of_replicas = '0'\)$/)
})

test('INSERT uses one placeholder per column, like the captured bulk insert', () => {
  const sql = insertSql(parseTableName('doc.fixture_cpu'), INSERT_COLUMNS)
  const captured = fixture('06-bulk-insert-ok').request.body.stmt
  assert.equal(sql.replace(/"/g, ''), captured)
})
