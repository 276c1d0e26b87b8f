'use strict'

// --protocol pg against PostgreSQL ports that misbehave (the pgwire double's hostile modes), end to end: --ssl keeps
// the password and the rows inside TLS or stops the run, every wait ends within --timeout, a broken answer puts its
// rows in doubt and the run goes on to its report, rows answered before a session ended count as stored.

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { startCrateTestDouble } = require('../helpers/crate-test-double')
const { startPgFront } = require('../helpers/pg-test-double')
const { runTool } = require('../helpers/run-tool')
const { assertCountWithinAcknowledged } = require('../helpers/table-invariant')
const { joined } = require('../helpers/patterns')

const TLS_FILES = path.join(__dirname, '..', 'fixtures', 'tls')
const CERTIFICATE = { key: fs.readFileSync(path.join(TLS_FILES, 'self-signed.key')),
  cert: fs.readFileSync(path.join(TLS_FILES, 'self-signed.crt')) }
const AUTH = { user: 'bench', password: 'never-in-clear' }
const INGEST = ['--protocol', 'pg', '--processes', '1', '--concurrent_requests', '1', '--batch_size', '200',
  '--max_rows', '2000', '--monitor_interval', '0', '--json']

async function hostileFront (t, script, front) {
  const double = await startCrateTestDouble({ trackKeys: true, ...script })
  const pg = await startPgFront(double, front)
  t.after(() => Promise.all([pg.close(), double.stop()]))
  return { double, pg, env: double.env({ CRATE_PG_PORT: String(pg.port) }) }
}

const lastLine = (stderr) => stderr.trimEnd().split('\n').at(-1)

test('--ssl --protocol pg: the rows and the password go inside TLS; a port without TLS or silent stops the run, exit 3',
  async (t) => {
    // The HTTP endpoint and the PostgreSQL port both speak TLS with the test certificate, which the run trusts.
    const trusted = { NODE_EXTRA_CA_CERTS: path.join(TLS_FILES, 'self-signed.crt'), CRATE_USER: AUTH.user,
      CRATE_PASSWORD: AUTH.password }
    const secure = await hostileFront(t, { tls: CERTIFICATE, auth: AUTH }, { tls: CERTIFICATE, auth: AUTH })
    const run = await runTool('appClusterIngest.js', INGEST, { env: { ...secure.env, ...trusted } })
    assert.equal(run.code, 0, run.stderr)
    assert.equal(run.json.rows_ok, 2000)
    assert.match(run.stderr, /cluster: +https:\/\/127\.0\.0\.1:\d+ as bench \(TLS\)/)
    assert.ok(secure.pg.sslRequests >= 2, 'every session asked for TLS')
    assert.deepEqual(secure.pg.cleartextPasswords, [])

    const plain = await hostileFront(t, { tls: CERTIFICATE, auth: AUTH }, { auth: AUTH })
    const refused = await runTool('appClusterIngest.js', INGEST, { env: { ...plain.env, ...trusted } })
    assert.equal(refused.code, 3, refused.stderr)
    assert.match(lastLine(refused.stderr),
      joined(
        /^appClusterIngest.js: error: cannot use the PostgreSQL /,
        /protocol .*does not offer TLS over the PostgreSQL protocol/))
    assert.deepEqual(plain.pg.cleartextPasswords, [], 'the password was never sent in clear')
    assert.equal(plain.double.bulkRowsReceived, 0)

    const silent = await hostileFront(t, { tls: CERTIFICATE, auth: AUTH }, { auth: AUTH, sslAnswer: 'silent' })
    const startedAt = Date.now()
    const waited = await runTool('appClusterIngest.js', [...INGEST, '--timeout', '2s'],
      { env: { ...silent.env, ...trusted } })
    assert.equal(waited.code, 3, waited.stderr)
    assert.match(lastLine(waited.stderr), /did not answer the SSLRequest within 2 s \(--timeout\)$/)
    assert.ok(Date.now() - startedAt < 20_000, 'bounded by --timeout')
    assert.doesNotMatch(`${refused.stderr}${waited.stderr}${run.stderr}`, /never-in-clear/)
  })

test('a port that never answers the startup: one line within --timeout, exit 3; Ctrl-C ends the check at once',
  async (t) => {
    const { env } = await hostileFront(t, {}, { startup: () => 'silent' })
    const run = await runTool('appClusterIngest.js', [...INGEST, '--timeout', '2s'], { env })
    assert.equal(run.code, 3, run.stderr)
    assert.match(lastLine(run.stderr),
      joined(
        /^appClusterIngest.js: error: cannot use the PostgreSQL protocol \(--protocol pg, port /,
        /\d+\): .*127\.0\.0\.1:\d+ did not answer the startup within 2 s \(--timeout\)$/))
    let signalledAt = null
    const interrupted = await runTool('appClusterIngest.js', [...INGEST, '--timeout', '60s'], {
      env,
      waitFor: /protocol: the load over the PostgreSQL wire protocol/,
      whileRunning: (child) => setTimeout(() => {
        signalledAt = Date.now()
        child.kill('SIGINT')
      }, 500),
      timeoutMs: 30_000
    })
    assert.ok(Date.now() - signalledAt < 10_000, `ended ${Date.now() - signalledAt} ms after Ctrl-C`)
    assert.notEqual(interrupted.code, 0, interrupted.stderr)
  })

test('sessions after the check never answer: the run ends within --timeout of its requests and reports', async (t) => {
  const { env } = await hostileFront(t, {}, { startup: ({ connection }) => (connection > 1 ? 'silent' : undefined) })
  const run = await runTool('appClusterIngest.js', [...INGEST, '--timeout', '1s'], { env, timeoutMs: 60_000 })
  assert.notEqual(run.code, 0, run.stderr)
  const r = run.json
  assert.equal(r.rows_ok, 0)
  assert.equal(r.rows_in_doubt, 0, 'no request was sent: failed, not in doubt')
  assert.equal(r.rows_ok + r.rows_failed + r.rows_in_doubt, r.rows_sent)
  assert.match(r.errors[0].message, /did not answer the startup within # s \(--timeout\)/)
})

test('mid-load: a broken length, an endless answer, a FATAL after some rows; ok + failed + in doubt = sent',
  async (t) => {
  const lengthOf = (length) => Buffer.from([0x32, length >>> 24, (length >>> 16) & 255, (length >>> 8) & 255,
    length & 255])
  // Cycle 1 is the check's SELECT 1; the batches are cycles 2 to 11.
  const faults = { 3: { raw: lengthOf(0xffffffff) }, 5: { raw: lengthOf(0) }, 7: 'endless', 9: { fatalAfterRows: 50 } }
  const { double, env } = await hostileFront(t, {}, { fault: ({ cycle }) => faults[cycle] })
  const run = await runTool('appClusterIngest.js', [...INGEST, '--timeout', '5s', '--max_answer_mb', '1'],
    { env, timeoutMs: 60_000 })
  assert.equal(run.code, 1, run.stderr)
  const r = run.json
  assert.equal(r.rows_ok + r.rows_failed + r.rows_in_doubt, r.rows_sent)
  assert.equal(r.rows_sent, 2000)
  assert.equal(r.rows_in_doubt, 3 * 200 + 150, 'three batches unanswered, the last one\'s 150 rows after the FATAL')
  assert.equal(r.rows_failed, 0, 'nothing the server answered was failed')
  assert.ok(r.errors.some((e) => /--max_answer_mb/.test(e.message)), JSON.stringify(r.errors))
  assert.ok(r.errors.some((e) => /ended the session: terminating connection/.test(e.message)))
  assertCountWithinAcknowledged(r, double)
})
