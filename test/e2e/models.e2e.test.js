'use strict'

// --model devops, loadtest and kv end to end against the CrateDB test double: the tables each
// model creates, exact row accounting, and what the report adds per model.

const assert = require('node:assert/strict')
const path = require('node:path')
const { runTool, ROOT } = require('../helpers/run-tool')
const { testOverProtocols } = require('../helpers/protocols')
const { NO_REASON } = require('../../lib/cluster/pg-client')
const { kvKey } = require('../../lib/data/generators/strings')

const ingest = (args, options) => runTool('appClusterIngest.js', args, options)
const DEVOPS_TABLES = ['cpu', 'mem', 'disk', 'diskio', 'kernel', 'net', 'redis', 'postgresl', 'nginx']

testOverProtocols('devops: nine tables, rows round-robin over them, field values per table and in total',
  { keepRows: true }, async (double) => {
  // 2 processes x 900 rows in batches of 50: 36 requests, 4 per table, 200 rows per table.
  const run = await ingest(['--model', 'devops', '--processes', '2', '--max_rows', '900', '--batch_size', '50',
    '--scale', '20', '--shards', '2', '--json'], { env: double.env() })
  assert.equal(run.code, 0, run.stderr)
  const r = run.json
  assert.equal(r.model, 'devops')
  assert.equal(r.rows_ok, 1800)
  assert.deepEqual(r.tables.map((t) => [t.name, t.rows_ok]), DEVOPS_TABLES.map((name) => [`doc.${name}`, 200]))
  for (const name of DEVOPS_TABLES) {
    assert.equal(double.tables.get(`doc.${name}`).visible, 200, name)
    assert.equal(double.tables.get(`doc.${name}`).shards, 2, name)
  }
  assert.equal(r.table_count, 1800)
  assert.equal(r.table_count_matches, true)
  // 200 rows per table x 101 field values per interval, over the run's window.
  const fieldValues = r.tables.reduce((sum, t) => sum + t.field_values_per_sec, 0)
  assert.ok(Math.abs(fieldValues - (200 * 101) / r.seconds) < 1, `${fieldValues} field values/s`)
  assert.equal(r.field_values_per_sec, Math.round(fieldValues * 100) / 100)
  assert.match(run.stderr, /│ doc\.redis +│ 200 +│ 0 +│/)
  const rows = double.rows.map((text) => JSON.parse(text))
  const redis = rows.filter((row) => row.length === 2 + 31)
  assert.equal(redis.length, 200, 'redis rows carry 31 fields')
  assert.match(redis[0][0].server, /^redis_\d+$/)
  assert.equal(rows.filter((row) => row[0].path !== undefined && row[0].fstype !== undefined).length, 200,
    'disk rows carry path and fstype tags')
})

testOverProtocols('devops: --table is refused, --schema names the schema', {}, async (double) => {
  const refused = await ingest(['--model', 'devops', '--table', 'doc.x'], { env: double.env() })
  assert.equal(refused.code, 2)
  assert.match(refused.stderr,
    /--model devops writes nine tables named after their measurements: give their schema with --schema, not --table/)
  const run = await ingest(['--model', 'devops', '--schema', 'tsbs', '--processes', '1', '--max_rows', '90',
    '--batch_size', '10', '--json'], { env: double.env() })
  assert.equal(run.code, 0, run.stderr)
  assert.ok(double.tables.has('tsbs.nginx'))
})

testOverProtocols('loadtest: random strings, refresh off during the load and reset afterwards, MB/s',
  { keepRows: true }, async (double) => {
  const run = await ingest(['--model', 'loadtest', '--processes', '1', '--max_rows', '1000', '--batch_size', '100',
    '--payload_bytes', '64', '--json'], { env: double.env() })
  assert.equal(run.code, 0, run.stderr)
  assert.equal(run.json.rows_ok, 1000)
  assert.equal(run.json.table_count, 1000)
  const create = double.statementsMatching(/^CREATE TABLE IF NOT EXISTS "doc"\."loadtest"/)[0].stmt
  assert.match(create, /\(\n {2}"data" TEXT\n\)/)
  assert.match(create, /WITH \(number_of_replicas = '0', refresh_interval = 0\)$/)
  const statements = double.statements.map((s) => s.stmt)
  const reset = statements.indexOf('ALTER TABLE "doc"."loadtest" RESET (refresh_interval)')
  assert.ok(reset > 0 && reset < statements.indexOf('REFRESH TABLE "doc"."loadtest"'), 'reset before the final refresh')
  const payloads = double.rows.map((text) => JSON.parse(text)[0])
  assert.ok(payloads.every((p) => typeof p === 'string' && p.length === 64))
  assert.ok(new Set(payloads).size > 990, 'payloads differ')
  assert.ok(Math.abs(run.json.payload_mb_per_sec - (run.json.rows_per_sec * 64) / 1e6) < 0.001)
  assert.match(run.stderr, /payload MB\/s/)
})

testOverProtocols('kv: keys 0..N-1, duplicates fail row by row, --upsert updates, reads find their keys', {},
  async (double) => {
  const first = await ingest(['--model', 'kv', '--processes', '2', '--max_rows', '500', '--batch_size', '100',
    '--json'], { env: double.env() })
  assert.equal(first.code, 0, first.stderr)
  assert.equal(first.json.rows_ok, 1000)
  const table = double.tables.get('doc.kv')
  assert.equal(table.pk, 'k')
  const expected = new Set(Array.from({ length: 1000 }, (_, n) => kvKey(n, 40)))
  assert.deepEqual(new Set(table.byKey.keys()), expected)
  assert.ok([...table.byKey.values()].every((r) => r.k.length === 40 && r.v.length === 16))

  const again = await ingest(['--model', 'kv', '--no-drop_table', '--processes', '2', '--max_rows', '500',
    '--batch_size', '100', '--json'], { env: double.env() })
  assert.equal(again.code, 1, 'existing keys are failures, never silent successes')
  assert.equal(again.json.rows_ok, 0)
  assert.equal(again.json.rows_failed, 1000)
  if (double.protocol === 'pg') {
    // A duplicate key answers INSERT 0 -3 over this protocol, with no reason (captures 05, 14).
    assert.equal(again.json.errors[0].message, NO_REASON)
  } else {
    assert.equal(again.json.errors[0].code, 4091)
    assert.match(again.stderr, /DuplicateKeyException/)
  }

  const upsert = await ingest(['--model', 'kv', '--no-drop_table', '--upsert', '--processes', '1', '--max_rows', '300',
    '--batch_size', '100', '--json'], { env: double.env() })
  assert.equal(upsert.code, 0, upsert.stderr)
  assert.equal(upsert.json.rows_ok, 300)
  assert.match(double.statementsMatching(/^INSERT INTO "doc"\."kv".* ON CONFLICT/)[0].stmt,
    /^INSERT INTO "doc"\."kv" \("k", "v"\) VALUES \(\?, \?\) ON CONFLICT \(k\) DO UPDATE SET v = excluded\.v$/)

  // 95/5 reads and writes on the keys written: every key the mix asks for exists.
  await double.execute('REFRESH TABLE doc.kv', [])
  const mix = await runTool('appClusterAnalytical.js', ['--queries_config', path.join(ROOT, 'queries', 'kv-mixed.yml'),
    '--table', 'doc.kv', '--max_queries', '400', '--json'], { env: double.env() })
  assert.equal(mix.code, 0, mix.stderr)
  assert.match(mix.stderr, /kv_key args draw from 1,000 keys \(count\(\*\) of doc\.kv\)/)
  const reads = double.statementsMatching(/^SELECT v FROM "doc"\."kv" WHERE k = \?$/)
  assert.ok(reads.length > 300)
  assert.ok(reads.every((s) => expected.has(s.args[0])), 'reads draw existing keys')
  const byName = Object.fromEntries(mix.json.queries.map((q) => [q.name, q]))
  assert.ok(byName.read.count >= 370 && byName.write.count >= 10 && byName.read.count + byName.write.count === 400)
  assert.ok(byName.write.latency_ms.mean > 0 && byName.read.latency_ms.p99 > 0)
  assert.match(mix.stderr, /mean ms/)
  assert.equal(table.byKey.size, 1000, 'writes updated existing keys only')
})

testOverProtocols('bad --kv_keys for the kv reads: one line, exit 2', {}, async (double) => {
  const run = await runTool('appClusterAnalytical.js', ['--queries_config', path.join(ROOT, 'queries', 'kv-read.yml'),
    '--table', 'doc.kv', '--kv_keys', '0'], { env: double.env() })
  assert.equal(run.code, 2, run.stderr)
  assert.equal(run.stderr, 'appClusterAnalytical.js: error: --kv_keys must be a whole number >= 1 (got \'0\')\n')
  assert.equal(double.statements.length, 0)
})

testOverProtocols('bad model options: one line, exit 2', {}, async (double) => {
  for (const [args, message] of [
    [['--model', 'nosuch'], /--model must be one of cpu, devops, loadtest, kv \(got 'nosuch'\)/],
    [['--model', 'kv', '--key_bytes', '8'], /--key_bytes must be at least 18, so that every key is unique \(got 8\)/],
    [['--refresh_interval', 'soon'], /--refresh_interval must be a positive duration/],
    [['--schema', 'tsbs'], /--schema applies to --model devops/]
  ]) {
    const run = await ingest(args, { env: double.env() })
    assert.equal(run.code, 2, `${args.join(' ')}: ${run.stderr}`)
    assert.match(run.stderr, message)
  }
})
