'use strict'

// --protocol pg end to end: the load over the PostgreSQL wire protocol of the CrateDB test double (its pgwire front
// answers as the captures of test/fixtures/pgwire show), with the same accounting as over HTTP.

const test = require('node:test')
const assert = require('node:assert/strict')
const { startCrateTestDouble } = require('../helpers/crate-test-double')
const { startPgFront } = require('../helpers/pg-test-double')
const { runTool } = require('../helpers/run-tool')
const { tempFile } = require('../helpers/temp-files')

/** The double and its pgwire front; env points the tool at both. */
async function withPgDouble (t, script = {}, front = {}) {
  const double = await startCrateTestDouble(script)
  const pg = await startPgFront(double, front)
  t.after(() => Promise.all([pg.close(), double.stop()]))
  return { double, pg, env: double.env({ CRATE_PG_PORT: String(pg.port) }) }
}

test('ingest over pg: JDBC-style batches, each row settled from its own answer, rejected rows failed and grouped',
  async (t) => {
    // Every 50th row rejected: over pgwire such a row answers INSERT 0 -3 and nothing else (05, 14).
    const { double, pg, env } = await withPgDouble(t, { trackKeys: true, rejectRow: (n) => n % 50 === 9 })
    const run = await runTool('appClusterIngest.js', ['--protocol', 'pg', '--processes', '2', '--max_rows', '5000',
      '--batch_size', '500', '--json'], { env })
    assert.equal(run.code, 1, run.stderr)
    const r = run.json
    assert.equal(r.rows_ok + r.rows_failed, 10_000)
    assert.equal(r.rows_sent, 10_000)
    assert.equal(r.rows_failed, 200)
    assert.equal(r.rows_in_doubt, 0)
    assert.deepEqual(r.errors.map((e) => [e.message, e.count, e.status]),
      [['rejected by the server, no reason given over the PostgreSQL protocol', 200, null]])
    assert.equal(double.keys.size, r.rows_ok, 'the table holds exactly the rows acknowledged')
    assert.equal(r.environment.protocol, 'pg')
    // One batch per request, one Sync each (the check's SELECT 1 aside); the INSERT parsed once per connection.
    assert.equal(pg.cycles.filter((executes) => executes === 500).length, 20)
    const insert = [...pg.parses].find(([text]) => text.startsWith('INSERT'))
    assert.ok(insert[1] <= 2 * 4, `parsed ${insert[1]} times over at most 8 connections`)
    assert.match(run.stderr, /rows in table after refresh +│ 9,800: exactly the rows acknowledged/)
  })

test('queries over pg: prepared once per connection, the same weights and arguments as over HTTP', async (t) => {
  const answer = (stmt, args) => (stmt === 'SELECT ? + 1' ? { cols: ['n'], rows: [[args[0] + 1]], rowcount: 1 }
    : stmt === 'SELECT 2' ? { cols: ['2'], rows: [[2]], rowcount: 1 } : null)
  const { pg, env } = await withPgDouble(t, { query: answer })
  const mix = tempFile(t, 'mix.yml', '- {name: two, query: "SELECT 2", ratio: 0.25}\n' +
    '- {name: plus, query: "SELECT ? + 1", ratio: 0.75, args: [{int: {min: 1, max: 5}}]}\n')
  const run = await runTool('appClusterAnalytical.js', ['--protocol', 'pg', '--queries_config', mix,
    '--max_queries', '400', '--processes', '1', '--concurrent_requests', '2', '--seed', '3', '--json'], { env })
  assert.equal(run.code, 0, run.stderr)
  const r = run.json
  assert.equal(r.queries_ok, 400)
  const count = (name) => r.queries.find((q) => q.name === name).count
  assert.ok(count('plus') > 250 && count('two') > 60, `${count('plus')} / ${count('two')}`)
  assert.ok(pg.parses.get('SELECT $1 + 1') <= 2, 'each connection parses a query once')
})

test('a connection lost with a batch in flight: its rows are in doubt and reconciled with the table', async (t) => {
  // The 3rd batch is written, then its connection closes instead of answering.
  const { double, env } = await withPgDouble(t, { trackKeys: true }, {
    fault: ({ cycle }) => (cycle === 4 ? 'lost' : undefined)
  })
  const run = await runTool('appClusterIngest.js', ['--protocol', 'pg', '--processes', '1', '--max_rows', '2000',
    '--batch_size', '200', '--concurrent_requests', '1', '--json'], { env })
  const r = run.json
  assert.equal(r.rows_in_doubt, 200, run.stderr)
  assert.equal(r.rows_ok, 1800)
  assert.equal(r.rows_ok + r.rows_failed + r.rows_in_doubt, r.rows_sent)
  assert.equal(double.keys.size, 2000, 'the lost batch was written')
  assert.match(run.stderr, /in doubt/)
  assert.equal(run.code, 1)
})

test('bad input over pg: one line naming the problem, the documented exit code, the password never printed',
  async (t) => {
    const { double, env } = await withPgDouble(t, {}, { auth: { user: 'bench', password: 's3cret-pw' } })
    const cases = [
      [['--protocol', 'grpc'], {}, 2, /--protocol must be one of http, pg \(got 'grpc'\)/],
      [[], { CRATE_PROTOCOL: 'grpc' }, 2, /--protocol\/CRATE_PROTOCOL must be http or pg \(got 'grpc'\)/],
      [['--protocol', 'pg', '--pg_port', String(double.port)], {}, 3, /answers HTTP, not the PostgreSQL protocol/],
      [['--protocol', 'pg', '--pg_port', '1'], {}, 3, /cannot use the PostgreSQL protocol \(--protocol pg, port 1\)/],
      [['--protocol', 'pg', '--pg_port', '99999'], {}, 2, /--pg_port\/CRATE_PG_PORT must be a port number/],
      [['--protocol', 'pg', '--user', 'bench'], { CRATE_PASSWORD: 'wrong-pw' }, 3,
        /password authentication failed for user "bench" \(SQLSTATE 28000\)/]
    ]
    for (const [args, extra, code, message] of cases) {
      const run = await runTool('appClusterIngest.js', [...args, '--max_rows', '100'], { env: { ...env, ...extra } })
      assert.equal(run.code, code, `${args.join(' ')}: ${run.stderr}`)
      assert.match(run.stderr, message)
      assert.equal(run.stderr.split('\n').filter((l) => /error:/.test(l)).length, 1)
      assert.doesNotMatch(run.stderr, /wrong-pw|s3cret-pw|\n\s+at /)
    }
    assert.equal(double.bulkRowsReceived, 0)
  })

test('compare names what carried each side\'s load; the report says it', async (t) => {
  const { env } = await withPgDouble(t, {})
  const dir = require('../helpers/temp-files').tempDir(t)
  const path = require('node:path')
  const fs = require('node:fs')
  for (const protocol of ['http', 'pg']) {
    const run = await runTool('appClusterIngest.js', ['--protocol', protocol, '--max_rows', '2000', '--batch_size',
      '200',
      '--processes', '1', '--json', '--report', path.join(dir, `${protocol}.html`)], { env })
    assert.equal(run.code, 0, run.stderr)
    fs.writeFileSync(path.join(dir, `${protocol}.json`), run.stdout)
    assert.equal(run.json.options.protocol, protocol)
  }
  assert.match(fs.readFileSync(path.join(dir, 'pg.html'), 'utf8'), /PostgreSQL wire protocol \(port \d+\)/)
  const compared = await runTool('bin/crate-bench.js', ['compare', '--base', path.join(dir, 'http.json'), '--new',
    path.join(dir, 'pg.json'), '--json'], { env })
  assert.equal(compared.code, 0, compared.stderr)
  assert.match(compared.stderr, /^base over HTTP, new over PostgreSQL protocol$/m)
  assert.deepEqual(compared.json.protocols, { base: ['http'], new: ['pg'] })
  assert.ok(compared.json.option_differences.some((d) => d.option === 'protocol'))
})

test('--pg_insert values and unnest: a total per statement, the rest of the rows sent counted failed', async (t) => {
  const { double, pg, env } = await withPgDouble(t, { rejectRow: (n) => n % 100 === 3 })
  let stored = 0
  for (const shape of ['values', 'unnest']) {
    const run = await runTool('appClusterIngest.js', ['--protocol', 'pg', '--pg_insert', shape, '--processes', '1',
      '--max_rows', '3000', '--batch_size', '3000', '--json'], { env })
    assert.equal(run.code, 1, run.stderr)
    const r = run.json
    assert.deepEqual([r.rows_ok, r.rows_failed, r.rows_in_doubt], [2970, 30, 0], shape)
    assert.match(r.errors[0].message, /answers only how many rows it stored \(--pg_insert\)/)
    assert.equal(r.options.pg_insert, shape)
    stored += r.rows_ok
  }
  assert.equal(double.rowsAcknowledged, stored, 'what the double stored is what the runs counted')
  // 3,000 rows of 12 columns are 36,000 parameters: two VALUES statements, as a Bind takes at most 32,767.
  assert.ok([...pg.parses.keys()].filter((text) => / VALUES \(\$1, /.test(text) && text.includes('), (')).length >= 2)
  assert.ok([...pg.parses.keys()].some((text) => /UNNEST\(\$1::array\(object\)/.test(text)))
  const http = await runTool('appClusterIngest.js', ['--pg_insert', 'values'], { env })
  assert.equal(http.code, 2)
  assert.match(http.stderr, /--pg_insert is the shape of an insert over the PostgreSQL protocol: give --protocol pg/)
})

test('the protocol goes wherever the benchmark options go: a fleet and a sweep over pg', async (t) => {
  const { double, pg, env } = await withPgDouble(t, { trackKeys: true })
  const fleet = await runTool('bin/crate-bench.js', ['fleet', '--generators', '2', 'ingest', '--protocol', 'pg',
    '--max_rows', '2000', '--batch_size', '500', '--processes', '1', '--monitor_interval', '0', '--json'],
  { env, timeoutMs: 90_000 })
  assert.equal(fleet.code, 0, fleet.stderr)
  assert.equal(fleet.json.rows_ok, 4000)
  assert.equal(fleet.json.options.protocol, 'pg')
  assert.equal(double.keys.size, 4000)
  const batches = pg.cycles.filter((executes) => executes === 500).length
  assert.equal(batches, 8, 'every batch of both generators went over pg')
  const sweep = await runTool('bin/crate-bench.js', ['sweep', 'batch-size', '--values', '100 200', '--out',
    require('../helpers/temp-files').tempDir(t), '--', '--protocol', 'pg', '--max_rows', '1000', '--processes', '1',
    '--monitor_interval', '0'], { env, timeoutMs: 90_000 })
  assert.equal(sweep.code, 0, sweep.stderr)
  assert.equal(pg.cycles.filter((executes) => executes === 100).length, 10)
  assert.equal(pg.cycles.filter((executes) => executes === 200).length, 5)
})

test('a fleet over pg with a generator killed mid-run: the count lies within acknowledged + in doubt', async (t) => {
  const { runFleet } = require('../helpers/fleet-run')
  const { assertCountWithinAcknowledged } = require('../helpers/table-invariant')
  const { double, env } = await withPgDouble(t, { trackKeys: true })
  const { runs: [steward, second, third], report } = await runFleet({
    env: { ...env, CRATE_BENCH_FLEET_HEARTBEAT_MS: '200' },
    common: ['--protocol', 'pg', '--processes', '1', '--concurrent_requests', '2', '--batch_size', '100', '--timeout',
      '1s', '--json'],
    runId: 'pg-one-dies',
    kills: { 2: { at: /the load starts at/, delayMs: 2000 } }
  })
  assert.equal(second.signal, 'SIGKILL')
  assert.equal(steward.code, 4, steward.stderr)
  assert.equal(third.code, 0, third.stderr)
  assert.equal(report.code, 4)
  const m = report.json
  assert.equal(m.options.protocol, 'pg')
  assert.equal(m.rows_ok + m.rows_failed + m.rows_in_doubt, m.rows_sent, 'every row sent is ok, failed or in doubt')
  assert.ok(m.partial_reasons.some((r) => /its rows counted in the table by their keys/.test(r)),
    'the dead generator\'s rows are counted in the table, not bounded')
  assertCountWithinAcknowledged(m, double)
})

// Issue 57 (item 14): HTTP sent to the PostgreSQL port is named as such, not left as a parser's error. CrateDB 6.4.3's
// PostgreSQL port answers an HTTP request with an ErrorResponse ("invalid length of startup packet") and closes.
test('the HTTP load pointed at the PostgreSQL port: one line that names the port for what it is', async (t) => {
  const net = require('node:net')
  const fields = Buffer.from('SFATAL\0Minvalid length of startup packet\0CXX000\0\0', 'latin1')
  const header = Buffer.alloc(5)
  header.write('E', 0, 'latin1')
  header.writeUInt32BE(fields.length + 4, 1)
  const pgPort = net.createServer((socket) => socket.once('data', () => socket.end(Buffer.concat([header, fields]))))
  await new Promise((resolve) => pgPort.listen(0, '127.0.0.1', resolve))
  t.after(() => pgPort.close())
  const run = await runTool('appClusterIngest.js', ['--host', `127.0.0.1:${pgPort.address().port}`, '--max_rows',
    '10'])
  assert.equal(run.code, 3, run.stderr)
  assert.match(run.stderr,
    /does not answer in HTTP \(.*\): this looks like CrateDB's PostgreSQL port \(5432 by default\)/)
})
