'use strict'

// --results_table, --run_id, --start_at end to end: two load generators (two runs of the tool) start
// together, each writes its row, and the aggregation SQL of docs/runs-across-machines.md adds them up.

const test = require('node:test')
const assert = require('node:assert/strict')
const { withCrateTestDouble, startCrateTestCluster, clientTo } = require('../helpers/crate-test-double')
const hdr = require('hdr-histogram-js')
const { runTool } = require('../helpers/run-tool')
const { aggregateRunSql, RESULT_COLUMNS } = require('../../lib/results/store')
const { parseTableName } = require('../../lib/data/schema')
const { joined } = require('../helpers/patterns')

const withDouble = withCrateTestDouble
const clientFor = (double) => clientTo(double.port)

test('two load generators with one --run_id start together and add up in SQL',
  () => withDouble({ fault: ({ bulk }) => (bulk ? { delayMs: 5 } : undefined) }, async (double) => {
  // Far enough ahead that both have started and are waiting, on a loaded machine too (a start there took over 2.5 s).
  const startAt = new Date(Date.now() + 8000).toISOString()
  const common = ['--results_table', 'doc.bench_runs', '--run_id', 'multi-1', '--start_at', startAt, '--batch_size',
    '500', '--no-drop_table', '--json']
  const [a, b] = await Promise.all([
    runTool('appClusterIngest.js', [...common, '--processes', '2', '--max_rows', '3000'], { env: double.env() }),
    runTool('appClusterIngest.js', [...common, '--processes', '1', '--max_rows', '4000'], { env: double.env() })
  ])
  // A machine so loaded that a set-up took longer (CI beside four busy loops: 15 s) starts at once and says so.
  const late = [a, b].some((run) => /note: --start_at \S+ passed \d+ ms ago \(setup took longer\); starting now/
    .test(run.stderr))
  for (const run of [a, b]) {
    assert.equal(run.code, 0, run.stderr)
    if (!late) assert.match(run.stderr, new RegExp(`waiting until ${startAt.replace(/\./g, '\\.')} \\(--start_at\\)`))
    assert.match(run.stderr, /result stored in doc\.bench_runs \(run_id multi-1\)/)
    assert.ok(late || Date.parse(run.json.started_at) >= Date.parse(startAt),
      `${run.json.started_at} is not before ${startAt}`)
  }
  if (!late) {
    assert.ok(Math.abs(Date.parse(a.json.started_at) - Date.parse(b.json.started_at)) < 250,
      'both started at --start_at')
  }

  const table = double.tables.get('doc.bench_runs')
  assert.equal(table.rows.length, 2)
  assert.deepEqual(Object.keys(table.rows[0]), RESULT_COLUMNS)
  const rowOfA = table.rows.find((r) => r.ok === 6000)
  assert.equal(rowOfA.run_id, 'multi-1')
  assert.equal(rowOfA.processes, 2)
  assert.equal(rowOfA.latency_p99_ms, a.json.latency_ms.p99)
  assert.deepEqual(JSON.parse(rowOfA.result_json), a.json)

  const client = clientFor(double)
  try {
    const answer = await client.sql(aggregateRunSql(parseTableName('doc.bench_runs')), ['multi-1'])
    const [loadGenerators, ok, failed, seconds, perSec] = answer.rows[0]
    const starts = [a, b].map((r) => Date.parse(r.json.started_at))
    const ends = [a, b].map((r) => Date.parse(r.json.started_at) + r.json.seconds * 1000)
    const span = (Math.max(...ends) - Math.min(...starts)) / 1000
    assert.deepEqual([loadGenerators, ok, failed], [2, 10_000, 0])
    assert.ok(Math.abs(seconds - span) < 0.002, `${seconds} vs ${span}`)
    assert.ok(Math.abs(perSec - 10_000 / span) < 10_000 / span * 0.002)
    const other = await client.sql(aggregateRunSql(parseTableName('doc.bench_runs')), ['another-run'])
    assert.equal(other.rows[0][0], 0)
  } finally {
    client.close()
  }
}))

test('two generators of one run write disjoint rows; crate-bench report merges their histograms exactly, ' +
  'not their p99s', async () => {
  // Generator 1 talks to node 0, which answers every bulk in 5 ms; generator 2 to node 1, which
  // answers one bulk in ten after 200 ms. Generator 2's p99 is ~200 ms, generator 1's ~5 ms: their
  // mean is ~100 ms, but 5% of all requests took 200 ms, so the p99 of the run is ~200 ms.
  let slowBulks = 0
  const cluster = await startCrateTestCluster({
    trackKeys: true,
    fault: ({ bulk, node }) =>
      !bulk ? undefined : node === 1 && ++slowBulks % 10 === 0 ? { delayMs: 200 } : { delayMs: 5 }
  }, { nodes: 2 })
  try {
    // Two generators of one run are a fleet: they coordinate through the fleet table and start together.
    const common = ['--results_table', 'doc.bench_runs', '--run_id', 'merge-1', '--processes', '1',
      '--concurrent_requests', '1', '--batch_size', '100', '--max_rows', '20000', '--json']
    const node = (i) => ({ ...cluster.env(), CRATE_HOST: `127.0.0.1:${cluster.nodes[i].port}` })
    const [a, b] = await Promise.all([
      runTool('appClusterIngest.js', [...common, '--generator', '1/2'], { env: node(0) }),
      runTool('appClusterIngest.js', [...common, '--generator', '2/2'], { env: node(1) })
    ])
    for (const run of [a, b]) assert.equal(run.code, 0, run.stderr)
    assert.equal(cluster.keys.size, 40_000, 'every (hostname, ts) written once')
    assert.equal(cluster.duplicateKeys, 0)

    const merged = await runTool('bin/crate-bench.js', ['report', '--results_table', 'doc.bench_runs', '--run_id',
      'merge-1', '--json'], { env: node(0) })
    assert.equal(merged.code, 0, merged.stderr)
    const m = merged.json
    assert.equal(m.rows_ok, 40_000)
    assert.equal(m.requests, 400)
    const byHand = hdr.decodeFromCompressedBase64(a.json.histograms.latency, 32, false)
    byHand.add(hdr.decodeFromCompressedBase64(b.json.histograms.latency, 32, false))
    const p99 =
      Math.round(
        Math.min(byHand.getValueAtPercentile(99), Math.max(a.json.latency_ms.max, b.json.latency_ms.max) * 1000)
      ) / 1000
    assert.equal(m.latency_ms.p99, p99, 'the p99 of the two histograms merged')
    const meanOfP99s = (a.json.latency_ms.p99 + b.json.latency_ms.p99) / 2
    assert.ok(m.latency_ms.p99 >= 200, `merged p99 ${m.latency_ms.p99} ms: 5% of the requests took 200 ms`)
    // Where the fast generator kept its pace (~5 ms) the mean of the p99s understates the merged p99 (the slow
    // generator's own p99 is whatever a starved machine makes of its 200-ms answers: 200 ms quiet, 310 beside four
    // busy loops); a starved machine's stalls raise the fast one's p99 too, and then the exact merge above is what
    // tells the two apart.
    if (a.json.latency_ms.p99 < 100) {
      assert.ok(meanOfP99s < m.latency_ms.p99, `merged p99 ${m.latency_ms.p99} ms, mean of the p99s ${meanOfP99s} ms`)
    }
    // The merge puts each generator's window on the server's clock, with the offset the fleet measured for it.
    const offsetOf = (r) =>
      m.fleet.generators.find((g) => g.generator === r.json.options.generator.index + 1).clock_offset_ms
    const starts = [a, b].map((r) => Date.parse(r.json.started_at) + offsetOf(r))
    const ends = [a, b].map((r, i) => starts[i] + r.json.seconds * 1000)
    assert.equal(m.seconds, Math.round(Math.max(...ends) - Math.min(...starts)) / 1000)
    assert.match(merged.stderr, /^run merge-1: 2 load generators$/m)
    assert.equal(m.reconciliation.counted, 40_000, 'the fleet reconciled once')
    assert.deepEqual(m.load_generators.map((g) => g.generator.index).sort(), [0, 1])
  } finally {
    await cluster.stop()
  }
})

test('--no-drop_table into a table with rows: the new rows continue after its last timestamp, none repeated',
  () => withDouble({ trackKeys: true }, async (double) => {
  const first = await runTool('appClusterIngest.js', ['--processes', '1', '--max_rows', '20000'], { env: double.env() })
  assert.equal(first.code, 0, first.stderr)
  const again = await runTool('appClusterIngest.js', ['--processes', '2', '--max_rows', '10000', '--no-drop_table'],
    { env: double.env() })
  assert.equal(again.code, 0, again.stderr)
  assert.equal(double.keys.size, 40_000)
  assert.equal(double.duplicateKeys, 0)
}))

test('bad --generator: one line, exit 2', () => withDouble({}, async (double) => {
  for (const value of ['3/2', '0/1', 'a/b', '1']) {
    const run = await runTool('appClusterIngest.js', ['--generator', value], { env: double.env() })
    assert.equal(run.code, 2)
    assert.match(run.stderr,
      new RegExp('^appClusterIngest\\.js: error: --generator must be K/N with 1 <= K <= N, ' +
        `e\\.g\\. 2/3 for the second of three load generators \\(got '${value}'\\)\\n$`))
  }
}))

test('a results table that cannot be created stops the run before any load', () => withDouble({
  fault: ({ stmt }) => (/^CREATE TABLE IF NOT EXISTS "doc"\."bench_runs"/.test(stmt) ? { status: 401, code: 4011,
    message: 'MissingPrivilegeException[Missing \'DDL\' privilege for user \'bench\']' } : undefined)
}, async (double) => {
  const run = await runTool('appClusterIngest.js', ['--results_table', 'doc.bench_runs', '--max_rows', '100',
    '--processes', '1'], { env: double.env() })
  assert.equal(run.code, 3)
  assert.match(run.stderr, /error: cannot create the results table doc\.bench_runs: MissingPrivilegeException/)
  assert.equal(double.bulkRowsReceived, 0)
}))

test('an existing table with other columns as --results_table: found before the load, exit 3', () => withDouble({},
  async (double) => {
  const made = await runTool('appClusterIngest.js', ['--table', 'doc.not_results', '--max_rows', '100', '--processes',
    '1'], { env: double.env() })
  assert.equal(made.code, 0, made.stderr)
  const inserted = double.bulkRowsReceived
  const run = await runTool('appClusterIngest.js', ['--results_table', 'doc.not_results', '--max_rows', '100',
    '--processes', '1'], { env: double.env() })
  assert.equal(run.code, 3)
  assert.match(run.stderr,
    joined(
      /^appClusterIngest\.js: error: the results table doc\.not_results exists without the columns /,
      /run_id, load_generator, .*: it holds something else; give another --results_table$/m))
  assert.equal(double.bulkRowsReceived, inserted, 'no load was started')
}))

// The results table as versions before 0.2 created it: the whole result in an indexed TEXT column `result`.
const LEGACY_COLUMNS = ['run_id TEXT', 'load_generator TEXT', 'workload TEXT', 'started_at TIMESTAMP WITH TIME ZONE',
  'ended_at TIMESTAMP WITH TIME ZONE', 'seconds DOUBLE PRECISION', 'unit TEXT', 'processes INTEGER', 'sent BIGINT',
  'ok BIGINT', 'failed BIGINT', 'unacknowledged BIGINT', 'per_sec DOUBLE PRECISION', 'latency_p50_ms DOUBLE PRECISION',
  'latency_p90_ms DOUBLE PRECISION', 'latency_p99_ms DOUBLE PRECISION', 'latency_p999_ms DOUBLE PRECISION',
  'latency_max_ms DOUBLE PRECISION', 'partial BOOLEAN', 'options OBJECT(IGNORED)', 'result TEXT']

test('a results table of an earlier version (indexed result): refused before the load with the fix; ' +
  'its runs still read', () => withDouble({}, async (double) => {
  const client = clientFor(double)
  try {
    await client.sql(`CREATE TABLE "doc"."old_runs" (${LEGACY_COLUMNS.join(', ')}) ` +
      "CLUSTERED INTO 1 SHARDS WITH (number_of_replicas = '0-1')")
    const earlier = await runTool('appClusterIngest.js', ['--max_rows', '1000', '--processes', '1', '--json'],
      { env: double.env() })
    assert.equal(earlier.code, 0, earlier.stderr)
    const columns = LEGACY_COLUMNS.map((c) => c.split(' ')[0])
    const values = { run_id: 'old-1', started_at: Date.parse(earlier.json.started_at), ok: earlier.json.rows_ok,
      result: earlier.stdout.trim() }
    const placeholders = columns.map(() => '?').join(', ')
    await client.sql(`INSERT INTO "doc"."old_runs" (${columns.join(', ')}) VALUES (${placeholders})`,
      columns.map((c) => values[c] ?? null))
    await client.sql('REFRESH TABLE "doc"."old_runs"')
  } finally {
    client.close()
  }
  const sent = double.bulkRowsReceived
  const run = await runTool('appClusterIngest.js', ['--results_table', 'doc.old_runs', '--max_rows', '100',
    '--processes', '1'], { env: double.env() })
  assert.equal(run.code, 3, run.stderr)
  assert.match(run.stderr,
    joined(
      /^appClusterIngest\.js: error: the results table doc\.old_runs was made by an earlier version of /,
      /this tool: its indexed "result" column refuses a result over 32 KB, .*\(ALTER TABLE doc\.old_runs /,
      /RENAME TO old_runs_v1\) and the tool creates a new one, or give another --results_table$/m))
  assert.equal(double.bulkRowsReceived, sent, 'no load was started')
  const report = await runTool('bin/crate-bench.js', ['report', '--results_table', 'doc.old_runs', '--run_id', 'old-1',
    '--json'], { env: double.env() })
  assert.equal(report.code, 0, report.stderr)
  assert.equal(report.json.rows_ok, 1000, 'the earlier run is read from its result column')
}))

test('bad --results_table, --run_id, --start_at: one line, exit 2', () => withDouble({}, async (double) => {
  for (const [args, message] of [
    [['--results_table', 'sys.runs'], /--results_table 'sys\.runs': schema 'sys' is a system schema/],
    [['--run_id', 'a b'], /--run_id must be 1 to 100 letters, digits or \. _ : - \(got 'a b'\)/],
    [['--start_at', 'tomorrow'], /--start_at must be an ISO time such as 2026-11-22T10:00:00Z \(got 'tomorrow'\)/],
    [['--start_at', new Date(Date.now() + 3 * 86_400_000).toISOString()], /is more than 24 hours away/]
  ]) {
    const run = await runTool('appClusterIngest.js', args, { env: double.env() })
    assert.equal(run.code, 2, run.stderr)
    assert.match(run.stderr, message)
  }
  assert.equal(double.statements.length, 0)
}))

test('Ctrl-C while waiting for --start_at ends at once, with nothing sent', () => withDouble({}, async (double) => {
  const started = Date.now()
  const run = await runTool('appClusterIngest.js', ['--start_at', new Date(Date.now() + 60_000).toISOString(),
    '--max_rows', '100', '--processes', '1', '--json'], {
    env: double.env(),
    waitFor: /waiting until/,
    whileRunning: (child) => child.kill('SIGINT')
  })
  assert.ok(Date.now() - started < 10_000)
  assert.equal(run.code, 4, run.stderr)
  assert.equal(run.json.rows_sent, 0)
  assert.equal(double.bulkRowsReceived, 0)
}))
