'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const path = require('node:path')
const { loadQueryConfig } = require('../../lib/data/query-config')
const { UsageError } = require('../../lib/base/errors')
const { tempDir, tempFile } = require('../helpers/temp-files')

const file = (t, text) => tempFile(t, 'queries.yml', text)
const load = (p) => loadQueryConfig(p, { scale: 10 })

test('0.7 + 0.2 + 0.1 is accepted; names default to a short form of the query', (t) => {
  const queries = load(file(t,
    '- {query: SELECT 1, ratio: 0.7}\n- {name: b, query: SELECT 2, ratio: 0.2}\n- {query: "SELECT 3   FROM   ' +
      'a_table_with_a_rather_long_name_indeed", ratio: 0.1}\n'))
  assert.deepEqual(queries.map((q) => q.name), ['SELECT 1', 'b', 'SELECT 3 FROM a_table_with_a_rather_lon…'])
})

test('the guide\'s Locust weights 2/10/9/8/7/1 are normalised, and said once; ratios that sum to 1 are kept', (t) => {
  const weights = [2, 10, 9, 8, 7, 1]
  const queries = load(file(t, weights.map((w, i) => `- {query: SELECT ${i}, weight: ${w}}\n`).join('')))
  assert.deepEqual(queries.map((q) => q.ratio), weights.map((w) => w / 37))
  assert.equal(queries.normalised, 'weights 2, 10, 9, 8, 7, 1 sum to 37: each query runs its weight / 37 of the mix ' +
    '(0.054, 0.27, 0.243, 0.216, 0.189, 0.027)')
  const ratios = load(file(t, '- {query: SELECT 1, ratio: 0.5}\n- {query: SELECT 2, ratio: 0.4}\n'))
  assert.deepEqual(ratios.map((q) => q.ratio), [0.5 / 0.9, 0.4 / 0.9])
  assert.match(ratios.normalised, /^ratios 0\.5, 0\.4 sum to 0\.9: /)
  assert.equal(load(file(t, '- {query: SELECT 1, ratio: 0.7}\n- {query: SELECT 2, ratio: 0.3}\n')).normalised,
    undefined)
})

test('bad files are usage errors that say what is wrong', (t) => {
  for (const [text, pattern] of [
    [null, /cannot be read: no such file/],
    ['- query: SELECT 1\n  ratio: [1\n', /is not valid YAML at line \d+, column \d+/],
    ['- ratio: 1\n', /entry 1 has no query/],
    ['- {query: SELECT 1, ratio: 0}\n', /entry 1: ratio must be a positive number \(got 0\)/],
    ['- {query: SELECT 1, ratio: "half"}\n', /ratio must be a positive number \(got "half"\)/],
    ['- {query: SELECT ?, ratio: 1, args: [{hostnam: {}}]}\n', /unknown arg generator 'hostnam'/],
    ['- {query: SELECT 1, ratio: 1, weight: 3}\n', /entry 1 has both ratio and weight: give one/],
    ['- {query: SELECT 1, ratio: 1, wieght: 3}\n',
      /unknown key 'wieght' \(allowed: name, query, ratio or weight, args\)/],
    ['- {query: SELECT 1}\n', /entry 1 has no ratio or weight/],
    ['- {query: SELECT 1, weight: 2}\n- {query: SELECT 2, ratio: 0.5}\n',
      /entry 2 has a ratio where entry 1 has a weight/],
    ['- {query: SELECT 1, weight: -2}\n', /entry 1: weight must be a positive number \(got -2\)/],
    ['{query: SELECT 1}\n', /must be a non-empty list/],
    // Issue 49: a misspelt placeholder named here, not as CrateDB's ParsingException.
    ['- {query: "SELECT count(*) FROM {tabel}", ratio: 1}\n',
      /entry 1 has an unknown placeholder \{tabel\} \(known: \{table\}\)/]
  ]) {
    const p = text === null ? path.join(tempDir(t), 'missing.yml') : file(t, text)
    assert.throws(() => load(p), (e) => e instanceof UsageError && pattern.test(e.message), text)
  }
})

test('the shipped query sets load', () => {
  for (const name of ['cpu-dashboard.yml', 'tsbs-cpu.yml', 'select1.yml']) {
    const queries = load(path.join(__dirname, '..', '..', 'queries', name))
    assert.ok(queries.length >= 1, name)
  }
  assert.equal(load(path.join(__dirname, '..', '..', 'queries', 'cpu-dashboard.yml')).length, 6)
})

test('{table} binds to the quoted table; only real tables other than it are warned about', () => {
  const { bindTable, foreignTableWarnings } = require('../../lib/data/query-config')
  const table = { display: 'doc.mine', sql: '"doc"."mine"' }
  const queries = bindTable([
    { name: 'bound', query: 'SELECT count(*) FROM {table} WHERE x IN (SELECT y FROM {table})' },
    { name: 'function', query: 'SELECT * FROM unnest([1, 2])' },
    { name: 'system', query: 'SELECT name FROM sys.nodes' },
    { name: 'other', query: 'SELECT * FROM {table} t JOIN doc.cpu c ON t.k = c.k' }
  ], table)
  assert.equal(queries[0].query, 'SELECT count(*) FROM "doc"."mine" WHERE x IN (SELECT y FROM "doc"."mine")')
  const warnings = foreignTableWarnings(queries, table)
  assert.equal(warnings.length, 1)
  assert.match(warnings[0], /^warning: query 'other' names doc\.cpu, not --table doc\.mine/)
})

// Issue 57 (item 14): a query whose placeholders and arguments differ is refused here, not at every request.
test('a query takes as many arguments as its ? (or its highest $n): any other count is one line before any SQL',
  (t) => {
    const int = '{int: {min: 1, max: 9}}'
    assert.throws(() => load(file(t, `- {name: two, query: "SELECT ? + ? FROM t WHERE x = '?'", ratio: 1, ` +
      `args: [${int}]}\n`)), /entry 1 \(two\) takes 2 arguments \(its \? or \$n placeholders\) and has 1/)
    assert.doesNotThrow(() => load(file(t, `- {name: reused, query: "SELECT $1, $1, $2", ratio: 1, args: [${int}, ` +
      `${int}]}\n`)))
  })
