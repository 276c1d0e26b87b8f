'use strict'

// --results_table, --run_id, --start_at end to end: two load generators (two runs of the tool) start
// together, each writes its row, and the README's aggregation SQL adds them up.

const test = require('node:test')
const assert = require('node:assert/strict')
const { withCrateTestDouble } = require('../helpers/crate-test-double')
const { runTool } = require('../helpers/run-tool')
const { CrateClient } = require('../../lib/http-client')
const { aggregateRunSql, RESULT_COLUMNS } = require('../../lib/results-store')
const { parseTableName } = require('../../lib/schema')

const withDouble = withCrateTestDouble
const clientFor = (double) => new CrateClient({ hosts: [{ protocol: 'http', hostname: '127.0.0.1', port: double.port }], user: 'crate', timeoutMs: 5000 })

test('two load generators with one --run_id start together and add up in SQL', () => withDouble({ fault: ({ bulk }) => (bulk ? { delayMs: 5 } : undefined) }, async (double) => {
  const startAt = new Date(Date.now() + 2500).toISOString()
  const common = ['--results_table', 'doc.bench_runs', '--run_id', 'multi-1', '--start_at', startAt, '--batch_size', '500', '--no-drop_table', '--json']
  const [a, b] = await Promise.all([
    runTool('appClusterIngest.js', [...common, '--processes', '2', '--max_rows', '3000'], { env: double.env() }),
    runTool('appClusterIngest.js', [...common, '--processes', '1', '--max_rows', '4000'], { env: double.env() })
  ])
  for (const run of [a, b]) {
    assert.equal(run.code, 0, run.stderr)
    assert.match(run.stderr, new RegExp(`waiting until ${startAt.replace(/\./g, '\\.')} \\(--start_at\\)`))
    assert.match(run.stderr, /result stored in doc\.bench_runs \(run_id multi-1\)/)
    assert.ok(Date.parse(run.json.started_at) >= Date.parse(startAt), `${run.json.started_at} is not before ${startAt}`)
  }
  assert.ok(Math.abs(Date.parse(a.json.started_at) - Date.parse(b.json.started_at)) < 250, 'both started at --start_at')

  const table = double.tables.get('doc.bench_runs')
  assert.equal(table.rows.length, 2)
  assert.deepEqual(Object.keys(table.rows[0]), RESULT_COLUMNS)
  const rowOfA = table.rows.find((r) => r.ok === 6000)
  assert.equal(rowOfA.run_id, 'multi-1')
  assert.equal(rowOfA.processes, 2)
  assert.equal(rowOfA.latency_p99_ms, a.json.latency_ms.p99)
  assert.deepEqual(JSON.parse(rowOfA.result), a.json)

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

test('a results table that cannot be created stops the run before any load', () => withDouble({
  fault: ({ stmt }) => (/^CREATE TABLE IF NOT EXISTS "doc"\."bench_runs"/.test(stmt) ? { status: 401, code: 4011, message: 'MissingPrivilegeException[Missing \'DDL\' privilege for user \'bench\']' } : undefined)
}, async (double) => {
  const run = await runTool('appClusterIngest.js', ['--results_table', 'doc.bench_runs', '--max_rows', '100', '--processes', '1'], { env: double.env() })
  assert.equal(run.code, 3)
  assert.match(run.stderr, /error: cannot create the results table doc\.bench_runs: MissingPrivilegeException/)
  assert.equal(double.bulkRowsReceived, 0)
}))

test('an existing table with other columns as --results_table: found before the load, exit 3', () => withDouble({}, async (double) => {
  const made = await runTool('appClusterIngest.js', ['--table', 'doc.not_results', '--max_rows', '100', '--processes', '1'], { env: double.env() })
  assert.equal(made.code, 0, made.stderr)
  const inserted = double.bulkRowsReceived
  const run = await runTool('appClusterIngest.js', ['--results_table', 'doc.not_results', '--max_rows', '100', '--processes', '1'], { env: double.env() })
  assert.equal(run.code, 3)
  assert.match(run.stderr, /^appClusterIngest\.js: error: the results table doc\.not_results exists without the columns run_id, load_generator, .*: it holds something else; give another --results_table$/m)
  assert.equal(double.bulkRowsReceived, inserted, 'no load was started')
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
  const run = await runTool('appClusterIngest.js', ['--start_at', new Date(Date.now() + 60_000).toISOString(), '--max_rows', '100', '--processes', '1', '--json'], {
    env: double.env(),
    waitFor: /waiting until/,
    whileRunning: (child) => child.kill('SIGINT')
  })
  assert.ok(Date.now() - started < 10_000)
  assert.equal(run.code, 4, run.stderr)
  assert.equal(run.json.rows_sent, 0)
  assert.equal(double.bulkRowsReceived, 0)
}))
