'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { SKIP, clusterEnv, clusterClient, scratchTable } = require('../helpers/real-cluster')
const { runTool } = require('../helpers/run-tool')

if (SKIP) console.log(`# ${SKIP}`)

test('ingest into a real CrateDB: exact rows, count after refresh matches', { skip: SKIP }, async () => {
  const table = scratchTable('bench_it_cpu')
  const client = clusterClient()
  try {
    const run = await runTool('appClusterIngest.js', ['--table', table, '--shards', '2', '--processes', '2', '--max_rows', '5000', '--batch_size', '1000', '--extra_tags_length', '2', '--json'], { env: clusterEnv() })
    assert.equal(run.code, 0, run.stderr)
    assert.equal(run.json.rows_ok, 10_000)
    assert.equal(run.json.rows_failed, 0)
    assert.equal(run.json.table_count, 10_000)
    assert.equal(run.json.table_count_matches, true)

    const [schema, name] = table.split('.')
    const shards = await client.sql('SELECT number_of_shards FROM information_schema.tables WHERE table_schema = ? AND table_name = ?', [schema, name])
    assert.equal(shards.rows[0][0], 2)
    const distinct = await client.sql(`SELECT count(DISTINCT tags['hostname'] || '|' || CAST(ts AS TEXT)) FROM ${table}`)
    assert.equal(distinct.rows[0][0], 10_000, 'rows are unique on (hostname, ts)')
    const range = await client.sql(`SELECT min(usage_user), max(usage_user), count(tags['tag_1']) FROM ${table}`)
    assert.ok(range.rows[0][0] >= 0 && range.rows[0][1] <= 100)
    assert.equal(range.rows[0][2], 10_000)

    const again = await runTool('appClusterIngest.js', ['--table', table, '--no-drop_table', '--processes', '1', '--max_rows', '1000', '--json'], { env: clusterEnv() })
    assert.equal(again.code, 0, again.stderr)
    assert.equal(again.json.table_count, null)
    await client.sql(`REFRESH TABLE ${table}`)
    const count = await client.sql(`SELECT count(*) FROM ${table}`)
    assert.equal(count.rows[0][0], 11_000)
  } finally {
    await client.sql(`DROP TABLE IF EXISTS ${table}`).catch(() => {})
    client.close()
  }
})
