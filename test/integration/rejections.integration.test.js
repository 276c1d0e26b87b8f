'use strict'

// Rows a real CrateDB rejects one by one, under HTTP 200 (a bulk's rowcount -2) or in a pg batch's answers: counted
// failed, grouped by error, never inserted; the table's count equals what was acknowledged. A CHECK constraint on a
// table made beforehand (CRATE_TEST_URL, CRATE_TEST_PG_URL) and a node whose write pool has one thread and one queue
// slot (CRATE_TEST_REJECTING_URL; .ci/run starts one).

const test = require('node:test')
const assert = require('node:assert/strict')
const { SKIP, clusterEnv, clusterClient, scratchTable } = require('../helpers/real-cluster')
const { runTool } = require('../helpers/run-tool')
const { columnDefinitions } = require('../../lib/data/generators/cpu')
const { CrateClient } = require('../../lib/cluster/http-client')

if (SKIP) console.log(`# ${SKIP}`)
const pgUrl = process.env.CRATE_TEST_PG_URL ? new URL(process.env.CRATE_TEST_PG_URL) : null
const rejectingUrl = process.env.CRATE_TEST_REJECTING_URL ? new URL(process.env.CRATE_TEST_REJECTING_URL) : null
const SKIP_REJECTING = rejectingUrl ? false : 'CRATE_TEST_REJECTING_URL is not set: thread-pool rejections of a ' +
  'real CrateDB skipped (a node started with -Cthread_pool.write.size=1 -Cthread_pool.write.queue_size=1)'
if (SKIP_REJECTING) console.log(`# ${SKIP_REJECTING}`)

for (const protocol of ['http', 'pg']) {
  const skip = SKIP || (protocol === 'pg' && !pgUrl ? 'CRATE_TEST_PG_URL is not set: the pg path skipped' : false)
  test(`rows a CHECK constraint rejects [${protocol}]: failed and grouped, the rest inserted, the count exact`,
    { skip }, async () => {
      const table = scratchTable(`bench_it_check_${protocol}`)
      const client = clusterClient()
      try {
        // usage_user is uniform on 0–100: about half the rows break the constraint, spread over every batch.
        await client.sql(`CREATE TABLE ${table} (${columnDefinitions().join(', ')}, ` +
          'CONSTRAINT low_user CHECK (usage_user < 50)) CLUSTERED INTO 2 SHARDS WITH (number_of_replicas = 0)')
        const env = protocol === 'pg' ? clusterEnv({ CRATE_PG_PORT: pgUrl.port || '5432' }) : clusterEnv()
        const run = await runTool('appClusterIngest.js', ['--protocol', protocol, '--table', table, '--no-drop_table',
          '--processes', '2', '--max_rows', '3000', '--batch_size', '500', '--json'], { env })
        assert.equal(run.code, 1, 'a run with failed rows exits 1')
        const m = run.json
        assert.ok(m.rows_failed > 0 && m.rows_ok > 0, `${m.rows_ok} ok, ${m.rows_failed} failed`)
        assert.equal(m.rows_ok + m.rows_failed + (m.rows_in_doubt || 0), 6000)
        assert.equal(m.rows_in_doubt || 0, 0)
        const grouped = m.errors.reduce((sum, e) => sum + e.count, 0)
        assert.equal(grouped, m.rows_failed, JSON.stringify(m.errors))
        // Over HTTP each row's error names the constraint; over pg a batch's row answers a count of 0 with no reason.
        const reason = protocol === 'http' ? /low_user|CHECK/i : /no reason given over the PostgreSQL protocol/
        assert.ok(m.errors.some((e) => reason.test(e.message)), JSON.stringify(m.errors))
        await client.sql(`REFRESH TABLE ${table}`)
        const stored = await client.sql(`SELECT count(*), max(usage_user) FROM ${table}`)
        assert.equal(stored.rows[0][0], m.rows_ok, 'the table holds exactly the rows acknowledged')
        assert.ok(stored.rows[0][1] < 50)
      } finally {
        await client.sql(`DROP TABLE IF EXISTS ${table}`).catch(() => {})
        client.close()
      }
    })
}

test('a node that rejects writes (1-thread write pool): rejected rows failed with 5000, the count exact',
  { skip: SKIP_REJECTING }, async () => {
    const table = scratchTable('bench_it_rejected')
    const env = {
      CRATE_HOST: rejectingUrl.hostname,
      CRATE_PORT: rejectingUrl.port || '4200',
      CRATE_USER: decodeURIComponent(rejectingUrl.username) || 'crate',
      CRATE_PASSWORD: decodeURIComponent(rejectingUrl.password)
    }
    const client = new CrateClient({ hosts: [{ protocol: 'http', hostname: env.CRATE_HOST,
      port: Number(env.CRATE_PORT) }],
      user: env.CRATE_USER, password: env.CRATE_PASSWORD, timeoutMs: 60_000 })
    try {
      // Many shards and many requests in flight: more shard writes at once than one thread and one slot take.
      const run = await runTool('appClusterIngest.js', ['--table', table, '--shards', '8', '--processes', '2',
        '--concurrent_requests', '16', '--max_rows', '20000', '--batch_size', '500', '--json'], { env })
      assert.equal(run.code, 1, run.stderr)
      const m = run.json
      assert.ok(m.rows_failed > 0, 'the write pool rejected rows')
      assert.equal(m.rows_ok + m.rows_failed + (m.rows_in_doubt || 0), 40_000)
      assert.ok(m.errors.some((e) => e.code === 5000 && /EsRejectedExecutionException/.test(e.message)),
        JSON.stringify(m.errors))
      assert.equal(m.table_count, m.rows_ok, 'the table holds exactly the rows acknowledged')
      assert.equal(m.table_count_matches, true)
      const pools = m.cluster && m.cluster.nodes ? m.cluster.nodes.map((n) => n.write_rejected) : []
      console.log(`# ${m.rows_failed} of 40,000 rows rejected; write pool rejections seen by the monitor: ` +
        `${pools.join(', ') || 'none reported'}`)
    } finally {
      await client.sql(`DROP TABLE IF EXISTS ${table}`).catch(() => {})
      client.close()
    }
  })
