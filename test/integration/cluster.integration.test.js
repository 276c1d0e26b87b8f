'use strict'

// Against a real multi-node cluster (CRATE_TEST_URLS): a run with one host unreachable from the
// start (a closed local port next to the real nodes) completes on the others.

const test = require('node:test')
const assert = require('node:assert/strict')
const { SKIP_MULTI_NODE, multiNodeEnv, scratchTable } = require('../helpers/real-cluster')
const { runTool } = require('../helpers/run-tool')
const { closedPort } = require('../helpers/ports')

if (SKIP_MULTI_NODE) console.log(`# ${SKIP_MULTI_NODE}`)

test('a host unreachable from the start: a warning, the run completes on the other nodes, every row acknowledged',
  { skip: SKIP_MULTI_NODE }, async () => {
  const table = scratchTable('bench_it_failover')
  const dead = `http://127.0.0.1:${await closedPort()}`
  const env = multiNodeEnv([dead])
  const run = await runTool('appClusterIngest.js', ['--table', table, '--shards', '3', '--replicas', '1', '--processes',
    '2', '--max_rows', '20000', '--batch_size', '1000', '--json'], { env })
  try {
    assert.equal(run.code, 0, run.stderr)
    assert.match(run.stderr,
      new RegExp(`warning: connection refused by ${dead.replace(/[.]/g, '\\.')}; the run goes on with the other hosts`))
    assert.equal(run.json.rows_ok, 40_000)
    assert.equal(run.json.reconciliation.verdict, 'exact')
  } finally {
    // Dropped through the client's failover, on the live nodes.
    const { CrateClient } = require('../../lib/cluster/http-client')
    const { parseHosts } = require('../../lib/cluster/connection')
    const client = new CrateClient({
      hosts: parseHosts(env.CRATE_HOST, 4200, false),
      user: env.CRATE_USER,
      password: env.CRATE_PASSWORD,
      retryUnsent: true
    })
    await client.sql(`DROP TABLE IF EXISTS ${table}`).catch(() => {})
    client.close()
  }
})
