'use strict'

// A fleet end to end: crate-bench fleet runs N generators as N process trees against the CrateDB test double, which
// answers the fleet table as captures 65–74 show; they coordinate exactly as pods would. Then the merged report.

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { withCrateTestDouble } = require('../helpers/crate-test-double')
const { runTool } = require('../helpers/run-tool')
const { testOverProtocols } = require('../helpers/protocols')
const { assertCountWithinAcknowledged } = require('../helpers/table-invariant')
const { tempDir } = require('../helpers/temp-files')
const { inspectHtml } = require('../helpers/html')
const { closedPort } = require('../helpers/ports')
const net = require('node:net')
const { joined, assertSomeMatch } = require('../helpers/patterns')

const SMALL = ['--processes', '1', '--concurrent_requests', '2', '--batch_size', '100']

testOverProtocols('crate-bench fleet: 3 generators, one preparation, one start, disjoint rows, one merged report as ' +
  'complete as a run\'s', { trackKeys: true, fault: ({ bulk }) => (bulk ? { delayMs: 2 } : undefined) }, async (double,
    t) => {
  const html = path.join(tempDir(t), 'fleet.html')
  const run = await runTool('bin/crate-bench.js', ['fleet', '--generators', '3', 'ingest', ...SMALL, '--duration',
    '12s', '--monitor_interval', '100ms', '--threshold', 'failed=0', '--json', '--report', html], { env: double.env() })
  assert.equal(run.code, 0, run.stderr)
  assert.ok(run.stderr.endsWith('\n'), 'its stderr ends with a newline')
  const m = run.json
  // Long enough that each result is over Lucene's 32,766-byte term limit, which an indexed TEXT refuses (83): its
  // timeline and node samples grow with the run (6 s gave 30 to 34 kB on a machine running two test suites, 8 s
  // 31 to 32 kB beside four busy loops).
  const stored = double.tables.get('doc.crate_bench_results').rows.map((r) => Buffer.byteLength(r.result_json))
  assert.ok(stored.length === 3 && stored.every((bytes) => bytes > 32_766), `stored results of ${stored} bytes`)
  assert.equal(double.statementsMatching(/^CREATE TABLE IF NOT EXISTS "doc"\."cpu"/).length, 1,
    'the table is created once, by one generator')
  assert.equal(double.statementsMatching(/^DROP TABLE/).length, 0, 'nothing to drop: the table did not exist')
  assert.equal(double.duplicateKeys, 0)
  assert.equal(double.keys.size, m.rows_ok, 'every acknowledged row is in the table once')
  assert.equal(m.options.load_generators, 3)
  assert.deepEqual(m.fleet.generators.map((g) => [g.generator, g.state]), [[1, 'done'], [2, 'done'], [3, 'done']])
  assert.ok(m.fleet.start_skew_ms < 1000, `start skew ${m.fleet.start_skew_ms} ms`)
  assert.equal(m.reconciliation.verdict, 'exact', 'reconciled once, for the fleet')
  assert.equal(m.reconciliation.counted, m.rows_ok)
  assert.match(m.environment.load_generator, /^3 generators on 1 machine: \S+ \(\d+ CPUs, 3 generators\)$/)
  assert.equal(m.environment.cpus, require('node:os').availableParallelism(), 'one machine\'s CPUs, counted once')
  assert.deepEqual(m.workers.map((w) => w.worker.replace(/ on \S+/, '')), ['1/3 w0', '2/3 w0', '3/3 w0'],
    'each worker named by its generator')
  assert.deepEqual(m.load_generators.map((g) => g.generator.index), [0, 1, 2], 'the generators in their order')
  // The HTTP endpoint says how long the server took; the PostgreSQL protocol does not.
  if (double.protocol === 'pg') assert.equal(m.server_ms.p99, null)
  else assert.ok(m.server_ms.p99 > 0, 'server-side latency from the merged histograms')
  assert.ok(m.cluster && m.cluster.nodes.length > 0, 'the nodes\' table of sys.nodes')
  assert.match(run.stderr, /Cluster during the run/)
  assert.equal(m.environment.cratedb_version, '6.4.3')
  assert.ok(m.sending_seconds > 1 && m.drain_seconds !== null)
  assert.ok(m.metrics_per_sec > 0)
  assert.ok(m.timeline.series.length >= 2, 'the timeline of the fleet')
  const firstSecond = m.timeline.series[0].ingest
  assert.ok(firstSecond.ok > 0 && firstSecond.p99_ms > 0, 'each interval has counts and merged percentiles')
  assert.ok(m.timeline.nodes.length > 0, 'the cluster\'s nodes over time')
  assert.deepEqual(m.thresholds.map((x) => [x.threshold, x.passed]), [['failed=0', true]],
    'thresholds judged on the merged figures')
  assert.doesNotMatch(run.stderr, /more than the .* acknowledged/, 'no generator warns about the others\' rows')
  assert.match(run.stderr, /^\[1\/3\] /m)
  const page = inspectHtml(fs.readFileSync(html, 'utf8'))
  assert.ok(page.charts.includes('chart-throughput'))
})

testOverProtocols('generators started by hand with --generator K/N: the one with other options is refused (exit 2), ' +
  'naming them', {}, async (double) => {
  const common = ['--run_id', 'mixed-1', '--max_rows', '2000', '--barrier_timeout', '10s', ...SMALL]
  // The second starts once the first has prepared: the first's options are the fleet's.
  let second
  const a = await runTool('appClusterIngest.js', [...common, '--generator', '1/2', '--seed', '1'], {
    env: double.env(),
    waitFor: /prepared the tables for the fleet/,
    whileRunning: () => {
      second = runTool('appClusterIngest.js', [...common, '--generator', '2/2', '--seed', '1', '--model', 'devops'],
        { env: double.env() })
    }
  })
  const b = await second
  assert.equal(b.code, 2, b.stderr)
  assert.match(b.stderr,
    joined(
      /generator 2\/2 does not run the fleet's options \(those of /,
      /generator 1 on [^)]+\): model: "devops" here, "cpu" there/))
  assert.equal(a.code, 3, a.stderr)
  assert.match(a.stderr, /generator 2 \([^)]+\) failed before the start: .*does not run the fleet's options/)
})

testOverProtocols('a start barrier that is not complete within --barrier_timeout: exit 3, the missing generators named',
  {}, async (double) => {
  const alone = await runTool('appClusterIngest.js', ['--generator', '1/3', '--run_id', 'lonely', '--max_rows', '1000',
    '--barrier_timeout', '1s', ...SMALL], { env: double.env() })
  assert.equal(alone.code, 3)
  assert.match(alone.stderr,
    joined(
      /error: the start barrier of run lonely was not complete within --barrier_timeout 1s: /,
      /generators 2 \(never registered\), 3 \(never registered\) of 3 not ready\n$/))
})

testOverProtocols('--generators N takes K from JOB_COMPLETION_INDEX; without it, one line and exit 2', {},
  async (double) => {
  const missing = await runTool('appClusterIngest.js', ['--generators', '2', '--run_id', 'k8s-1'],
    { env: double.env() })
  assert.equal(missing.code, 2)
  assert.match(missing.stderr,
    joined(
      /--generators 2 without --generator takes K from JOB_COMPLETION_INDEX /,
      /\(0 to 1, set by a Kubernetes Indexed Job\), which is not set\n$/))
  const noRunId = await runTool('appClusterIngest.js', ['--generators', '2'],
    { env: double.env({ JOB_COMPLETION_INDEX: '1' }) })
  assert.equal(noRunId.code, 2)
  assert.match(noRunId.stderr, /generator 2\/2 of a fleet needs --run_id/)
  const pods = await Promise.all([0, 1].map((index) => runTool('appClusterIngest.js', ['--generators', '2', '--run_id',
    'k8s-2', '--max_rows', '2000', ...SMALL], { env: double.env({ JOB_COMPLETION_INDEX: String(index) }) })))
  for (const pod of pods) assert.equal(pod.code, 0, pod.stderr)
  assert.match(pods.map((p) => p.stderr).join('\n'), /the fleet's merged report \(run k8s-2\):/,
    'the steward prints the merged report in its log')
})

test('bad fleet flags: one line, exit 2, before any SQL', () => withCrateTestDouble({}, async (double) => {
  for (const [args, pattern] of [
    [['--generator', '2/3', '--generators', '4', '--run_id', 'x'],
      /--generator 2\/3 and --generators 4 disagree on the fleet's size/],
    [['--generator', '1/2', '--run_id', 'x', '--barrier_timeout', 'soon'], /--barrier_timeout/],
    [['--generator', '1/2', '--run_id', 'x', '--start_at', new Date(Date.now() + 60_000).toISOString()],
      /--start_at is for runs without coordination/],
    [['--metrics_port', '70000'], /--metrics_port must be a port number from 0 to 65535 \(got '70000'\)/]
  ]) {
    const run = await runTool('appClusterIngest.js', args, { env: double.env() })
    assert.equal(run.code, 2, `${args.join(' ')}: ${run.stderr}`)
    assert.equal(run.stderr.trimEnd().split('\n').length, 1, args.join(' '))
    assert.match(run.stderr, pattern)
  }
  assert.equal(double.statements.length, 0)
}))

testOverProtocols('--metrics_port in a local fleet: generator K serves on the port + K - 1, each said at start', {},
  async (double) => {
  const port = await closedPortPair()
  const scraped = new Set()
  let scraping
  const run = await runTool('bin/crate-bench.js', ['fleet', '--generators', '2', 'ingest', ...SMALL, '--duration', '3s',
    '--metrics_port', String(port)], {
    env: double.env(),
    // Both generators have said their port (under load, generator 1 may say it after generator 2).
    waitFor: /\[1\/2\] +metrics: [\s\S]*\[2\/2\] +metrics: |\[2\/2\] +metrics: [\s\S]*\[1\/2\] +metrics: /,
    whileRunning: () => {
      scraping = Promise.all([port, port + 1].map(async (p) => {
        const text = await (await fetch(`http://127.0.0.1:${p}/metrics`)).text()
        const generator = /cratebench_run_info\{[^}]*generator="(\d+)"/.exec(text)
        if (generator) scraped.add(`${p}:${generator[1]}`)
      }))
    }
  })
  await scraping
  assert.equal(run.code, 0, run.stderr)
  assert.match(run.stderr, new RegExp(`generator 1 serves /metrics on port ${port}\n`))
  assert.match(run.stderr, new RegExp(`generator 2 serves /metrics on port ${port + 1}\n`))
  assert.deepEqual([...scraped].sort(), [`${port}:1`, `${port + 1}:2`])
})

testOverProtocols('a generator that cannot run (its port in use) stops the others at once: exit 3, why said, no wait ' +
  'for the barrier', {}, async (double) => {
  const port = await closedPortPair()
  const taken = net.createServer()
  await new Promise((resolve) => taken.listen(port + 1, '127.0.0.1', resolve))
  try {
    // The barrier would wait 5 minutes for the generator that never comes; the test's own limit is 60 s.
    const run = await runTool('bin/crate-bench.js', ['fleet', '--generators', '2', 'ingest', ...SMALL, '--duration',
      '3s', '--metrics_port', String(port)], { env: double.env() })
    assert.equal(run.code, 3, run.stderr)
    assert.match(run.stderr, /\[2\/2\] .*error: .*port .*in use/)
    assert.match(run.stderr,
      /crate-bench fleet: generator 2 exited 3 \(could not run; its error is above\): stopping the other 1\n/)
    assert.match(run.stderr, /crate-bench fleet: the fleet was stopped because generator 2 could not run\n$/)
    assert.equal(double.bulkRowsReceived, 0, 'no load was started')
  } finally {
    taken.close()
  }
})

/** A port whose successor is free too (both bound, then released). */
async function closedPortPair () {
  for (;;) {
    const port = await closedPort()
    const next = net.createServer()
    const free = await new Promise((resolve) => {
      next.once('error', () => resolve(false))
      next.listen(port + 1, '127.0.0.1', () => resolve(true))
    })
    if (free) {
      await new Promise((resolve) => next.close(resolve))
      return port
    }
  }
}

testOverProtocols('--rate in a fleet is the fleet\'s: each generator sends its share, the merged target is the rate ' +
  'given', {}, async (double) => {
  const run = await runTool('bin/crate-bench.js', ['fleet', '--generators', '2', 'ingest', ...SMALL, '--rate', '2000',
    '--duration', '2s', '--json'], { env: double.env() })
  assert.equal(run.code, 0, run.stderr)
  assert.equal(run.json.rate.target_per_sec, 2000)
  // The timetable offered the fleet's 4,000 rows in 2 s: each sent, or still due at the deadline and said dropped
  // (a starved machine's generators fall behind; they never send more than their share).
  const { dropped_units: dropped } = run.json.rate
  assert.ok(Math.abs(run.json.rows_sent + dropped - 4000) <= 400,
    `${run.json.rows_sent} rows sent and ${dropped} dropped in 2 s at 2,000 rows/s`)
  assert.ok(run.json.rows_sent <= 4400, `${run.json.rows_sent} rows sent: more than the rate allows`)
  assert.match(run.stderr,
    /\[1\/2\] .*--rate 1,000 rows\/s over all processes \(this generator's share of the fleet's --rate 2,000 over 2\)/)
})

testOverProtocols('a generator that dies mid-run: the merged run is partial and names it; its rows counted in the ' +
  'table by their keys', { trackKeys: true, fault: ({ bulk }) => (bulk ? { delayMs: 5 } : undefined) },
    async (double) => {
  const env = double.env({ CRATE_BENCH_FLEET_HEARTBEAT_MS: '200' })
  const common = ['--run_id', 'dies-1', '--duration', '4s', '--timeout', '1s', ...SMALL]
  // Generator 2 starts once generator 1 has prepared (so 1 is the steward), and is killed with its workers after it
  // has reported a few times: no result, no 'done'.
  let second
  const steward = await runTool('appClusterIngest.js', [...common, '--generator', '1/2'], {
    env,
    waitFor: /prepared the tables for the fleet/,
    whileRunning: () => {
      second = runTool('appClusterIngest.js', [...common, '--generator', '2/2'], {
        env,
        detached: true,
        waitFor: /every generator is ready/,
        whileRunning: (child) => setTimeout(() => process.kill(-child.pid, 'SIGKILL'), 1500)
      })
    }
  })
  const victim = await second
  assert.equal(victim.signal, 'SIGKILL')
  assert.equal(steward.code, 4, steward.stderr)
  assert.match(steward.stderr, /fleet of run dies-1: 1 of 2 generators done; DEAD \(no final report\): 2/)
  const merged = await runTool('bin/crate-bench.js', ['report', '--results_table', 'doc.crate_bench_results',
    '--run_id', 'dies-1', '--json'], { env })
  assert.equal(merged.code, 4, 'a partial merged run exits 4, as a single run does')
  const m = merged.json
  assert.equal(m.partial, true)
  assertSomeMatch(m.partial_reasons, joined(
    /^generator 2 \([^)]+\) died \(running, no result, judged dead after [\d.]+ s /,
    /of silence\): its rows counted in the table by their keys, \d+ stored/))
  assert.equal(m.rows_ok, double.keys.size, 'the dead generator\'s rows counted in the table by their keys')
  assert.equal(m.rows_in_doubt, 0)
  assert.equal(m.reconciliation.counted, double.keys.size)
  assertCountWithinAcknowledged(m, double)
})
