'use strict'

// The PostgreSQL transport against servers that misbehave (the pgwire double's hostile modes): TLS asked and not
// given, a certificate not trusted, silence at every step, lengths no message has, answers without end, a session
// ended in the middle of a batch. Each wait ends within --timeout, each answer within --max_answer_mb, the rows of a
// batch are ok, failed or in doubt by what was answered, and no password leaves the client outside TLS.

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { PgClient } = require('../../lib/cluster/pg-client')
const { PgConnection } = require('../../lib/cluster/pg-connection')
const { TransportError } = require('../../lib/cluster/http-errors')
const { startCrateTestDouble } = require('../helpers/crate-test-double')
const { startPgFront, message } = require('../helpers/pg-test-double')

const TLS_FILES = path.join(__dirname, '..', 'fixtures', 'tls')
const CERTIFICATE = { key: fs.readFileSync(path.join(TLS_FILES, 'self-signed.key')),
  cert: fs.readFileSync(path.join(TLS_FILES, 'self-signed.crt')) }
const bench = { user: 'bench', password: 'pw-in-clear?' }
const INSERT = 'INSERT INTO "doc"."t" ("k", "v") VALUES (?, ?)'

async function hostile (t, front = {}, script = {}) {
  const double = await startCrateTestDouble(script)
  double.execute('CREATE TABLE doc.t (k TEXT, v INTEGER)', [])
  const pg = await startPgFront(double, front)
  t.after(() => Promise.all([pg.close(), double.stop()]))
  const client = (settings = {}) => {
    const c = new PgClient({ hosts: [{ hostname: '127.0.0.1', protocol: settings.https ? 'https' : 'http' }],
      pgPorts: [pg.port], user: 'crate', password: '', timeoutMs: 1000, maxSockets: 2, ...settings })
    t.after(() => c.close())
    return c
  }
  return { double, pg, client }
}

const bulk = (rows) => JSON.stringify({ stmt: INSERT, bulk_args: Array.from({ length: rows }, (_, i) => [`k${i}`, i]) })

async function timed (promise) {
  const startedAt = Date.now()
  const outcome = await promise.then((value) => ({ value }), (error) => ({ error }))
  return { ...outcome, ms: Date.now() - startedAt }
}

test('--ssl on the PostgreSQL port: an SSLRequest first; N, silence ' +
  'or an untrusted certificate end it, no password sent',
  async (t) => {
    const auth = { auth: { user: 'bench', password: 'pw-in-clear?' } }
    const plain = await hostile(t, auth)
    await assert.rejects(plain.client({ https: true, ...bench }).requireOneHost(), (e) => e instanceof TransportError &&
      e.code === 'ENOTLS' && /does not offer TLS over the PostgreSQL protocol/.test(e.message))
    assert.equal(plain.pg.sslRequests, 1)
    assert.deepEqual(plain.pg.cleartextPasswords, [], 'nothing after the N')

    const silent = await hostile(t, { ...auth, sslAnswer: 'silent' })
    const waited = await timed(silent.client({ https: true, timeoutMs: 300, ...bench }).requireOneHost())
    assert.match(waited.error.message, /did not answer the SSLRequest within 0\.3 s \(--timeout\)/)
    assert.ok(waited.ms < 3000, `${waited.ms} ms`)
    assert.deepEqual(silent.pg.cleartextPasswords, [])

    const secure = await hostile(t, { ...auth, tls: CERTIFICATE })
    await assert.rejects(secure.client({ https: true, ...bench }).requireOneHost(), (e) => e.code === 'ECERT' &&
      /TLS certificate of 127\.0\.0\.1:\d+ \(PostgreSQL port\) is not trusted .*--insecure skips verification/
        .test(e.message))
    const insecure = secure.client({ https: true, insecure: true, ...bench })
    assert.deepEqual(await insecure.requireOneHost(), [])
    assert.deepEqual(await insecure.post(bulk(3)), { allRowsOk: 3 })
    assert.deepEqual(secure.pg.cleartextPasswords, [], 'the password went inside TLS only')

    const clear = await hostile(t, auth)
    assert.deepEqual(await clear.client(bench).post(bulk(1)), { allRowsOk: 1 })
    assert.deepEqual(clear.pg.cleartextPasswords, ['pw-in-clear?'], 'the double does see a password sent in clear')
  })

test('a port that takes the connection and never answers the startup: --timeout ends the check and every request',
  async (t) => {
    const { client } = await hostile(t, { startup: () => 'silent' })
    const check = await timed(client({ timeoutMs: 300 }).requireOneHost())
    assert.equal(check.error.code, 'ENOHOST')
    assert.match(check.error.message, /127\.0\.0\.1:\d+ did not answer the startup within 0\.3 s \(--timeout\)/)
    assert.ok(check.ms < 3000, `${check.ms} ms`)
    const request = await timed(client({ timeoutMs: 300 }).post(bulk(5)))
    assert.ok(request.error instanceof TransportError && request.error.sent === false, 'nothing of it was sent')
    assert.ok(request.ms < 3000, `${request.ms} ms`)
  })

test('sessions after the first never answer: a request waits for a session at most --timeout, then fails unsent',
  async (t) => {
    const { client, pg } = await hostile(t, { startup: ({ connection }) => (connection > 1 ? 'silent' : undefined) },
      { fault: ({ number }) => (number === 1 ? 'hang' : undefined) })
    const pool = client({ timeoutMs: 400, maxSockets: 1 })
    const first = timed(pool.post(bulk(2), { timeoutMs: 1500 }))
    while (pg.connections < 1) await new Promise((resolve) => setTimeout(resolve, 10))
    const queued = await timed(pool.post(bulk(2)))
    assert.ok(queued.error instanceof TransportError && queued.error.sent === false, String(queued.error))
    assert.match(queued.error.message, /no PostgreSQL session free within 400 ms/)
    assert.ok(queued.ms < 3000, `${queued.ms} ms`)
    const hung = await first
    assert.equal(hung.error.code, 'ETIMEDOUT')
    assert.equal(hung.error.sent, true, 'written, unanswered: in doubt')
    const later = await timed(pool.post(bulk(2)))
    assert.equal(later.error.sent, false, 'a session that never started sent nothing')
    assert.ok(later.ms < 3000, `${later.ms} ms`)
  })

function lengthOf (type, length) {
  const head = Buffer.alloc(5)
  head.write(type, 0, 'latin1')
  head.writeUInt32BE(length >>> 0, 1)
  return head
}

// A batch's answer whose first row is answered, then `tail`.
const oneRowThen = (tail) => Buffer.concat([message('1'), message('2'), message('C', Buffer.from('INSERT 0 1\0')),
  tail])

test('lengths no message has: at startup a protocol error at once, in a batch the rows not answered in doubt',
  async (t) => {
    for (const length of [0xffffffff, 0, 3]) {
      const { client } = await hostile(t, { startup: () => lengthOf('R', length) })
      const check = await timed(client({ timeoutMs: 5000 }).requireOneHost())
      assert.equal(check.error.code, 'EPROTOCOL', `length ${length}`)
      assert.match(check.error.message, new RegExp(`sent a message of ${length | 0} bytes`))
      assert.ok(check.ms < 3000, `length ${length}: ${check.ms} ms`)
    }
    // An error without the NUL that ends its fields: pg-protocol's reader would look for it for ever.
    const unterminated = Buffer.concat([lengthOf('E', 4 + 3), Buffer.from('SXX')])
    const spin = await hostile(t, { startup: () => unterminated })
    assert.equal((await timed(spin.client().requireOneHost())).error.code, 'EPROTOCOL')
    for (const length of [0xffffffff, 0, 0x7ffffff0]) {
      const { client } = await hostile(t, { fault: () => ({ raw: oneRowThen(lengthOf('2', length)) }) })
      const answer = await timed(client().post(bulk(10)))
      const lost = answer.error
      assert.ok(lost instanceof TransportError && lost.sent === true, `length ${length}: ${lost}`)
      assert.equal(lost.code, 'EPROTOCOL')
      assert.deepEqual(lost.answered, { ok: 1, failed: 0, failures: [] }, 'the row answered stands, 9 in doubt')
      assert.ok(answer.ms < 3000, `length ${length}: ${answer.ms} ms`)
    }
  })

test('an answer beyond --max_answer_mb is cut off: a huge message at once, endless rows when the cap is reached',
  async (t) => {
    const huge = await hostile(t, { fault: () => 'endless' })
    const pool = huge.client({ maxAnswerBytes: 256 * 1024, timeoutMs: 20_000 })
    const endless = await timed(pool.sql('SELECT 1'))
    assert.equal(endless.error.code, 'ETOOLARGE', String(endless.error))
    assert.match(endless.error.message, /had more than 262144 bytes \(--max_answer_mb\): cut off, outcome in doubt/)
    const check = await timed(huge.client({ maxAnswerBytes: 256 * 1024 }).requireOneHost())
    assert.equal(check.error.code, 'ENOHOST', 'the check\'s SELECT 1 is bounded alike')
    assert.match(check.error.message, /--max_answer_mb/)
    // A message announced larger than the cap is refused before its bytes are held.
    const announced = await hostile(t, { fault: () => ({ raw: lengthOf('D', 0x7ffffff0) }) })
    const big = await timed(announced.client().sql('SELECT 1'))
    assert.equal(big.error.code, 'EPROTOCOL')
  })

test('a session ended by a FATAL in the middle of a batch: the rows answered are stored, the rest in doubt',
  async (t) => {
    const { client, double } = await hostile(t, { fault: () => ({ fatalAfterRows: 3 }) },
      { keepRows: true, rejectRow: (n) => n === 2 })
    const lost = (await timed(client().post(bulk(10)))).error
    assert.ok(lost instanceof TransportError && lost.sent === true, String(lost))
    assert.match(lost.message,
      /ended the session: terminating connection due to administrator command \(SQLSTATE 57P01\)/)
    assert.equal(lost.answered.ok, 2)
    assert.equal(lost.answered.failed, 1, 'the third row was answered INSERT 0 -3')
    assert.equal(double.rows.length, 9, 'the double stored the rest: count(*) within ok + in doubt')
  })

test('a message split into many chunks is held, not copied again for each: 8 MB in 1-KB chunks', () => {
  const connection = new PgConnection({ host: 'h', port: 1, user: 'crate' })
  connection.parser = new (require('pg-protocol/dist/parser').Parser)()
  const rows = []
  connection.cycle = { batch: false, ok: 0, counts: null, rows, commands: [], fields: [], error: null, bytes: 0,
    resolve: () => {} }
  connection.receive = (m) => rows.push(m.name)
  const body = Buffer.alloc(8 * 1024 * 1024, 0x61)
  body[0] = 0x4d // M, the message's text
  body[body.length - 2] = 0
  body[body.length - 1] = 0
  const whole = Buffer.concat([lengthOf('N', body.length + 4), body])
  let copies = 0
  const concat = Buffer.concat
  Buffer.concat = (list, length) => {
    copies++
    return concat(list, length)
  }
  try {
    for (let at = 0; at < whole.length; at += 1024) connection.read(whole.subarray(at, at + 1024))
  } finally {
    Buffer.concat = concat
  }
  assert.deepEqual(rows, ['notice'])
  assert.equal(copies, 1, 'the message put together once, when complete')
})

// Issue 49: answers that belong to no cycle. A late CommandComplete and ReadyForQuery once completed the next batch
// on that connection (its rows counted failed); now the connection is given up and the rows not answered are in doubt.
const delayLaterBulks = { fault: ({ number, bulk }) => (bulk && number > 1 ? { delayMs: 150 } : undefined) }

test('a stray CommandComplete and ReadyForQuery after a whole answer: the next batch in doubt, never failed',
  async (t) => {
    const firstOnly = (what) => ({ cycle }) => (cycle === 1 ? what : undefined)
    const { client, pg, double } = await hostile(t, { fault: firstOnly({ strayAfterMs: 30 }) },
      { ...delayLaterBulks, keepRows: true })
    const pool = client({ maxSockets: 1 })
    assert.deepEqual(await pool.post(bulk(10)), { allRowsOk: 10 })
    // The next batch is in flight on the same connection when the stray messages arrive.
    const lost = (await timed(pool.post(bulk(10)))).error
    assert.ok(lost instanceof TransportError && lost.sent === true, String(lost))
    assert.equal(lost.code, 'EPROTOCOL')
    assert.match(lost.message, /a CommandComplete beyond the 0 rows bound so far: .*the rows not answered in doubt/)
    assert.ok(!lost.answered || (lost.answered.ok === 0 && lost.answered.failed === 0), JSON.stringify(lost.answered))
    // A fresh connection after it: its batch counted whole.
    assert.deepEqual(await pool.post(bulk(10)), { allRowsOk: 10 })
    assert.ok(pg.connections >= 2)
    assert.equal(double.rows.length, 30,
      'the double stored every row: the lost batch\'s rows were in doubt, not failed')
  })

test('a stray ReadyForQuery while the connection is idle gives the connection up; the next batch runs on a new one',
  async (t) => {
    const { client, pg } = await hostile(t, { fault: ({ cycle }) => (cycle === 1 ? { strayAfterMs: 10 } : undefined) })
    const pool = client({ maxSockets: 1 })
    assert.deepEqual(await pool.post(bulk(10)), { allRowsOk: 10 })
    // Until the stray was sent and read (however late a loaded machine runs the double's timer), not a fixed time.
    while (pg.straysSent === 0 || [...pool.open].some((c) => !c.closed)) {
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
    assert.deepEqual(await pool.post(bulk(10)), { allRowsOk: 10 })
    assert.equal(pg.connections, 2, 'the connection that answered nothing asked was not used again')
  })

test('a ReadyForQuery after half the rows, the rest later: those answered stand, the rest in doubt, none failed',
  async (t) => {
    const early = { readyAfterRows: 5, restAfterMs: 30 }
    const { client, pg } = await hostile(t, { fault: ({ cycle }) => (cycle === 1 ? early : undefined) })
    const pool = client({ maxSockets: 1 })
    const lost = (await timed(pool.post(bulk(10)))).error
    assert.ok(lost instanceof TransportError && lost.sent === true, String(lost))
    assert.equal(lost.code, 'EPROTOCOL')
    assert.match(lost.message, /a ReadyForQuery after 5 of the batch's 10 rows were answered/)
    assert.deepEqual(lost.answered, { ok: 5, failed: 0, failures: [] })
    await new Promise((resolve) => setTimeout(resolve, 60))
    assert.deepEqual(await pool.post(bulk(10)), { allRowsOk: 10 }, 'the late rest is no one\'s')
    assert.equal(pg.connections, 2)
  })

test('ParameterStatus of a new name with every answer: nothing of it is kept on the connection', async (t) => {
  const { client } = await hostile(t, { parameterFlood: true })
  const pool = client({ maxSockets: 1 })
  for (let i = 0; i < 200; i++) await pool.sql('SELECT 1')
  const [connection] = pool.open
  const kept = Object.values(connection).filter((v) => v && typeof v === 'object' && !Buffer.isBuffer(v))
    .some((v) => Object.keys(v).some((k) => k.startsWith('flood_')))
  assert.equal(kept, false, 'the flood\'s parameters are not stored')
  assert.equal(pool.open.size, 1, 'and the connection serves on')
})
