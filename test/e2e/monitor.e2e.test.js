'use strict'

// --monitor_interval end to end: the master samples sys.nodes during the run and reports the
// cluster's rejections, from the captured sys.nodes answers (56 before a load, 57 after).

const test = require('node:test')
const assert = require('node:assert/strict')
const { withCrateTestDouble, SYS_NODES_BEFORE, SYS_NODES_AFTER } = require('../helpers/crate-test-double')
const { runTool } = require('../helpers/run-tool')

const withDouble = withCrateTestDouble
const ingest = (args, options) => runTool('appClusterIngest.js', args, options)

// The first sample (the baseline, before any load) sees no rejections; every later one 1855.
const rejectionsGrow = (n) => (n === 1 ? SYS_NODES_BEFORE : SYS_NODES_AFTER).response.body

test('rejections that grow between samples: per-node table, a warning, the time series in JSON', () => withDouble({
  sysNodes: rejectionsGrow,
  fault: ({ bulk }) => (bulk ? { delayMs: 20 } : undefined)
}, async (double) => {
  const run = await ingest(['--processes', '1', '--max_rows', '2000', '--batch_size', '100', '--concurrent_requests',
    '2', '--monitor_interval', '100ms', '--json'], { env: double.env() })
  assert.equal(run.code, 0, run.stderr)
  const cluster = run.json.cluster
  assert.equal(cluster.interval_ms, 100)
  assert.equal(cluster.write_rejected, 1855)
  assert.equal(cluster.search_rejected, 0)
  assert.ok(cluster.samples.length >= 3,
    `${cluster.samples.length} samples over a ~200 ms run, plus the baseline and the final one`)
  assert.equal(cluster.samples[0].nodes[0].write.rejected_delta, 0)
  assert.equal(cluster.samples.at(-1).nodes[0].write.rejected_delta, 1855)
  assert.equal(cluster.samples.at(-1).nodes[0].os_cpu_pct, null)
  assert.equal(double.sysNodesSamples, cluster.samples.length)
  // The same samples on the load's clock in the timeline, and the first rejection as an event.
  const { nodes, events } = run.json.timeline
  assert.equal(nodes.length, cluster.samples.length)
  assert.deepEqual(nodes.map((n) => n.write_rejected), cluster.samples.map((s) => s.nodes[0].write.rejected_delta))
  assert.ok(nodes[0].t_s < 0, 'the baseline is taken before the load starts')
  assert.deepEqual(events.map((e) => [e.kind, e.host]), [['first_write_rejection', 'rej']])
  assert.match(run.stderr, /warning: the cluster rejected 1,855 write operations: past its saturation point/)
  // CrateDB 6.4 hides the OS's CPU (-1): no column of n/a for it.
  assert.match(run.stderr, /│ rej +│ 81 +│ 52\.6 +│ 0\.79 +│ 0 +│ 1,855 +│ 0 +│/)
  assert.doesNotMatch(run.stderr, /peak OS CPU/)
  // The capture's OS CPU is -1; no cell of the cluster table may show it. (Only the table: the
  // options line carries a random run id that can contain "-1".)
  const clusterTable = run.stderr.slice(run.stderr.indexOf('Cluster during the run'))
  assert.doesNotMatch(clusterTable, /│ *-1 *│/)
  assert.doesNotMatch(clusterTable, /-1/)
}))

test('--monitor_interval 0 sends no sys.nodes query; a bad interval is a one-line error', () => withDouble({},
  async (double) => {
  const run = await ingest(['--processes', '1', '--max_rows', '100', '--batch_size', '100', '--monitor_interval', '0',
    '--json'], { env: double.env() })
  assert.equal(run.code, 0, run.stderr)
  assert.equal(run.json.cluster, null)
  assert.equal(double.sysNodesSamples, 0)
  const bad = await ingest(['--monitor_interval', 'often'], { env: double.env() })
  assert.equal(bad.code, 2)
  assert.match(bad.stderr,
    /--monitor_interval must be a positive duration such as 500ms, 30s, 5m or 1h \(got 'often'\)/)
}))

test('sys.nodes not readable: the run goes on and the report says why', () => withDouble({
  // A user without privileges on sys sees the schema as unknown (shaped like capture 34).
  fault: ({ stmt }) => (stmt.includes('FROM sys.nodes') ? { status: 404, code: 4045,
    message: "SchemaUnknownException[Schema 'sys' unknown]" } : undefined)
}, async (double) => {
  const run = await ingest(['--processes', '1', '--max_rows', '100', '--batch_size', '100', '--json'],
    { env: double.env() })
  assert.equal(run.code, 0, run.stderr)
  assert.equal(run.json.rows_ok, 100)
  assert.equal(run.json.cluster.failed_samples, 2)
  assert.match(run.stderr, /note: 2 sys\.nodes samples failed: SchemaUnknownException\[Schema 'sys' unknown\]/)
}))
