'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { SKIP, clusterEnv, clusterClient, scratchTable } = require('../helpers/real-cluster')
const { runTool } = require('../helpers/run-tool')
const { takeLease, LeaseKeeper, TTL_MS } = require('../../lib/workloads/table-lease')
const { parseTableName } = require('../../lib/data/schema')

if (SKIP) console.log(`# ${SKIP}`)

// Distinct (host, timestamp) pairs: the cpu model's rows are unique by them, so resent rows would show here.
const distinctRows = (table) => `SELECT count(DISTINCT tags['hostname'] || '|' || CAST(ts AS TEXT)) FROM ${table}`

test('ingest into a real CrateDB: exact rows, count after refresh matches', { skip: SKIP }, async () => {
  const table = scratchTable('bench_it_cpu')
  const client = clusterClient()
  try {
    const run = await runTool('appClusterIngest.js', ['--table', table, '--shards', '2', '--processes', '2',
      '--max_rows', '5000', '--batch_size', '1000', '--extra_tags_length', '2', '--json'], { env: clusterEnv() })
    assert.equal(run.code, 0, run.stderr)
    assert.equal(run.json.rows_ok, 10_000)
    assert.equal(run.json.rows_failed, 0)
    assert.equal(run.json.table_count, 10_000)
    assert.equal(run.json.table_count_matches, true)
    // A node on this machine: its CPU read in /proc, its HotSpot JIT compiler's threads counted apart and left out.
    const cost = run.json.cluster_cpu
    if (cost && cost.source === 'proc') {
      assert.equal(typeof cost.jit_s, 'number', JSON.stringify(cost))
      assert.ok(cost.jit_s >= 0 && cost.ms_per_1000 <= cost.ms_per_1000_with_jit, JSON.stringify(cost))
      assert.match(run.stderr, /^cluster CPU: .*; the JIT compiler's [\d.]+ s left out, [\d.,]+ ms with it\)/m)
    }

    const [schema, name] = table.split('.')
    const shards = await client.sql('SELECT number_of_shards FROM information_schema.tables WHERE table_schema = ? ' +
      'AND table_name = ?', [schema, name])
    assert.equal(shards.rows[0][0], 2)
    const distinct = await client.sql(distinctRows(table))
    assert.equal(distinct.rows[0][0], 10_000, 'rows are unique on (hostname, ts)')
    const range = await client.sql(`SELECT min(usage_user), max(usage_user), count(tags['tag_1']) FROM ${table}`)
    assert.ok(range.rows[0][0] >= 0 && range.rows[0][1] <= 100)
    assert.equal(range.rows[0][2], 10_000)

    const again = await runTool('appClusterIngest.js', ['--table', table, '--no-drop_table', '--processes', '1',
      '--max_rows', '1000', '--json'], { env: clusterEnv() })
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

test('results table on a real CrateDB: two runs, one run_id, the documented aggregation adds them up', { skip: SKIP },
  async () => {
  const { aggregateRunSql } = require('../../lib/results/store')
  const { parseTableName } = require('../../lib/data/schema')
  const table = scratchTable('bench_it_cpu')
  const results = scratchTable('bench_it_runs')
  const client = clusterClient()
  try {
    const common = ['--table', table, '--results_table', results, '--run_id', 'it-run', '--processes', '1',
      '--batch_size', '1000', '--shards', '2', '--json']
    const first = await runTool('appClusterIngest.js', [...common, '--max_rows', '3000'], { env: clusterEnv() })
    assert.equal(first.code, 0, first.stderr)
    const second = await runTool('appClusterIngest.js', [...common, '--no-drop_table', '--max_rows', '2000'],
      { env: clusterEnv() })
    assert.equal(second.code, 0, second.stderr)
    const answer = await client.sql(aggregateRunSql(parseTableName(results)), ['it-run'])
    const [loadGenerators, ok, failed, seconds, perSec] = answer.rows[0]
    assert.deepEqual([loadGenerators, ok, failed], [2, 5000, 0])
    const span =
      (Date.parse(second.json.started_at) + second.json.seconds * 1000 - Date.parse(first.json.started_at)) / 1000
    assert.ok(Math.abs(seconds - span) < 0.01, `${seconds} vs ${span}`)
    assert.ok(Math.abs(perSec - 5000 / span) < 5000 / span * 0.01)
  } finally {
    await client.sql(`DROP TABLE IF EXISTS ${table}`).catch(() => {})
    await client.sql(`DROP TABLE IF EXISTS ${results}`).catch(() => {})
    client.close()
  }
})

// Issue 47: a table of realistic size. The prefilled rows and the run's rows are distinct on (hostname, ts), and the
// table's count is reconciled with both.
test('--prefill on a real CrateDB: the table filled first, the run after it, every row distinct and counted',
  { skip: SKIP },
  async () => {
    const table = scratchTable('bench_it_prefill')
    const client = clusterClient()
    try {
      const run = await runTool('appClusterIngest.js', ['--table', table, '--prefill', '50000', '--max_rows', '10000',
        '--processes', '1', '--batch_size', '5000', '--json'], { env: clusterEnv() })
      assert.equal(run.code, 0, run.stderr)
      assert.equal(run.json.prefill.rows_ok, 50_000)
      assert.equal(run.json.rows_ok, 10_000)
      assert.equal(run.json.table_count, 60_000)
      assert.equal(run.json.reconciliation.verdict, 'exact')
      assert.equal(run.json.table_storage.start.docs, 50_000)
      const distinct = await client.sql(distinctRows(table))
      assert.equal(distinct.rows[0][0], 60_000)
    } finally {
      await client.sql(`DROP TABLE IF EXISTS ${table}`).catch(() => {})
      client.close()
    }
  })

// Issue 57: a second run dropped the table a running grid used. The lease (lib/workloads/table-lease.js) on a real
// CrateDB: one winner, a real-time read, the study's own runs let through.
test('a table in use by a study of this tool on a real CrateDB: not dropped by another run; its own runs drop it',
  { skip: SKIP }, async () => {
    const table = scratchTable('bench_it_lease')
    const client = clusterClient()
    const grid = { host: 'other-machine', pid: 77, what: 'crate-bench grid' }
    const args = ['--table', table, '--processes', '1', '--max_rows', '1000', '--json']
    try {
      const first = await runTool('appClusterIngest.js', args, { env: clusterEnv() })
      assert.equal(first.code, 0, first.stderr)
      assert.ok((await takeLease({ client, table: parseTableName(table, 'table'), holder: grid })).taken)
      const refused = await runTool('appClusterIngest.js', [...args, '--drop_table'], { env: clusterEnv() })
      assert.equal(refused.code, 3, refused.stderr)
      assert.match(refused.stderr, /error: table \S+ is in use by crate-bench grid of this tool \(pid 77 on other-/)
      const own = await runTool('appClusterIngest.js', args,
        { env: { ...clusterEnv(), CRATE_BENCH_TABLE_HOLDER: JSON.stringify(grid) } })
      assert.equal(own.code, 0, own.stderr)
      assert.match(own.stderr, /^dropped table \S+ \(made by this tool in run /m)
      assert.equal(own.json.table_count, 1000)
    } finally {
      await client.sql(`DROP TABLE IF EXISTS ${table}`).catch(() => {})
      await client.sql('DELETE FROM "doc"."crate_bench_leases" WHERE "table_name" = ?', [table]).catch(() => {})
      client.close()
    }
  })

// Issue 61: a forged lease renewed ten years ahead is cut back to the TTL from now; a leases table dropped under a run
// is made again by its next renewal, its lease claimed again.
test('leases on a real CrateDB: a forged lease cut back to its TTL from now; a dropped leases table claimed again by ' +
  'the run that held a lease', { skip: SKIP }, async () => {
  const client = clusterClient()
  const table = parseTableName(scratchTable('bench_it_forged'), 'table')
  const forger = { host: 'elsewhere', pid: 1, what: 'crate-bench grid' }
  const run = { host: 'other-machine', pid: 5151, what: 'run r2', inherited: false }
  const leases = '"doc"."crate_bench_leases"'
  try {
    assert.ok((await takeLease({ client, table, holder: run })).taken)
    await client.sql(`UPDATE ${leases} SET "holder" = ?, "at" = ?, "ttl_ms" = ? WHERE "table_name" = ?`,
      [JSON.stringify(forger), Date.now() + 10 * 365 * 86_400_000, 1e15, table.display])
    const held = await takeLease({ client, table, holder: { ...run, pid: 6161 } })
    assert.deepEqual([held.heldBy, held.renewedAgoMs], [forger, 0])
    const row = await client.sql(`SELECT "at", "ttl_ms" FROM ${leases} WHERE "table_name" = ?`, [table.display])
    const [at, ttlMs] = row.rows[0]
    assert.equal(ttlMs, TTL_MS)
    assert.ok(Math.abs(at - Date.now()) < 60_000, `cut back to now: ${new Date(at).toISOString()}`)
    // Dropped under a run that holds a lease: its next renewal makes the table again and claims its lease.
    await client.sql(`DELETE FROM ${leases} WHERE "table_name" = ?`, [table.display])
    assert.ok((await takeLease({ client, table, holder: run })).taken)
    let tick = null
    const lines = []
    const keeper = new LeaseKeeper({ client, holder: run, log: (l) => lines.push(l),
      timers: { setInterval: (fn) => { tick = fn; return {} }, clearInterval: () => {} } })
    keeper.keep(table)
    await client.sql(`DROP TABLE ${leases}`)
    await tick()
    assert.deepEqual(lines, [`note: the lease of ${table.display} was gone (its leases table dropped, or its row ` +
      'deleted): claimed again'])
    const other = await takeLease({ client, table, holder: { ...run, pid: 6161 } })
    assert.deepEqual(other.heldBy, { host: run.host, pid: run.pid, what: run.what })
    await keeper.stop()
  } finally {
    await client.sql(`DELETE FROM ${leases} WHERE "table_name" = ?`, [table.display]).catch(() => {})
    client.close()
  }
})
