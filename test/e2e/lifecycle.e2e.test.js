'use strict'

// The run's lifecycle end to end: workers that die or fail at every stage, Ctrl-C and SIGTERM in
// every stage, to the master alone or to the whole process group. Every case must end on its own,
// print its report (marked partial) and exit with a documented code; none may hang.

const test = require('node:test')
const assert = require('node:assert/strict')
const { withCrateTestDouble } = require('../helpers/crate-test-double')
const { runTool, waitForChildren } = require('../helpers/run-tool')
const { tempFile } = require('../helpers/temp-files')
const { assertSomeMatch } = require('../helpers/patterns')

const withDouble = withCrateTestDouble
const ingest = (args, options) => runTool('appClusterIngest.js', args, options)
const tableRows = (double, name = 'doc.cpu') => (double.tables.get(name) || { written: 0 }).written
const accountingHolds = (json) => json.rows_ok + json.rows_failed + json.rows_in_doubt === json.rows_sent
const noStackTrace = (stderr) => !/\n\s+at .+:\d+:\d+/.test(stderr)

/** A fault script that signals the tool (once) when the double sees a statement matching `pattern`. */
function signalOn (pattern, tool, { signal = 'SIGINT', times = 1, fault = { delayMs: 1500 } } = {}) {
  let sent = false
  return ({ stmt }) => {
    if (!pattern.test(stmt)) return undefined
    if (!sent) {
      sent = true
      for (let i = 0; i < times; i++) setTimeout(() => tool.child.kill(signal), 50 + i * 300)
    }
    return fault
  }
}

function assertPartialReport (run, reasonPattern) {
  assert.equal(run.code, 4, run.stderr)
  assert.ok(run.json, `a JSON result on stdout:\n${run.stderr}`)
  assert.equal(run.json.partial, true)
  assert.ok(run.json.partial_reasons.some((r) => reasonPattern.test(r)), run.json.partial_reasons.join(' | '))
  assert.match(run.stderr, /PARTIAL RESULT: /)
  assert.ok(noStackTrace(run.stderr), run.stderr)
  assert.ok(accountingHolds(run.json))
}

/** Two ingest workers with a long run; `whileRunning` gets the master once the progress line shows rows ok. */
function ingestWhileRowsFlow (double, whileRunning) {
  const args = ['--processes', '2', '--max_rows', '100000000', '--batch_size', '100', '--concurrent_requests', '2',
    '--progress', '--json']
  return ingest(args, { env: double.env(), waitFor: /rows ok [1-9]/, whileRunning })
}

test('a worker killed before it is ready: the run ends within seconds, reports, exit 4', () => withDouble({},
  async (double) => {
  // Both workers are held in start-up for 30 s; the run must not wait for them.
  const run = await ingest(['--processes', '2', '--max_rows', '20000', '--json'], {
    env: double.env({ CRATE_BENCH_FAULT_WORKER_STARTUP: 'delay:30000' }),
    timeoutMs: 25_000,
    waitFor: /created table doc\.cpu/,
    whileRunning: async (child) => {
      const [worker] = await waitForChildren(child.pid, 2)
      process.kill(worker, 'SIGKILL')
    }
  })
  assertPartialReport(run, /^worker \d died \(SIGKILL\) before its final report$/)
  assert.equal(run.json.rows_sent, 0)
  assert.equal(double.statementsMatching(/^INSERT INTO (?!"doc"\."crate_bench_(tables|leases)")/).length, 0)
  assert.ok(run.seconds < 20, `${run.seconds} s`)
}))

test('a worker killed mid-load: its unreported rows are named in the reconciliation, not blamed on the cluster',
  () => withDouble({
  fault: ({ bulk }) => (bulk ? { delayMs: 20 } : undefined)
}, async (double) => {
  const run = await ingestWhileRowsFlow(double, async (child) => {
    const [worker] = await waitForChildren(child.pid, 2)
    process.kill(worker, 'SIGKILL')
  })
  assertPartialReport(run, /^worker \d died \(SIGKILL\) before its final report$/)
  const r = run.json.reconciliation
  assert.equal(r.counted, tableRows(double))
  assert.ok(r.counted >= r.acknowledged, JSON.stringify(r))
  assert.equal(r.unreported.workers.length, 1)
  if (r.verdict === 'above') {
    assert.ok(r.excess <= r.unreported.bound, `excess ${r.excess} within the bound ${r.unreported.bound}`)
    assert.match(run.stderr, /died before its final report, and the rows it sent after its last report/)
  }
  assert.doesNotMatch(run.stderr, /shard failover/)
}))

// After Ctrl-C the double holds every answer until the worker is killed: the kill lands while the worker drains,
// however late a loaded machine fires the test's timers.
test('a worker killed while the others drain after Ctrl-C: the run still ends and reports', () => {
  const drain = { started: false }
  drain.killed = new Promise((resolve) => { drain.release = resolve })
  return withDouble({
    fault: async ({ bulk }) => {
      if (!bulk) return undefined
      await new Promise((resolve) => setTimeout(resolve, 100))
      if (drain.started) await drain.killed
      return undefined
    }
  }, async (double) => {
    const run = await ingestWhileRowsFlow(double, async (child) => {
      const [worker] = await waitForChildren(child.pid, 2)
      drain.started = true
      child.kill('SIGINT')
      // The workers are now waiting for their requests in flight: their last periodic report is sent.
      setTimeout(() => {
        process.kill(worker, 'SIGKILL')
        drain.release()
      }, 300)
    })
    assertPartialReport(run, /^worker \d died \(SIGKILL\) before its final report$/)
    assertSomeMatch(run.json.partial_reasons, /^interrupted \(SIGINT\) during load$/)
    assert.ok(run.json.rows_ok > 0)
  })
})

test('a worker that fails during start-up: could not run, exit 3, the table restored', () => withDouble({},
  async (double) => {
  const run = await ingest(['--processes', '2', '--refresh_interval', '0', '--json'], {
    env: double.env({ CRATE_BENCH_FAULT_WORKER_STARTUP: 'fail:cannot build the host table' })
  })
  assert.equal(run.code, 3, run.stderr)
  assert.match(run.stderr, /^appClusterIngest\.js: error: worker \d could not start: cannot build the host table$/m)
  assert.ok(noStackTrace(run.stderr), run.stderr)
  assert.equal(double.statementsMatching(/^INSERT INTO (?!"doc"\."crate_bench_(tables|leases)")/).length, 0)
  assert.equal(double.statementsMatching(/^ALTER TABLE "doc"\."cpu" RESET \(refresh_interval\)$/).length, 1)
}))

test('Ctrl-C during prepare: the statement in progress completes, no load starts, report, exit 4', () => withDouble({},
  async (double) => {
  const tool = {}
  double.script.fault = signalOn(/^CREATE TABLE/, tool)
  const run = await ingest(['--processes', '2', '--json'], { env: double.env(),
    onSpawn: (child) => { tool.child = child } })
  assertPartialReport(run, /^interrupted \(SIGINT\) during prepare$/)
  assert.equal(run.json.rows_sent, 0)
  assert.equal(double.statementsMatching(/^INSERT INTO (?!"doc"\."crate_bench_(tables|leases)")/).length, 0)
}))

test('SIGTERM to the whole process group during the load: workers report their last rows; the report matches the table',
  () => withDouble({
  fault: ({ bulk }) => (bulk ? { delayMs: 50 } : undefined)
}, async (double) => {
  const run = await ingest(['--processes', '2', '--max_rows', '100000000', '--batch_size', '100',
    '--concurrent_requests', '2', '--progress', '--json'], {
    env: double.env(),
    detached: true,
    waitFor: /rows ok [1-9]/,
    whileRunning: (child) => process.kill(-child.pid, 'SIGTERM')
  })
  assertPartialReport(run, /^interrupted \(SIGTERM\) during load$/)
  assert.equal(run.json.rows_in_doubt, 0, 'every request in flight was answered and reported')
  assert.equal(run.json.rows_ok, tableRows(double))
  assert.equal(run.json.table_count, tableRows(double), 'the finish still refreshed and counted')
}))

test('SIGHUP (the terminal closed) to the whole group stops like SIGTERM: report, table restored, exit 4',
  () => withDouble({
  fault: ({ bulk }) => (bulk ? { delayMs: 50 } : undefined)
}, async (double) => {
  const run = await ingest(['--model', 'loadtest', '--processes', '2', '--max_rows', '100000000', '--batch_size', '100',
    '--concurrent_requests', '2', '--progress', '--json'], {
    env: double.env(),
    detached: true,
    waitFor: /rows ok [1-9]/,
    whileRunning: (child) => process.kill(-child.pid, 'SIGHUP')
  })
  assertPartialReport(run, /^interrupted \(SIGHUP\) during load$/)
  assert.equal(run.json.rows_in_doubt, 0, 'the workers ignored SIGHUP and reported their last rows')
  assert.equal(double.statementsMatching(/RESET \(refresh_interval\)/).length, 1, 'refresh_interval restored')
}))

test('two SIGTERMs within microseconds (kill -TERM to a group holding `timeout`) are one: nothing is abandoned',
  () => withDouble({
  fault: ({ bulk }) => (bulk ? { delayMs: 50 } : undefined)
}, async (double) => {
  const run = await ingest(['--processes', '1', '--max_rows', '100000000', '--batch_size', '100',
    '--concurrent_requests', '4', '--progress', '--json'], {
    env: double.env(),
    detached: true,
    waitFor: /rows ok [1-9]/,
    whileRunning: (child) => {
      process.kill(-child.pid, 'SIGTERM')
      process.kill(-child.pid, 'SIGTERM')
    }
  })
  assertPartialReport(run, /^interrupted \(SIGTERM\) during load$/)
  assert.equal(run.json.rows_in_doubt, 0, 'a second signal that close is not "abandon everything"')
}))

test('Ctrl-C while the companion ingest drains: both sections are reported, exit 4', (t) => withDouble({
  query: (stmt) => (/^SELECT count\(\*\) FROM doc\.cpu WHERE/.test(stmt) ? { cols: ['count'], rows: [[1]],
    rowcount: 1 } : null),
  fault: ({ bulk }) => (bulk ? { delayMs: 1500 } : undefined)
}, async (double) => {
  const mix = tempFile(t, 'mix.yml',
    '- {name: hosts, query: "SELECT count(*) FROM doc.cpu WHERE tags[\'hostname\'] = ?", ratio: 1, args: [{hostname: ' +
      '{}}]}\n')
  let queries = 0
  const tool = {}
  const answer = double.script.query
  double.script.query = (stmt, args) => {
    // The last of the 20 queries (plus 1 validation): the main group ends, the companion drains.
    if (answer(stmt, args) && ++queries === 21) setTimeout(() => tool.child.kill('SIGINT'), 300)
    return answer(stmt, args)
  }
  const run = await runTool('appClusterAnalytical.js', ['--queries_config', mix, '--max_queries', '20',
    '--concurrent_requests', '1', '--ingest_rate', '500', '--ingest_batch_size', '100', '--json'], {
    env: double.env(),
    onSpawn: (child) => { tool.child = child }
  })
  assert.equal(run.code, 4, run.stderr)
  assert.equal(run.json.queries_ok, 20)
  assert.match(run.stderr, /ingest next to the run/)
  assert.ok(run.json.partial_reasons.some((r) => /^interrupted \(SIGINT\)/.test(r)),
    run.json.partial_reasons.join(' | '))
  const side = run.json.ingest
  assert.equal(side.rows_in_doubt, 0, 'the companion waited for its inserts in flight')
  assert.equal(side.rows_ok, tableRows(double))
}))

test('Ctrl-C during the final REFRESH: the table is restored already, counting is skipped, exit 4', () => withDouble({},
  async (double) => {
  const tool = {}
  double.script.fault = signalOn(/^REFRESH TABLE/, tool)
  const run = await ingest(['--processes', '1', '--max_rows', '2000', '--refresh_interval', '0', '--json'],
    { env: double.env(), onSpawn: (child) => { tool.child = child } })
  assertPartialReport(run, /^interrupted \(SIGINT\) during finish$/)
  assert.equal(double.statementsMatching(/^ALTER TABLE "doc"\."cpu" RESET \(refresh_interval\)$/).length, 1)
  assert.equal(double.statementsMatching(/^SELECT count\(\*\) FROM "doc"\."cpu"$/).length, 0)
  assert.equal(run.json.table_count, null)
  assert.equal(run.json.rows_ok, 2000)
  assert.equal(run.json.tables_not_restored, undefined)
}))

test('Ctrl-C twice during a reset that hangs: the report says the table was not restored, exit 4', () => withDouble({},
  async (double) => {
  const tool = {}
  double.script.fault = signalOn(/^ALTER TABLE .* RESET/, tool, { times: 2, fault: 'hang' })
  const run = await ingest(['--processes', '1', '--max_rows', '2000', '--refresh_interval', '0', '--json'],
    { env: double.env(), onSpawn: (child) => { tool.child = child } })
  assertPartialReport(run, /^interrupted \(SIGINT\) during finish$/)
  assert.deepEqual(run.json.tables_not_restored.map((r) => r.table), ['doc.cpu'])
  assert.match(run.stderr, /NOT RESTORED: doc\.cpu .*ALTER TABLE "doc"\."cpu" RESET \(refresh_interval\)/)
}))

test('Ctrl-C twice with every request hanging: workers are abandoned, the master reports what it merged, exit 4',
  () => withDouble({}, async (double) => {
  const tool = {}
  let bulks = 0
  double.script.fault = ({ bulk }) => {
    if (!bulk) return undefined
    if (++bulks === 4) for (const delay of [100, 500]) setTimeout(() => tool.child.kill('SIGINT'), delay)
    return 'hang'
  }
  const run = await ingest(['--processes', '2', '--batch_size', '100', '--concurrent_requests', '2', '--json'], {
    env: double.env(),
    timeoutMs: 30_000,
    onSpawn: (child) => { tool.child = child }
  })
  assertPartialReport(run, /^interrupted \(SIGINT\) during load$/)
  assert.equal(run.json.rows_ok, 0)
  assert.equal(run.json.rows_sent, 400)
  assert.ok(run.seconds < 25, `${run.seconds} s`)
}))
