'use strict'

// --model devops, loadtest and kv against a real CrateDB (CRATE_TEST_URL). Every test writes to
// tables of its own and drops them.

const test = require('node:test')
const assert = require('node:assert/strict')
const { SKIP, clusterEnv, clusterClient, scratchTable } = require('../helpers/real-cluster')
const { runTool } = require('../helpers/run-tool')
const { tempFile } = require('../helpers/temp-files')
const { kvKey } = require('../../lib/data/generators/strings')

if (SKIP) console.log(`# ${SKIP}`)

const DEVOPS_TABLES = ['cpu', 'mem', 'disk', 'diskio', 'kernel', 'net', 'redis', 'postgresl', 'nginx']

test('devops on a real CrateDB: nine tables created, counts match', { skip: SKIP }, async () => {
  const schema = scratchTable('bench_it').split('.')[1]
  const client = clusterClient()
  try {
    const run = await runTool('appClusterIngest.js', ['--model', 'devops', '--schema', schema, '--shards', '2',
      '--processes', '2', '--max_rows', '1800', '--batch_size', '100', '--scale', '50', '--json'],
        { env: clusterEnv() })
    assert.equal(run.code, 0, run.stderr)
    assert.equal(run.json.rows_ok, 3600)
    assert.equal(run.json.table_count_matches, true)
    for (const name of DEVOPS_TABLES) {
      const count = await client.sql(`SELECT count(*) FROM "${schema}"."${name}"`)
      assert.equal(count.rows[0][0], 400, name)
    }
    const redis = await client.sql(
      `SELECT tags['server'], uptime_in_seconds FROM "${schema}"."redis" ORDER BY ts DESC LIMIT 1`)
    assert.match(redis.rows[0][0], /^redis_\d+$/)
  } finally {
    for (const name of DEVOPS_TABLES) await client.sql(`DROP TABLE IF EXISTS "${schema}"."${name}"`).catch(() => {})
    client.close()
  }
})

test('loadtest on a real CrateDB: refresh off during the load, back to the default after', { skip: SKIP }, async () => {
  const table = scratchTable('bench_it_loadtest')
  const client = clusterClient()
  try {
    const run = await runTool('appClusterIngest.js', ['--model', 'loadtest', '--table', table, '--processes', '1',
      '--max_rows', '2000', '--batch_size', '500', '--payload_bytes', '256', '--json'], { env: clusterEnv() })
    assert.equal(run.code, 0, run.stderr)
    assert.equal(run.json.table_count, 2000)
    const [schema, name] = table.split('.')
    const settings = await client.sql("SELECT settings['refresh_interval'] FROM information_schema.tables " +
      "WHERE table_schema = ? AND table_name = ?", [schema, name])
    assert.equal(settings.rows[0][0], 1000, 'reset to the default 1 s')
    const lengths = await client.sql(`SELECT min(char_length(data)), max(char_length(data)) FROM ${table}`)
    assert.deepEqual(lengths.rows[0], [256, 256])
  } finally {
    await client.sql(`DROP TABLE IF EXISTS ${table}`).catch(() => {})
    client.close()
  }
})

test('kv on a real CrateDB: keys written, duplicates fail, reads find their keys', { skip: SKIP }, async (t) => {
  const table = scratchTable('bench_it_kv')
  const client = clusterClient()
  try {
    const first = await runTool('appClusterIngest.js', ['--model', 'kv', '--table', table, '--processes', '2',
      '--max_rows', '1000', '--batch_size', '250', '--json'], { env: clusterEnv() })
    assert.equal(first.code, 0, first.stderr)
    assert.equal(first.json.table_count, 2000)
    const again = await runTool('appClusterIngest.js', ['--model', 'kv', '--table', table, '--no-drop_table',
      '--processes', '1', '--max_rows', '100', '--json'], { env: clusterEnv() })
    assert.equal(again.code, 1)
    assert.equal(again.json.rows_failed, 100)
    assert.equal(again.json.errors[0].code, 4091)
    for (const n of [0, 999, 1999]) {
      const read = await client.sql(`SELECT v FROM ${table} WHERE k = ?`, [kvKey(n, 40)])
      assert.equal(read.rowcount, 1, `key ${n}`)
    }
    const mix = tempFile(t, 'kv.yml', [
      `- {name: read, query: "SELECT v FROM ${table} WHERE k = ?", ratio: 0.95, args: [{kv_key: {}}]}`,
      `- {name: write, query: "INSERT INTO ${table} (k, v) VALUES (?, ?) ` +
        'ON CONFLICT (k) DO UPDATE SET v = excluded.v", ratio: 0.05, args: [{kv_key: {}}, {kv_value: {}}]}'
    ].join('\n'))
    const run = await runTool('appClusterAnalytical.js', ['--queries_config', mix, '--table', table, '--max_queries',
      '500', '--json'], { env: clusterEnv() })
    assert.equal(run.code, 0, run.stderr)
    assert.equal(run.json.queries_failed, 0)
    await client.sql(`REFRESH TABLE ${table}`)
    const count = await client.sql(`SELECT count(*) FROM ${table}`)
    assert.equal(count.rows[0][0], 2000, 'the writes updated existing keys')
  } finally {
    await client.sql(`DROP TABLE IF EXISTS ${table}`).catch(() => {})
    client.close()
  }
})
