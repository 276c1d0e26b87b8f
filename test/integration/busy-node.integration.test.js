'use strict'

// A node busy before a run began (another client's queries on it) marks the run's report: its CPU when the run read the
// cluster's shape, before it made a table or sent a row, is not this run's. A quiet node marks nothing.
// CRATE_TEST_URL: a single node no other test loads meanwhile (integration tests run one file at a time).

const test = require('node:test')
const assert = require('node:assert/strict')
const { SKIP, clusterEnv, clusterClient, scratchTable } = require('../helpers/real-cluster')
const { runTool } = require('../helpers/run-tool')
const { tempDir } = require('../helpers/temp-files')
const { BUSY_IDLE_CPU_PCT } = require('../../lib/cluster/idle-cpu')
const { joined } = require('../helpers/patterns')

if (SKIP) console.log(`# ${SKIP}`)

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

/** Polls the busiest node's process CPU until `until(cpu)` holds; its last reading (or null past `timeoutMs`). */
async function nodeCpu (client, until, timeoutMs) {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const answer = await client.sql("SELECT max(process['cpu']['percent']) FROM sys.nodes")
    const cpu = answer.rows[0][0]
    if (until(cpu)) return cpu
    if (Date.now() > deadline) return null
    await sleep(500)
  }
}

const shortRun = (table) => ['--table', table, '--duration', '2s', '--monitor_interval', '1s', '--batch_size', '1000',
  '--concurrent_requests', '2']

// The other client: CPU-bound queries in four loops (a cross join of sys.summits, ~2.6M pairs each), light on this
// machine's client side, heavy on the node's cores.
const BURN = 'SELECT count(*) FROM sys.summits a CROSS JOIN sys.summits b WHERE a.height + b.height > 1000'

test('a node busy with another client\'s queries before the run began is said to be so; once quiet, nothing is said',
  { skip: SKIP, timeout: 240_000 }, async (t) => {
    const client = clusterClient()
    const ours = scratchTable('bench_it_busy')
    let burning = true
    const loops = Array.from({ length: 4 }, async () => {
      while (burning) await client.sql(BURN)
    })
    try {
      const busyAt = await nodeCpu(client, (cpu) => cpu >= BUSY_IDLE_CPU_PCT + 15, 60_000)
      if (busyAt === null) {
        // A node's CPU is its share of its machine: on a machine busy with other work it never gets there.
        t.skip(`the machine is too busy for the node to reach ${BUSY_IDLE_CPU_PCT + 15}% CPU: nothing to judge here`)
        return
      }
      const busy = await runTool('appClusterIngest.js', shortRun(ours), { env: clusterEnv() })
      assert.equal(busy.code, 0, busy.stderr)
      assert.match(busy.stderr, joined(
        /warning: the nodes were busy before this run began \([^)]*CPU \d+% or more through 3 s /,
        /before it made a table or sent a row: another client, or the merges of an earlier load\): /,
        /these figures are not the cluster's alone/))
      console.log(`# ${busy.stderr.split('\n').find((line) => /busy before this run began/.test(line))}`)
      // Issue 54: a grid run beside the other client, then sized: the sizing names its busy runs and plans with none.
      // Two cells: every statement of a run waits behind the other client's queries (a 2 × 2 grid took over 180 s).
      const out = tempDir(t)
      const grid = await runTool('bin/crate-bench.js', ['sweep', 'grid', '--vary', 'batch_size=500,1000', '--vary',
        'concurrent_requests=2', '--out', out, '--', '--table', ours, '--duration', '2s', '--monitor_interval', '1s',
        '--warmup', '0'], { env: clusterEnv(), timeoutMs: 180_000 })
      assert.equal(grid.code, 0, grid.stderr)
      const sized = await runTool('bin/crate-bench.js', ['sizing', out, '--json'])
      assert.equal(sized.code, 0, sized.stderr)
      const [shape] = sized.json.groups[0].shapes
      assert.match(shape.verdicts.join('\n'),
        /^busy: [12] of 2 runs ran beside other work or on nodes busy beyond the load or before it/m)
      assert.equal(shape.planning.per_sec, null, 'no figure to plan with from busy runs of one run a cell')
      assert.match(sized.stderr, /^warning: 1 node: busy: [12] of 2 runs/m)
      console.log(`# ${sized.stderr.split('\n').find((line) => /^warning: 1 node: busy/.test(line))}`)
      burning = false
      await Promise.all(loops)
      // Quiet again: the other client gone.
      const quietAt = await nodeCpu(client, (cpu) => cpu <= 10, 90_000)
      assert.ok(quietAt !== null, 'the node stayed busy after the other client ended')
      const quiet = await runTool('appClusterIngest.js', shortRun(ours), { env: clusterEnv() })
      assert.equal(quiet.code, 0, quiet.stderr)
      assert.doesNotMatch(quiet.stderr, /busy before this run began/)
    } finally {
      burning = false
      await Promise.all(loops).catch(() => {})
      await client.sql(`DROP TABLE IF EXISTS ${ours}`).catch(() => {})
      client.close()
    }
  })
