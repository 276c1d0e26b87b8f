'use strict'

// A node lost under load, against a test cluster of three endpoints over one table (captures
// 60-64): the run goes on with the survivors, every row is ok, failed or in doubt exactly as the
// cluster treated it, and the table's count is checked against both.

const test = require('node:test')
const assert = require('node:assert/strict')
const { startCrateTestCluster } = require('../helpers/crate-test-double')
const { runTool } = require('../helpers/run-tool')
const { joined, assertSomeMatch } = require('../helpers/patterns')

const ingest = (args, options) => runTool('appClusterIngest.js', args, options)
const BATCH = 200

async function withCluster (script, fn) {
  const cluster = await startCrateTestCluster(script, { nodes: 3 })
  try {
    return await fn(cluster)
  } finally {
    await cluster.stop()
  }
}

/** Bulks are written, then answered 30 ms later; the fifth bulk that reaches node 2 kills it. */
function nodeLossScript (cluster, { reviveAfterMs = null } = {}) {
  let bulksAtNode2 = 0
  return ({ bulk, node }) => {
    if (!bulk) return undefined
    if (node === 2 && ++bulksAtNode2 === 5) {
      setImmediate(() => cluster.kill(2))
      if (reviveAfterMs !== null) setTimeout(() => cluster.revive(2), reviveAfterMs)
    }
    return { answerDelayMs: 30 }
  }
}

test('a node killed mid-run and revived: the run finishes, rows are classified as the cluster treated them, the ' +
  'events say when', () => withCluster({
  failover: { windowMs: 1000, duplicateEvery: 3, bareEvery: 5 }
}, async (cluster) => {
  cluster.script.fault = nodeLossScript(cluster, { reviveAfterMs: 1000 })
  const run = await ingest(['--processes', '2', '--max_rows', '60000', '--batch_size', String(BATCH),
    '--concurrent_requests', '3', '--json'], { env: cluster.env() })
  const r = run.json
  assert.equal(run.code, 1, run.stderr)
  assert.equal(r.partial, false, 'the window is complete: the run went on through the loss')
  assert.equal(r.rows_sent, 120_000)
  assert.equal(r.rows_ok + r.rows_failed + r.rows_in_doubt, r.rows_sent)
  // Exactly what the cluster acknowledged row by row, and what it rejected in its answers.
  assert.equal(r.rows_ok, cluster.rowsAcknowledged)
  assert.ok(r.rows_in_doubt >= BATCH, 'at least the bulk that was in flight on node 2 when it died')
  assert.equal(r.rows_in_doubt % BATCH, 0)
  const byCode = (code, inDoubt) =>
    r.errors.filter((e) => e.code === code && e.in_doubt === inDoubt).reduce((sum, e) => sum + e.count, 0)
  assert.equal(byCode('ECLOSED', true) + byCode('ECONNRESET', true) + byCode('EPIPE', true), r.rows_in_doubt)
  assert.ok(byCode(4091, false) > 0, 'rows a survivor answered with 4091 during the failover (63)')
  assert.ok(byCode(null, false) > 0, 'rows a survivor answered with a bare -2 (63)')
  assert.equal(byCode('ECONNREFUSED', false) % BATCH, 0, 'a refused request fails whole')
  assert.ok(r.errors.find((e) => e.code === null).sample.includes('without error details'))
  // The count, from a node that answers, against acknowledged + in doubt.
  const stored = cluster.tables.get('doc.cpu').written
  assert.equal(r.table_count, stored)
  assert.equal(r.reconciliation.counted, stored)
  assert.equal(r.reconciliation.verdict, 'above', 'rows answered with 4091 were stored')
  assert.equal(r.reconciliation.excess, stored - r.rows_ok - r.rows_in_doubt)
  assert.match(run.stderr, /│ [\d,]+: [\d,]+ more than acknowledged \+ in doubt +│/)
  assert.match(run.stderr,
    joined(
      /\nwarning: the table holds [\d,]+ rows more than the [\d,]+ acknowledged and the /,
      /[\d,]+ in doubt together: CrateDB stored rows it had reported as failed/))
  // The loss and the return of node 2, in order.
  const node2 = `http://127.0.0.1:${cluster.nodes[2].port}`
  assert.deepEqual(r.events.map((e) => [e.kind, e.host]), [['host_down', node2], ['host_up', node2]])
  assert.ok(r.events[1].at_s > r.events[0].at_s)
  assert.match(run.stderr, /Events during the run:/)
}))

test('a node dead before the run: a warning, the run completes on the others, every row acknowledged, exit 0',
  () => withCluster({}, async (cluster) => {
  await cluster.kill(1)
  const run = await ingest(['--processes', '2', '--max_rows', '5000', '--batch_size', '500', '--json'],
    { env: cluster.env() })
  assert.equal(run.code, 0, run.stderr)
  assert.match(run.stderr,
    new RegExp(`warning: connection refused by http://127\\.0\\.0\\.1:${cluster.nodes[1].port}; ` +
      'the run goes on with the other hosts'))
  assert.equal(run.json.rows_ok, 10_000)
  assert.equal(run.json.reconciliation.verdict, 'exact')
  assert.equal(cluster.nodes[1].requests, 0)
}))

test('every node killed: server gone within --timeout, the report printed, exit 4', () => withCluster({},
  async (cluster) => {
  let bulks = 0
  cluster.script.fault = ({ bulk }) => {
    if (bulk && ++bulks === 10) setImmediate(() => Promise.all([0, 1, 2].map((i) => cluster.kill(i))))
    return bulk ? { answerDelayMs: 20 } : undefined
  }
  const run = await ingest(['--processes', '1', '--max_rows', '1000000', '--batch_size', '100', '--timeout', '1s',
    '--json'], { env: cluster.env() })
  assert.equal(run.code, 4, run.stderr)
  assertSomeMatch(run.json.partial_reasons,
    /server gone: no host answers: all 3 hosts have been down for more than 1000 ms/)
  assert.match(run.stderr, /PARTIAL RESULT/)
  assert.equal(run.json.rows_ok + run.json.rows_failed + run.json.rows_in_doubt, run.json.rows_sent)
  assert.equal(run.json.rows_ok, cluster.rowsAcknowledged)
  assert.equal(run.json.events.filter((e) => e.kind === 'host_down').length, 3)
  assert.ok(run.seconds < 30, `${run.seconds} s`)
}))

// Issue 67: a run of a study whose only node was killed mid-run called itself whole (exit 1, partial false, no node
// named) and waited its whole --timeout past its duration.
test('a timed run whose only node is killed: partial, exit 4, the node named, ended within its duration and a ' +
  'moment, not its --timeout', async (t) => {
  const fs = require('node:fs')
  const path = require('node:path')
  const { startFakeNode } = require('../helpers/fake-distribution')
  const { freeClusterPort } = require('../helpers/ports')
  const { tempDir } = require('../helpers/temp-files')
  const port = await freeClusterPort(1)
  const node = await startFakeNode(t, port)
  // The record a study hands its runs (lib/results/provisioned.js): the node by its pid.
  const record = path.join(tempDir(t), 'record.json')
  fs.writeFileSync(record, JSON.stringify({ name: 'crate-bench-fake', version: '9.9.9', nodes: 1, heap: '256m',
    on: 'this machine', by: 'the study', ports: [{ node: 'crate-bench-fake-n1', http: port, pg: port + 100,
      pid: node.pid }] }))
  const run = await ingest(['--host', `http://127.0.0.1:${port}`, '--processes', '1', '--duration', '4s',
    '--warmup', '0', '--batch_size', '100', '--concurrent_requests', '2', '--timeout', '60s', '--started_by_study',
    record, '--progress', '--json'], {
    waitFor: /rows ok [1-9]/,
    whileRunning: () => node.kill('SIGKILL')
  })
  assert.equal(run.code, 4, run.stderr)
  assert.equal(run.json.partial, true)
  // Its process gone, the run ended at once (lib/run/node-watch.js), the node named.
  assertSomeMatch(run.json.partial_reasons, /server gone: every node of the cluster the study started is gone: crate-/)
  assert.equal(run.json.rows_ok + run.json.rows_failed + run.json.rows_in_doubt, run.json.rows_sent)
  assert.deepEqual(run.json.environment.cluster.provisioned.lost_nodes.map((n) => [n.node, n.pid]),
    [['crate-bench-fake-n1', node.pid]])
  assert.match(run.stderr, /^warning: crate-bench-fake-n1 \(pid \d+\) of the cluster the study started is no longer /m)
  // 4 s of load, the master's moment after it (5 s), the start: far under the 60-s --timeout it used to wait.
  assert.ok(run.seconds < 30, `${run.seconds} s`)
})

test('a host cut off mid-run (silent: it answers nothing) is down for the master\'s statements after the load too: ' +
  'none of them waits a --timeout on it', () => withCluster({}, async (cluster) => {
  let bulksAtNode2 = 0
  let cut = false
  const hungAfterCut = []
  cluster.script.fault = ({ bulk, node, stmt }) => {
    if (node === 2 && bulk && ++bulksAtNode2 === 5) cut = true
    if (!(cut && node === 2)) return undefined
    if (!bulk) hungAfterCut.push(stmt)
    return 'hang'
  }
  const run = await ingest(['--processes', '1', '--duration', '6s', '--warmup', '0', '--batch_size', String(BATCH),
    '--concurrent_requests', '2', '--timeout', '2s', '--monitor_interval', '0', '--json'],
  { env: cluster.env(), timeoutMs: 120_000 })
  const r = run.json
  assert.ok(r, run.stderr)
  assert.equal(cut, true, 'node 2 went silent during the load')
  assert.equal(r.rows_ok + r.rows_failed + r.rows_in_doubt, r.rows_sent)
  assert.ok(r.events.some((e) => e.kind === 'host_down' && e.host.endsWith(`:${cluster.nodes[2].port}`)),
    JSON.stringify(r.events))
  // The finish (the table's settings restored, refreshed, counted, recorded; the lease given back) went to the hosts
  // that answer: before, each statement round-robin'd onto the silent host waited out --timeout there.
  assert.deepEqual(hungAfterCut, ['SELECT 1'], 'no statement of the master sent to the silent host but the one ' +
    'short probe that found it silent')
  assert.equal(r.table_count_matches !== undefined, true)
}))
