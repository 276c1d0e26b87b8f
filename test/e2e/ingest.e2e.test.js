'use strict'

// appClusterIngest.js end to end, as a user runs it, against the CrateDB test double.

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const { startCrateTestDouble, withCrateTestDouble, clientTo } = require('../helpers/crate-test-double')
const { runTool, childPids } = require('../helpers/run-tool')
const { testOverProtocols } = require('../helpers/protocols')
const { closedPort } = require('../helpers/ports')
const { NO_REASON } = require('../../lib/cluster/pg-client')
const { joined, assertSomeMatch } = require('../helpers/patterns')
const { tempDir } = require('../helpers/temp-files')
const { takeLease } = require('../../lib/workloads/table-lease')
const { parseTableName } = require('../../lib/data/schema')

const ingest = (args, options) => runTool('appClusterIngest.js', args, options)
const noStackTrace = (stderr) => !/\n\s+at .+:\d+:\d+/.test(stderr)

const withDouble = withCrateTestDouble

// A fault script for the double: the nth bulk request gets `fault`, every other request its answer.
function onNthBulk (n, fault) {
  let bulks = 0
  return ({ bulk }) => (bulk && ++bulks === n ? fault : undefined)
}

const inserts = (double) => double.statements.filter((s) => s.rows !== undefined)
const accountingHolds = (json) => json.rows_ok + json.rows_failed + json.rows_in_doubt === json.rows_sent

test('the cluster\'s node count and version are read with its shape, once; a cluster that will not give its shape is ' +
  'asked for them alone', async () => {
  const environmentSql = /^SELECT count\(\*\) AS nodes, max\(version\['number'\]\) AS version FROM sys\.nodes$/
  await withCrateTestDouble({}, async (double) => {
    const run = await ingest(['--max_rows', '100', '--processes', '1', '--monitor_interval', '0', '--json'],
      { env: double.env() })
    assert.equal(run.code, 0, run.stderr)
    assert.deepEqual([run.json.environment.cratedb_nodes, run.json.environment.cratedb_version,
      run.json.environment.cluster.nodes], [1, '6.4.3', 1])
    assert.equal(double.statementsMatching(environmentSql).length, 0, 'the shape said it already')
  })
  await withCrateTestDouble({
    fault: ({ stmt }) => (/os_info\['available_processors'\]/.test(stmt) ? { status: 400, code: 4000,
      message: 'SQLParseException[no such column]' } : undefined)
  }, async (double) => {
    const run = await ingest(['--max_rows', '100', '--processes', '1', '--monitor_interval', '0', '--json'],
      { env: double.env() })
    assert.equal(run.code, 0, run.stderr)
    assert.deepEqual([run.json.environment.cratedb_nodes, run.json.environment.cratedb_version,
      run.json.environment.cluster], [1, '6.4.3', null])
    assert.equal(double.statementsMatching(environmentSql).length, 1)
    assert.match(run.stderr, /warning: could not read the cluster's shape from sys\.nodes: .*no such column/)
  })
})

testOverProtocols('exact rows: 2 processes x 25,000 rows in batches of 10,000, table created once', { trackKeys: true },
  async (double) => {
  const run = await ingest(['--processes', '2', '--max_rows', '25000', '--batch_size', '10000', '--shards', '3',
    '--json'], { env: double.env() })
  assert.equal(run.code, 0, run.stderr)
  const r = run.json
  assert.equal(r.workload, 'ingest')
  assert.equal(r.rows_sent, 50_000)
  // --max_rows counts a process's rows: the header says what the run will write in all.
  assert.match(run.stderr,
    /^ {2}load: {5}2 processes x \d+ in flight, .*until 25,000 rows per process \(50,000 in all\)$/m)
  assert.equal(r.rows_ok, 50_000)
  assert.equal(r.rows_failed, 0)
  assert.equal(r.requests, 6)
  assert.equal(r.table_count, 50_000)
  assert.equal(r.table_count_matches, true)
  assert.equal(r.partial, false)
  assert.ok(r.seconds > 0 && r.rows_per_sec === Math.round(50_000 / r.seconds * 100) / 100)
  assert.equal(r.metrics_per_sec, Math.round(r.rows_per_sec * 10 * 100) / 100)
  for (const key of ['p50', 'p90', 'p99', 'p999', 'max']) assert.equal(typeof r.latency_ms[key], 'number', key)
  // The cluster's shape, from sys.nodes (capture 20's node, the double's 4 processors), in the result and the header.
  assert.deepEqual([r.environment.cluster.nodes, r.environment.cluster.cores_per_node,
    r.environment.cluster.heap_bytes_per_node, r.environment.cluster.shared_machine], [1, 4, 4294967296, false])
  assert.match(run.stderr, /^ {2}shape: {4}1 node x 4 cores, 4 GB heap$/m)
  // What a request's latency covers, in the protocol's words.
  assert.match(run.stderr, r.options.protocol === 'pg'
    ? new RegExp('first byte written -> ReadyForQuery read[\\s\\S]*over pg a batch\'s rows are answered one by one, ' +
      'read in gulps 5% of the request\'s time apart \\(at most 100 ms\\)')
    : /client, send -> answer/)
  assert.deepEqual(r.workers.map((w) => w.rows_ok), [25_000, 25_000])
  // Each worker's share of a core and event-loop delay over the load; the master is not a worker.
  assert.equal(r.client.workers.length, 2)
  assert.ok(r.client.workers.every((w) => w.cpu_pct > 0 && w.cpu_pct < 150 &&
    typeof w.event_loop_delay_p99_ms === 'number'))
  assert.equal(typeof r.client.saturated, 'boolean')
  // The server saw exactly that: no batch more, unique rows, DDL once, by the master.
  assert.deepEqual(inserts(double).map((s) => s.rows).sort(), [10000, 10000, 10000, 10000, 5000, 5000].sort())
  assert.equal(double.keys.size, 50_000)
  assert.equal(double.duplicateKeys, 0)
  assert.equal(double.statementsMatching(/^DROP TABLE/).length, 0, 'nothing to drop: the table did not exist')
  const creates = double.statementsMatching(/^CREATE TABLE IF NOT EXISTS "doc"\."cpu"/)
  assert.equal(creates.length, 1)
  assert.match(creates[0].stmt, /CLUSTERED INTO 3 SHARDS WITH \(number_of_replicas = '0'\)/)
  assert.match(run.stderr, /rows inserted\s+│ 50,000/)
  assert.match(run.stderr, /50,000: exactly the rows acknowledged/)
  // Over time: every interval of the load, and together exactly the totals.
  assert.equal(r.timeline.interval_s, 1)
  const intervals = r.timeline.series.filter((e) => e.ingest)
  assert.equal(intervals.reduce((sum, e) => sum + e.ingest.ok, 0), 50_000)
  // A second without an answer (a loaded machine) has no p99; every second with answers has one.
  assert.ok(intervals.filter((e) => e.ingest.ok > 0).every((e) => typeof e.ingest.p99_ms === 'number'))
  assert.deepEqual(r.reconciliation, { acknowledged: 50_000, in_doubt: 0, counted: 50_000, verdict: 'exact', excess: 0,
    missing: 0 })
})

testOverProtocols('rows rejected under HTTP 200 are counted as failed, grouped, and the run exits 1',
  { rejectRow: (n) => n % 100 === 0 }, async (double) => {
  const run = await ingest(['--processes', '2', '--max_rows', '5000', '--batch_size', '1000', '--json'],
    { env: double.env() })
  assert.equal(run.code, 1, run.stderr)
  const r = run.json
  assert.equal(r.rows_sent, 10_000)
  assert.equal(r.rows_failed, 100)
  assert.equal(r.rows_ok, 9_900)
  assert.ok(accountingHolds(r))
  assert.equal(r.requests_failed, 0)
  assert.equal(r.errors.length, 1)
  assert.equal(r.errors[0].count, 100)
  if (double.protocol === 'pg') {
    // INSERT 0 -3: over this protocol a rejected row has no reason (captures 05, 14).
    assert.deepEqual([r.errors[0].code, r.errors[0].status, r.errors[0].message], [null, null, NO_REASON])
  } else {
    assert.equal(r.errors[0].code, 5000)
    assert.match(r.errors[0].sample, /^EsRejectedExecutionException/)
  }
  assert.equal(r.table_count, 9_900)
  assert.match(run.stderr, /Failures and answers lost, grouped by error code and message/)
})

testOverProtocols('an error status fails every row of that request', () => ({
  fault: onNthBulk(2, { status: 500, code: 5000, message: 'SomethingBroke[simulated]' })
}), async (double) => {
  const run = await ingest(['--processes', '1', '--max_rows', '3000', '--batch_size', '1000', '--concurrent_requests',
    '1', '--json'], { env: double.env() })
  assert.equal(run.code, 1, run.stderr)
  assert.equal(run.json.rows_ok, 2000)
  assert.equal(run.json.rows_failed, 1000)
  assert.equal(run.json.requests_failed, 1)
  // Over the PostgreSQL protocol the same error is an ErrorResponse, its SQLSTATE read as CrateDB's code; no status.
  assert.deepEqual(run.json.errors.map((e) => [e.code, e.status, e.count]),
    [[5000, double.protocol === 'pg' ? null : 500, 1000]])
})

testOverProtocols('a connection closed before the answer puts its rows in doubt; the run goes on, and the count ' +
  'settles them', () => ({
  fault: onNthBulk(1, 'drop')
}), async (double) => {
  const run = await ingest(['--processes', '1', '--max_rows', '4000', '--batch_size', '1000', '--concurrent_requests',
    '2', '--json'], { env: double.env() })
  assert.equal(run.code, 1, run.stderr)
  assert.equal(run.json.partial, false)
  assert.equal(run.json.rows_failed, 0)
  assert.equal(run.json.rows_in_doubt, 1000)
  assert.equal(run.json.rows_ok, 3000)
  assert.deepEqual(run.json.errors.map((e) => [e.code, e.in_doubt, e.count]), [['ECLOSED', true, 1000]])
  // The double dropped the request before writing it: none of the rows in doubt are in the table.
  assert.deepEqual(run.json.reconciliation, { acknowledged: 3000, in_doubt: 1000, counted: 3000, verdict: 'exact',
    excess: 0, missing: 0 })
  assert.match(run.stderr, /3,000: exactly the rows acknowledged, none of the 1,000 in doubt/)
  assert.match(run.stderr, /│ 1,000 │ in doubt │ ECLOSED │/)
})

testOverProtocols('a request that gets no answer within --timeout puts its rows in doubt', () => ({
  fault: onNthBulk(2, 'hang')
}), async (double) => {
  const run = await ingest(['--processes', '1', '--max_rows', '3000', '--batch_size', '1000', '--timeout', '500ms',
    '--json'], { env: double.env() })
  assert.equal(run.code, 1, run.stderr)
  assert.equal(run.json.rows_failed, 0)
  // The hung batch, and on a loaded machine maybe another whose answer came later than 500 ms: every row either
  // acknowledged (and in the table) or in doubt.
  assert.ok(run.json.rows_in_doubt >= 1000, `${run.json.rows_in_doubt} in doubt`)
  assert.equal(run.json.rows_ok + run.json.rows_in_doubt, 3000)
  // The table holds the rows acknowledged, and of those in doubt, a slow batch the double wrote after its timeout.
  const counted = run.json.reconciliation.counted
  assert.ok(counted >= run.json.rows_ok && counted <= run.json.rows_ok + run.json.rows_in_doubt - 1000,
    `count(*) ${counted} within [${run.json.rows_ok}, ${run.json.rows_ok} + the in doubt less the hung batch]`)
  assert.equal(run.json.errors[0].code, 'ETIMEDOUT')
  assert.equal(run.json.errors[0].in_doubt, true)
  // At least the timeout; far less than the default timeout of 60 s, however loaded the machine.
  assert.ok(run.json.latency_ms.max >= 500 && run.json.latency_ms.max < 20_000, `max ${run.json.latency_ms.max} ms`)
})

test('batches over the server limit (413): one-line error, exit 3', () => withDouble({ maxContentLength: 50_000 },
  async (double) => {
  const run = await ingest(['--processes', '1', '--max_rows', '2000', '--batch_size', '1000', '--concurrent_requests',
    '1', '--json'], { env: double.env() })
  assert.equal(run.code, 3, run.stderr)
  assert.match(run.stderr, /error: request body too large for the server \(HTTP 413.*lower --batch_size/)
  assert.equal(run.json.partial, true)
  assert.equal(run.json.rows_ok, 0)
  assert.equal(inserts(double).length, 0)
  assert.ok(noStackTrace(run.stderr))
}))

testOverProtocols('wrong password: one-line error, exit 3, nothing created', { auth: { user: 'bench',
  password: 'right' } }, async (double) => {
  const run = await ingest(['--max_rows', '10'], { env: double.env({ CRATE_USER: 'bench',
    CRATE_PASSWORD: 'wrong-secret' }) })
  assert.equal(run.code, 3)
  const errors = run.stderr.split('\n').filter((l) => /error:/.test(l))
  assert.deepEqual(errors,
    [`appClusterIngest.js: error: http://127.0.0.1:${double.port} refused the connection check: ` +
      'authentication failed: password authentication failed for user "bench"'])
  assert.ok(!run.stderr.includes('wrong-secret') && !run.stdout.includes('wrong-secret'))
  assert.equal(double.statementsMatching(/^CREATE/).length, 0)
})

testOverProtocols('the password is accepted when right and never printed', { auth: { user: 'bench',
  password: 'right-secret' } }, async (double) => {
  const run = await ingest(['--processes', '1', '--max_rows', '10', '--json'], { env: double.env({ CRATE_USER: 'bench',
    CRATE_PASSWORD: 'right-secret' }) })
  assert.equal(run.code, 0, run.stderr)
  assert.ok(!run.stderr.includes('right-secret') && !run.stdout.includes('right-secret'))
  assert.equal(run.json.options.password, '***')
})

test('a host that refuses connections: one-line error, exit 3', async () => {
  const port = await closedPort()
  const run = await ingest(['--max_rows', '10'], { env: { CRATE_HOST: '127.0.0.1', CRATE_PORT: String(port) } })
  assert.equal(run.code, 3)
  assert.match(run.stderr,
    new RegExp(`error: cannot reach CrateDB: connection refused by http://127.0.0.1:${port}\\n$`))
  assert.ok(noStackTrace(run.stderr))
})

testOverProtocols('a host that does not answer: one-line error within --timeout, exit 3', { fault: () => 'hang' },
  async (double) => {
  const started = Date.now()
  const run = await ingest(['--max_rows', '10', '--timeout', '300ms'], { env: double.env() })
  assert.equal(run.code, 3)
  assert.match(run.stderr,
    /error: cannot reach CrateDB: no answer from http:\/\/127\.0\.0\.1:\d+ within 300 ms \(--timeout\)/)
  assert.ok(Date.now() - started < 30_000, 'ended by --timeout, not by the default of 60 s')
})

testOverProtocols('TLS to a plain port: one-line error, exit 3', {}, async (double) => {
  const run = await ingest(['--max_rows', '10'], { env: double.env({ CRATE_SSL: 'true' }) })
  assert.equal(run.code, 3)
  assert.match(run.stderr,
    /error: cannot reach CrateDB: TLS handshake with https:\/\/127\.0\.0\.1:\d+ failed: the port does not speak TLS/)
})

testOverProtocols('bad input: one line naming the problem, exit 2, no SQL sent', {}, async (double) => {
  for (const [args, message] of [
    [['--batch_size', 'ten'], '--batch_size must be a whole number >= 1 (got not a number)'],
    [['--max_rows', '0'], "--max_rows must be a whole number >= 1 (got '0')"],
    [['--processes', '-2'], "--processes must be a whole number >= 1 (got '-2')"],
    [['--table', 'doc.cpu;drop'],
      "--table 'doc.cpu;drop' is not a valid table name: use [schema.]table with lower-case letters, digits and _"],
    [['--replicas', 'many'], "--replicas must be a number or a range such as 0-1 or 1-all (got 'many')"],
    [['--shards', 'abc'], '--shards must be a whole number >= 1 (got not a number)'],
    [['--duration', 'forever'], "--duration must be a positive duration such as 500ms, 30s, 5m or 1h (got 'forever')"],
    [['--bacth_size', '10'], 'unknown option --bacth_size (did you mean --batch_size? see --help)']
  ]) {
    const run = await ingest(args, { env: double.env() })
    assert.equal(run.code, 2, args.join(' '))
    assert.equal(run.stderr, `appClusterIngest.js: error: ${message}\n`)
    assert.equal(run.stdout, '')
  }
  assert.equal(double.requestCount, 0)
})

test('--help prints usage with examples and exits 0', async () => {
  const run = await ingest(['--help'])
  assert.equal(run.code, 0)
  assert.match(run.stdout, /Examples:/)
  assert.match(run.stdout, /--batch_size/)
  assert.match(run.stdout, /CRATE_HOST/)
})

testOverProtocols('--duration stops the run; in-flight requests are still counted',
  { fault: ({ bulk }) => (bulk ? { delayMs: 50 } : undefined) }, async (double) => {
  const spawnedAt = Date.now()
  const run = await ingest(['--processes', '1', '--max_rows', '100000000', '--batch_size', '100',
    '--concurrent_requests', '4', '--duration', '1s', '--json'], { env: double.env() })
  assert.equal(run.code, 0, run.stderr)
  assert.equal(run.json.workers[0].stop_reason, 'duration')
  // Sending stops at the deadline; the window ends with the last answer, however late it comes: after the deadline
  // (judged by its end, as its start waits for the first send, which a loaded machine delays), within reason.
  const windowEnd = Date.parse(run.json.started_at) + run.json.seconds * 1000
  assert.ok(windowEnd >= spawnedAt + 1000, `the window ended ${windowEnd - spawnedAt} ms after the spawn`)
  assert.ok(run.json.seconds < 20, `seconds ${run.json.seconds}`)
  // The double listens here, but is no CrateDB node (this test's own process): a forwarder, its CPU not the cluster's
  // (test/e2e/busy-machine.e2e.test.js reads a node process's CPU in /proc).
  assert.notEqual((run.json.cluster_cpu || {}).source, 'proc')
  assert.equal(run.json.machine.cluster_processes, 0)
  assert.equal(run.json.rows_ok, inserts(double).reduce((sum, s) => sum + s.rows, 0))
  assert.equal(run.json.table_count, run.json.rows_ok)
})

testOverProtocols('--duration alone runs its whole time: no default --max_rows cuts it short', {}, async (double) => {
  const spawnedAt = Date.now()
  const run = await ingest(['--processes', '1', '--duration', '2s', '--batch_size', '10000', '--json'],
    { env: double.env() })
  assert.equal(run.code, 0, run.stderr)
  assert.equal(run.json.workers[0].stop_reason, 'duration')
  // The window (first request to last answer) ends after the deadline, 2 s after the load's start, itself after the
  // spawn. Its length is no measure of that: it starts at the first send, which a loaded machine delays (CI beside four
  // busy loops: 1.838 s).
  const windowEnd = Date.parse(run.json.started_at) + run.json.seconds * 1000
  assert.ok(windowEnd >= spawnedAt + 2000, `the window ended ${windowEnd - spawnedAt} ms after the spawn`)
  assert.equal(run.json.options.max_rows, null)
})

testOverProtocols('--graceful_stop: answers missing that long after --duration are abandoned and in doubt; the run ' +
  'does not wait for them', {
  fault: ({ bulk, number }) => (bulk && number > 8 ? 'hang' : bulk ? { delayMs: 100 } : undefined)
}, async (double) => {
  const run = await ingest(['--processes', '1', '--duration', '1s', '--graceful_stop', '300ms', '--batch_size', '100',
    '--concurrent_requests', '2', '--json'], { env: double.env() })
  assert.equal(run.code, 1, run.stderr)
  assert.equal(run.json.partial, false)
  assert.equal(run.json.rows_in_doubt, 200, 'the two requests that hang')
  assert.ok(run.json.errors.some((e) => e.code === 'ABORTED' && e.in_doubt))
  assert.ok(run.json.drain_seconds >= 0.3, `drain ${run.json.drain_seconds} s`)
  assert.match(run.stderr, /\(sending [\d.]+ s, then [\d.]+ s for the last answers\)/)
})

test('--warmup steady: a node that warms (slow answers for its first 3 s) is measured after its rate settles, ' +
  'for --duration from there', async () => {
  let firstBulkAt = null
  const fault = ({ bulk }) => {
    if (!bulk) return undefined
    firstBulkAt ??= Date.now()
    return { delayMs: Date.now() - firstBulkAt < 3000 ? 150 : 50 }
  }
  await withDouble({ fault }, async (double) => {
    const run = await ingest(['--processes', '2', '--batch_size', '100', '--concurrent_requests', '2', '--warmup',
      'steady:40s', '--duration', '2s', '--monitor_interval', '0', '--json'], { env: double.env(), timeoutMs: 120_000 })
    assert.equal(run.code, 0, run.stderr)
    const r = run.json
    const w = r.warmup
    assert.deepEqual([w.until, w.max_seconds], ['steady', 40])
    // Two windows of at least 5 s each, the later one wholly after the slow start: the warm-up outlasts 3 + 5 s.
    if (w.steady) {
      assert.ok(w.seconds >= 8 && w.seconds < 40, `steady after ${w.seconds} s`)
      assert.ok(Math.abs(w.change_pct) <= w.tolerance_pct)
      assert.match(run.stderr,
        /^warm-up ended after [\d.]+ s: steady: [\d,.]+ -> [\d,.]+ rows\/s over two windows of/m)
    } else {
      // A machine loaded enough to keep the rate moving by more than 5% ends it at its cap, and says so.
      assert.equal(w.seconds, 40)
      assert.match(run.stderr, /not steady at the warm-up's cap of 40 s/)
    }
    assert.match(w.rule, /^warm when the rows\/s ok over the last window is within 5%/)
    assert.equal(r.timeline.warmup_s, w.seconds, 'the timeline marks where it ended')
    assert.ok(r.sending_seconds >= 1.9 && r.sending_seconds < 4,
      `--duration counts from its end (${r.sending_seconds} s)`)
    assert.equal(r.table_count, r.rows_ok + w.rows_ok, 'the table holds both')
    assert.equal(r.rows_sent, r.rows_ok + r.rows_failed + r.rows_in_doubt)
    assert.match(run.stderr, /warm-up \(first [\d.]+ s, until steady \(at most 40 s\), in no figure\)/)
  })
})

test('--warmup_together: two runs of a duet, their nodes warm 4 s apart, end their steady warm-ups together and ' +
  'measure the same seconds', async (t) => {
  const warming = (slowForMs) => {
    let firstBulkAt = null
    return ({ bulk }) => {
      if (!bulk) return undefined
      firstBulkAt ??= Date.now()
      return { delayMs: Date.now() - firstBulkAt < slowForMs ? 150 : 50 }
    }
  }
  const meet = tempDir(t)
  const doubles = [await startCrateTestDouble({ fault: warming(2000) }),
    await startCrateTestDouble({ fault: warming(6000) })]
  t.after(() => Promise.all(doubles.map((d) => d.stop())))
  const runs = await Promise.all(doubles.map((double) => ingest(['--processes', '1', '--batch_size', '100',
    '--concurrent_requests', '2', '--duration', '2s', '--warmup', 'steady:50s', '--warmup_together', meet,
    '--warmup_peers', '2', '--monitor_interval', '0', '--json'], { env: double.env(), timeoutMs: 150_000 })))
  for (const run of runs) assert.equal(run.code, 0, run.stderr)
  const [a, b] = runs.map((run) => run.json)
  assert.equal(fs.readdirSync(meet).filter((f) => f.endsWith('.steady')).length,
    [a, b].filter((r) => r.warmup.steady).length, 'each steady run said so once')
  if (a.warmup.steady && b.warmup.steady && a.warmup.seconds < 50 && b.warmup.seconds < 50) {
    // The later one decided: both measure from within a poll of each other, whenever each was steady itself.
    assert.ok(Math.abs(Date.parse(a.started_at) - Date.parse(b.started_at)) < 1000, `${a.started_at} ${b.started_at}`)
    assert.deepEqual([a, b].map((r) => r.warmup.together.peers), [1, 1])
    for (const r of [a, b]) assert.match(r.warmup.line, /; ended with its peer in the duet \(waited [\d.]+ s for it\)$/)
  } else {
    // A machine loaded enough to keep a rate moving by more than 5%: the cap ends the warm-up, and the line says why.
    assert.ok([a, b].some((r) => r.warmup.seconds === 50), JSON.stringify([a.warmup, b.warmup]))
  }
  assert.equal(a.options.warmupTogether, undefined, 'the study\'s folder is no option of the run\'s result')
})

testOverProtocols('--warmup: its rows are in the table but in no figure; --duration counts after it',
  { fault: ({ bulk }) => (bulk ? { delayMs: 20 } : undefined) }, async (double) => {
  // A warm-up of 2 s: a loaded machine may hold a worker's first send for most of a second (CI beside other load).
  const run = await ingest(['--processes', '1', '--batch_size', '100', '--concurrent_requests', '2', '--warmup',
    '2s', '--duration', '500ms', '--json'], { env: double.env() })
  assert.equal(run.code, 0, run.stderr)
  const r = run.json
  assert.equal(r.warmup.seconds, 2)
  assert.ok(r.warmup.rows_ok > 0 && r.rows_ok > 0)
  assert.equal(r.rows_sent, r.rows_ok + r.rows_failed + r.rows_in_doubt)
  assert.equal(r.table_count, r.rows_ok + r.warmup.rows_ok, 'the table holds both')
  assert.equal(r.reconciliation.verdict, 'exact')
  assert.ok(r.seconds >= 0.5 && r.seconds < 10,
    `the measured window (${r.seconds} s) is the --duration after the warm-up`)
  assert.match(run.stderr, /warm-up \(first 2 s, in no figure\) +│ [\d,]+ rows ok, 0 failed, 0 in doubt/)
})

test('the same --seed sends the same rows', async () => {
  const rowsOf = () => withDouble({ keepRows: true }, async (double) => {
    const run = await ingest(['--processes', '2', '--max_rows', '300', '--batch_size', '100', '--seed', '42', '--scale',
      '50'], { env: double.env() })
    assert.equal(run.code, 0, run.stderr)
    return double.rows.slice().sort()
  })
  const first = await rowsOf()
  assert.equal(first.length, 600)
  assert.deepEqual(await rowsOf(), first)
})

testOverProtocols('--no-drop_table keeps an existing table and does not claim a count', {}, async (double) => {
  const first = await ingest(['--processes', '1', '--max_rows', '100'], { env: double.env() })
  assert.equal(first.code, 0, first.stderr)
  const second = await ingest(['--processes', '1', '--max_rows', '100', '--no-drop_table', '--json'],
    { env: double.env() })
  assert.equal(second.code, 0, second.stderr)
  assert.equal(second.json.table_count, null)
  assert.match(second.stderr, /table doc\.cpu exists \(12 shards, 0 replicas\)/)
  assert.equal(double.statementsMatching(/^DROP/).length, 0)
})

testOverProtocols('by default a table is dropped only when this tool made it and nobody wrote to it since; each drop ' +
  'is said', {}, async (double) => {
  const client = clientTo(double.port)
  try {
    // A user's own doc.cpu, loaded by something else: the same columns, but not this tool's.
    await client.sql('CREATE TABLE "doc"."cpu" ("ts" TIMESTAMP WITH TIME ZONE) CLUSTERED INTO 2 SHARDS WITH ' +
      '(number_of_replicas = \'0\')')
    const refused = await ingest(['--processes', '1', '--max_rows', '100'], { env: double.env() })
    assert.equal(refused.code, 3, refused.stderr)
    assert.match(refused.stderr,
      joined(
        /^appClusterIngest\.js: error: table doc\.cpu exists and this tool did not make it: it is kept; /,
        /give --drop_table to drop it, --no-drop_table to add rows to it, or another --table$/m))
    assert.equal(double.statementsMatching(/^DROP/).length, 0, 'the user\'s table was not dropped')
    assert.equal(double.bulkRowsReceived, 0)

    const told = await ingest(['--processes', '1', '--max_rows', '100', '--drop_table'], { env: double.env() })
    assert.equal(told.code, 0, told.stderr)
    assert.match(told.stderr, /^dropped table doc\.cpu \(--drop_table\)$/m)

    // Now the tool's own, holding what its last run counted: the next run drops it and says so.
    const again = await ingest(['--processes', '1', '--max_rows', '300'], { env: double.env() })
    assert.equal(again.code, 0, again.stderr)
    assert.match(again.stderr, /^dropped table doc\.cpu \(made by this tool in run run-\S+, 100 rows since\)$/m)

    // Rows written by someone else since: it is theirs now.
    await client.sql('INSERT INTO "doc"."cpu" ("ts") VALUES (?)', [0])
    const written = await ingest(['--processes', '1', '--max_rows', '100'], { env: double.env() })
    assert.equal(written.code, 3, written.stderr)
    assert.match(written.stderr,
      joined(
        /error: table doc\.cpu was made by this tool \(run run-\S+, 300 rows\) but holds 301 /,
        /rows: written since, or that run was cut short; it is kept; give --drop_table/))
    assert.equal(double.statementsMatching(/^DROP/).length, 2)
  } finally {
    client.close()
  }
})

test('a table in use by a running study of this tool is not dropped, even with --drop_table; the study\'s own ' +
  'runs drop it; --no-drop_table adds rows beside it', () => withDouble({}, async (double) => {
  const client = clientTo(double.port)
  try {
    const first = await ingest(['--processes', '1', '--max_rows', '100'], { env: double.env() })
    assert.equal(first.code, 0, first.stderr)
    // A grid on another machine between its runs: its lease renewed a moment ago.
    const grid = { host: 'other-machine', pid: 77, what: 'crate-bench grid' }
    assert.ok((await takeLease({ client, table: parseTableName('doc.cpu', 'table'), holder: grid })).taken)
    for (const flags of [[], ['--drop_table']]) {
      const refused = await ingest(['--processes', '1', '--max_rows', '100', ...flags], { env: double.env() })
      assert.equal(refused.code, 3, refused.stderr)
      assert.match(refused.stderr, joined(
        /^appClusterIngest\.js: error: table doc\.cpu is in use by crate-bench grid of this tool \(pid 77 on /m,
        /other-machine, its lease renewed \d+ s ago\): it is kept; wait for that run to end/), flags.join(' '))
    }
    assert.equal(double.statementsMatching(/^DROP/).length, 0, 'the study\'s table was not dropped')
    const beside = await ingest(['--processes', '1', '--max_rows', '100', '--no-drop_table'], { env: double.env() })
    assert.equal(beside.code, 0, beside.stderr)
    const studysRun = await ingest(['--processes', '1', '--max_rows', '100', '--drop_table'],
      { env: double.env({ CRATE_BENCH_TABLE_HOLDER: JSON.stringify(grid) }) })
    assert.equal(studysRun.code, 0, studysRun.stderr)
    assert.match(studysRun.stderr, /^dropped table doc\.cpu \(--drop_table\)$/m)
  } finally {
    client.close()
  }
}))

testOverProtocols('Ctrl-C: the master stops the workers and prints what was measured, marked partial',
  { fault: ({ bulk }) => (bulk ? { delayMs: 100 } : undefined) }, async (double) => {
  const run = await ingest(['--processes', '2', '--max_rows', '100000000', '--batch_size', '100',
    '--concurrent_requests', '2', '--progress', '--json'], {
    env: double.env(),
    waitFor: /rows ok [1-9]/,
    whileRunning: (child) => child.kill('SIGINT')
  })
  assert.equal(run.code, 4, run.stderr)
  assert.equal(run.json.partial, true)
  assert.match(run.json.partial_reasons[0], /interrupted \(SIGINT\)/)
  assert.ok(run.json.rows_ok > 0)
  assert.ok(accountingHolds(run.json))
  assert.equal(run.json.rows_in_doubt, 0, 'in-flight requests were waited for')
  assert.equal(run.json.rows_ok, inserts(double).reduce((sum, s) => sum + s.rows, 0))
  assert.match(run.stderr, /PARTIAL RESULT: interrupted \(SIGINT\)/)
})

testOverProtocols('a worker that dies: the run ends, partial, with what was reported',
  { fault: ({ bulk }) => (bulk ? { delayMs: 50 } : undefined) }, async (double) => {
  const run = await ingest(['--processes', '2', '--max_rows', '100000000', '--batch_size', '100',
    '--concurrent_requests', '2', '--progress', '--json'], {
    env: double.env(),
    waitFor: /rows ok [1-9]/,
    whileRunning: (child) => process.kill(childPids(child.pid)[0], 'SIGKILL')
  })
  assert.equal(run.code, 4, run.stderr)
  assert.equal(run.json.partial, true)
  assert.ok(run.json.partial_reasons.some((r) => /worker \d died \(SIGKILL\) before its final report/.test(r)),
    run.json.partial_reasons.join())
  assert.ok(run.json.rows_ok > 0)
  assert.ok(accountingHolds(run.json))
  assert.ok(run.json.rows_ok <= inserts(double).reduce((sum, s) => sum + s.rows, 0))
})

test('the server going away mid-run: partial result, exit 4', async () => {
  const double = await startCrateTestDouble({ fault: ({ bulk }) => (bulk ? { delayMs: 50 } : undefined) })
  let stopped = false
  const run = await ingest(['--processes', '1', '--max_rows', '100000000', '--batch_size', '100',
    '--concurrent_requests', '2', '--timeout', '1s', '--progress', '--json'], {
    env: double.env(),
    waitFor: /rows ok [1-9]/,
    whileRunning: () => { stopped = true; double.kill() }
  })
  assert.ok(stopped)
  assert.equal(run.code, 4, run.stderr)
  assert.equal(run.json.partial, true)
  assertSomeMatch(run.json.partial_reasons,
    /server gone: no host answers: all 1 host has been down for more than 1000 ms/)
  assert.ok(accountingHolds(run.json))
  assert.ok(run.json.rows_ok > 0)
  assert.equal(run.json.events[0].kind, 'host_down')
  assert.match(run.stderr, /PARTIAL RESULT/)
})

testOverProtocols('a run that ends within --warmup measured nothing: partial, exit 4, and says why', {},
  async (double) => {
  const run = await ingest(['--processes', '1', '--batch_size', '100', '--max_rows', '500', '--warmup', '1h', '--json'],
    { env: double.env() })
  assert.equal(run.code, 4, run.stderr)
  assert.equal(run.json.partial, true)
  assert.match(run.json.partial_reasons.join('; '), /the run ended within --warmup: nothing was measured/)
  assert.equal(run.json.warmup.rows_ok, 500)
  assert.equal(run.json.rows_ok, 0)
})
