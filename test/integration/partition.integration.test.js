'use strict'

// A host that goes silent: a 3-node cluster on three hosts of their own (test/helpers/hosts-cluster.js), ingest from
// a fourth over HTTP and over pg; 20 s into a 60-s run the link of the third node's host is cut (its interface down:
// no process is killed, its requests hang instead of being refused). The run goes on against the other nodes, ends
// within its duration and its --timeout, names the host that went silent, and keeps the count exact: after the link
// is back, count(*) lies within [ok, ok + in doubt], and ok + failed + in doubt = sent.

const test = require('node:test')
const assert = require('node:assert/strict')
const path = require('node:path')
const { leftOf, finished } = require('../helpers/hosts')
const { clusterOnHosts, realHostsOr } = require('../helpers/hosts-cluster')

const { tarball, skip: SKIP } = realHostsOr('a partitioned host')

const ROOT = path.join(__dirname, '..', '..')
const DURATION_S = 60
const CUT_AT_S = 20
const TIMEOUT_S = 10

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

/** count(*) of `table` once the cluster answers it whole again (a node back from a partition recovers its shards). */
async function countWhenWhole (cluster, table) {
  let last = null
  for (let i = 0; i < 60; i++) {
    try {
      await cluster.sql(`REFRESH TABLE ${table}`)
      const health = await cluster.sql(`SELECT count(*) FROM sys.shards WHERE table_name = ? AND state <> 'STARTED'`,
        [table.split('.')[1]])
      if (health.rows[0][0] === 0) return (await cluster.sql(`SELECT count(*) FROM ${table}`)).rows[0][0]
    } catch (error) {
      last = error
    }
    await sleep(2000)
  }
  throw new Error(`the cluster did not answer whole after the partition: ${last && last.message}`)
}

test('a host cut off mid-run: the run goes on, ends in time, names the silent host, the count exact (HTTP and pg)',
  { skip: SKIP, timeout: 900_000 }, async (t) => {
    let tag
    await t.test('the partition', async (inner) => {
      const cluster = await clusterOnHosts(inner, { count: 3, tarball })
      tag = cluster.tag
      const [, , silent] = cluster.nodes
      const [client] = cluster.clients
      for (const protocol of ['http', 'pg']) {
        const table = `doc.partition_${protocol}_${process.pid}`
        const began = Date.now()
        const running = cluster.bench(client, 'appClusterIngest.js', ['--host', cluster.urls.join(','),
          '--protocol', protocol, ...(protocol === 'pg' ? ['--pg_port', String(cluster.pgPort)] : []),
          '--duration', `${DURATION_S}s`,
          '--timeout', `${TIMEOUT_S}s`, '--processes', '1', '--batch_size', '500', '--concurrent_requests', '4',
          '--replicas', '1', '--table', table, '--json'], { timeoutMs: 300_000 })
        await sleep(CUT_AT_S * 1000)
        silent.cut()
        const run = await running
        const tookS = (Date.now() - began) / 1000
        silent.restore()
        assert.ok(run.json, run.stderr)
        const r = run.json
        console.log(`# ${protocol}: exit ${run.code} after ${tookS.toFixed(1)} s (sending ${r.sending_seconds} s, ` +
          `draining ${r.drain_seconds} s); sent ${r.rows_sent}, ok ` +
          `${r.rows_ok}, failed ${r.rows_failed}, in doubt ${r.rows_in_doubt}; partial: ${JSON.stringify(r.partial)} ` +
          `${JSON.stringify(r.partial_reasons ?? null)}; events ${JSON.stringify(r.events)}; errors ` +
          `${JSON.stringify((r.errors || []).map((e) => [e.count, e.code, e.in_doubt, e.message]))}`)
        assert.equal(r.rows_ok + r.rows_failed + r.rows_in_doubt, r.rows_sent, 'every row sent accounted for')
        assert.notEqual(run.code, 0, 'a run with failures or rows in doubt exits non-zero')
        // The silent host is named as silent: no connection, no answer within a timeout; never "refused".
        const named = (r.events || []).filter((e) => e.kind === 'host_down' && e.host.includes(silent.address))
        assert.ok(named.length > 0, `the silent host named: ${JSON.stringify(r.events)}`)
        for (const e of named) assert.doesNotMatch(e.detail, /refused/, e.detail)
        assert.match(named[0].detail, /no connection to .* within|no answer from .* within/)
        const count = await countWhenWhole(cluster, table)
        assert.ok(count >= r.rows_ok && count <= r.rows_ok + r.rows_in_doubt,
          `count(*) ${count} within [${r.rows_ok}, ${r.rows_ok + r.rows_in_doubt}]`)
        // The load ends within its duration and a drain of at most --timeout (requests still waiting on the silent
        // host are abandoned, in doubt); the whole process within that and its own start and finish: what comes after
        // the load leaves the silent host out (one short probe), never a --timeout per statement on it (2026-12-07:
        // 66–74 s, and 87 s once in a CI-like run whose drain waited its whole --timeout; 103 s for a 60-s run with
        // --timeout 15s before). The start (DDL on three nodes) and the finish on a cluster that reconfigures after
        // the cut take their seconds too: 30 s beside the duration and one --timeout.
        assert.ok(r.sending_seconds <= DURATION_S + 1, `sent for ${r.sending_seconds} s`)
        assert.ok(r.drain_seconds <= TIMEOUT_S + 1, `drained for ${r.drain_seconds} s`)
        assert.ok(tookS <= DURATION_S + TIMEOUT_S + 30, `the run ended after ${tookS} s`)
      }
    })
    assert.deepEqual(leftOf(tag), [], 'no namespace or link of the test left')
  })

/** A generator of a fleet on `host`, as a pod would run it: { child, done: { code, stdout, stderr } }. */
function generator (cluster, host, k, args) {
  const child = host.exec(process.execPath, [path.join(ROOT, 'appClusterIngest.js'), '--user', 'bench',
    '--generator', `${k}/2`, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, CRATE_PASSWORD: cluster.password, CRATE_BENCH_FLEET_HEARTBEAT_MS: '500' } })
  return { child, done: finished(child, 300_000) }
}

/** Resolves when `child`'s stderr shows `pattern`. */
const saying = (child, pattern) => new Promise((resolve) => {
  let seen = ''
  child.stderr.on('data', (chunk) => {
    seen += chunk
    if (pattern.test(seen)) resolve()
  })
})

// Two partitions of a fleet's generator 2: cut off from the cluster 10 s into its 30-s load (restored after the fleet
// ended), and cut off from the results table (the cluster that holds it) as its load ends, restored 20 s later. The
// steward judges it dead and counts its rows by their keys either way; the cut-off generator says its result could
// not be stored (after --timeout of silence) and exits 3, its own result on its stdout (--json).
const FLEET_CUTS = [
  { name: 'from the cluster mid-run', cutAfterS: 10, restoreAfterS: null },
  { name: 'from the results table as its load ends', cutAfterS: 30, restoreAfterS: 20 }
]

test('a fleet of two generators on two hosts, one host cut off from the cluster mid-run or from the results table ' +
  'as its load ends: the other finishes the fleet, counts the silent one\'s rows by their keys, the count exact',
{ skip: SKIP, timeout: 900_000 }, async (t) => {
  let tag
  await t.test('the partitions', async (inner) => {
    const cluster = await clusterOnHosts(inner, { count: 1, clients: 2, tarball })
    tag = cluster.tag
    const [near, far] = cluster.clients
    for (const [i, cut] of FLEET_CUTS.entries()) {
      const runId = `partition-fleet-${i + 1}-${process.pid}`
      const table = `doc.partition_fleet_${i + 1}_${process.pid}`
      const args = ['--host', cluster.urls.join(','), '--run_id', runId, '--duration', '30s', '--timeout', '5s',
        '--processes', '1', '--batch_size', '500', '--concurrent_requests', '2', '--table', table, '--json']
      const first = generator(cluster, near, 1, args)
      await saying(first.child, /prepared the tables for the fleet/)
      const second = generator(cluster, far, 2, args)
      await saying(second.child, /the load starts at/)
      await sleep(cut.cutAfterS * 1000)
      far.cut()
      const restored = cut.restoreAfterS === null ? null : sleep(cut.restoreAfterS * 1000).then(() => far.restore())
      const [steward, silent] = await Promise.all([first.done, second.done])
      await restored
      far.restore()
      const said = (run) => run.stderr.split('\n').filter((l) => /generator|fleet|late|stored/.test(l)).slice(-6)
      console.log(`# ${cut.name}: steward exit ${steward.code}; ${said(steward).join(' | ')}`)
      console.log(`# ${cut.name}: cut-off generator exit ${silent.code}; ${said(silent).join(' | ')}`)
      assert.equal(steward.code, 4, 'the fleet is partial: a generator went silent')
      assert.equal(silent.code, 3, silent.stderr)
      assert.match(silent.stderr, /its result could not be stored in doc\.crate_bench_results: no host answers/)
      assert.ok(JSON.parse(silent.stdout).rows_ok > 0, 'its own result on its stdout')
      assert.match(steward.stderr, /generator 2 \([^)]*\) was judged dead after [0-9.]+ s of silence: its rows counted/)
      const report = await near.run(process.execPath, [path.join(ROOT, 'bin', 'crate-bench.js'), 'report',
        '--host', cluster.urls[0], '--user', 'bench', '--results_table', 'doc.crate_bench_results', '--run_id', runId,
        '--json'], { cwd: ROOT, timeoutMs: 120_000, env: { ...process.env, CRATE_PASSWORD: cluster.password } })
      const m = JSON.parse(report.stdout || 'null')
      assert.ok(m, report.stderr)
      console.log(`# ${cut.name}: fleet ok ${m.rows_ok}, failed ${m.rows_failed}, in doubt ${m.rows_in_doubt}, sent ` +
        `${m.rows_sent}; reconciliation ${JSON.stringify(m.reconciliation)}; partial ` +
        `${JSON.stringify(m.partial_reasons)}`)
      assert.equal(m.partial, true)
      assert.ok((m.partial_reasons || []).some((r) => /generator 2 .*judged dead after [0-9.]+ s of silence/.test(r)),
        JSON.stringify(m.partial_reasons))
      const count = await countWhenWhole(cluster, table)
      assert.ok(count >= m.rows_ok && count <= m.rows_ok + m.rows_in_doubt,
        `count(*) ${count} within [${m.rows_ok}, ${m.rows_ok + m.rows_in_doubt}]`)
      assert.equal(m.rows_ok + m.rows_failed + m.rows_in_doubt, m.rows_sent, 'every row sent accounted for')
    }
  })
  assert.deepEqual(leftOf(tag), [], 'no namespace or link of the test left')
})
