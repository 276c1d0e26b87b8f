'use strict'

// The PostgreSQL transport against the pgwire front of the test double: the HTTP endpoint's answer shapes, errors
// as the engine reads them, TLS asked of a server without it, a timeout, an abort.

const test = require('node:test')
const assert = require('node:assert/strict')
const net = require('node:net')
const { PgClient, NO_REASON } = require('../../lib/cluster/pg-client')
const { PgConnection } = require('../../lib/cluster/pg-connection')
const { commandCount, textValue } = require('../../lib/cluster/pg-messages')
const { BulkBodyPool } = require('../../lib/data/bulk-body')
const { CrateHttpError, TransportError } = require('../../lib/cluster/http-errors')
const { TRANSPORT_MEMBERS } = require('../../lib/cluster/transport')
const { startCrateTestDouble } = require('../helpers/crate-test-double')
const { startPgFront } = require('../helpers/pg-test-double')

async function setUp (t, script = {}, front = {}) {
  const double = await startCrateTestDouble(script)
  const pg = await startPgFront(double, front)
  t.after(() => Promise.all([pg.close(), double.stop()]))
  const client = (settings = {}) => {
    const c = new PgClient({ hosts: [{ hostname: '127.0.0.1' }], pgPorts: [pg.port], user: 'crate', password: '',
      timeoutMs: 2000, maxSockets: 2, ...settings })
    t.after(() => c.close())
    return c
  }
  return { double, pg, client }
}

const INSERT = 'INSERT INTO "doc"."t" ("tags", "ts", "usage_user") VALUES (?, ?, ?)'

/** A backend message: its type, its length, its text. */
function message (type, text) {
  const body = Buffer.from(text)
  const head = Buffer.alloc(5)
  head.write(type, 0, 'latin1')
  head.writeInt32BE(body.length + 4, 1)
  return Buffer.concat([head, body])
}

/** Rows of doc.kv (k0, k1, … with 'v') written straight as the protocol's Bind values, as the models write theirs. */
function kvRowWriter () {
  let key = 0
  return {
    maxRowBytes: 40,
    writeRows: () => assert.fail('a JSON row'),
    writeBatchRows (buffer, pos, count, frame) {
      for (let n = 0; n < count; n++) {
        const start = pos
        pos = frame.openRow(buffer, pos)
        for (const value of [`k${key++}`, 'v']) {
          pos = buffer.writeInt32BE(value.length, pos)
          pos += buffer.write(value, pos)
        }
        pos = frame.closeRow(buffer, start, pos)
      }
      return pos
    }
  }
}

test('a transport as the engine knows it: the HTTP answer shapes, per row and per query', async (t) => {
  const { double, client } = await setUp(t, { rejectRow: (n) => n === 1, query: (stmt) => (stmt === 'SELECT 2'
    ? { cols: ['x'], rows: [[2]], rowcount: 1 } : null) })
  const pg = client()
  for (const member of TRANSPORT_MEMBERS) assert.ok(member in pg, member)
  double.execute('CREATE TABLE doc.t (tags OBJECT, ts TIMESTAMP, usage_user INTEGER)', [])
  const body = JSON.stringify({ stmt: INSERT, bulk_args: [[{ h: 'a' }, 1, 10], [{ h: 'b' }, 2, 20], [{ h: 'c' }, 3,
    30]] })
  assert.deepEqual(await pg.post(body), { results: [{ rowcount: 1 }, { rowcount: -2, error: { code: null,
    status: null, message: NO_REASON } }, { rowcount: 1 }] })
  const allOk = JSON.stringify({ stmt: INSERT, bulk_args: [[{ h: 'd' }, 4, 40], [{ h: 'e' }, 5, 50]] })
  assert.deepEqual(await pg.post(allOk), { allRowsOk: 2 }, 'every row stored: the all-ok shorthand')
  assert.deepEqual(await pg.post(Buffer.from(JSON.stringify({ stmt: 'SELECT 2' }))), { cols: ['x'], rows: [['2']],
    rowcount: 1 })
  assert.deepEqual(await pg.sql('REFRESH TABLE doc.t'), { cols: [], rows: [[]], rowcount: 1 })
  await assert.rejects(pg.post(JSON.stringify({ stmt: 'SELECT * FROM doc.nothing' })),
    (e) => e instanceof CrateHttpError && e.code === 4041 && /SQLSTATE 42P01/.test(e.message))
  assert.deepEqual(await pg.requireOneHost(), [])
  assert.deepEqual(pg.downHosts(), [])
})

test('a batch written as the protocol\'s messages goes as it is: parsed once per connection, settled per row',
  async (t) => {
    const { double, pg: front, client } = await setUp(t, { keepRows: true, rejectRow: (n) => n === 7 })
    double.execute('CREATE TABLE doc.kv (k TEXT PRIMARY KEY, v TEXT)', [])
    const pg = client({ maxSockets: 1 })
    assert.equal(pg.bulkEncoding, 'pg-batch')
    const rowWriter = kvRowWriter()
    const bodies = new BulkBodyPool({ stmt: 'INSERT INTO "doc"."kv" ("k", "v") VALUES (?, ?)', rowWriter,
      encoding: 'pg-batch', columns: 2 })
    assert.deepEqual(await pg.post(bodies.take(5).body), { allRowsOk: 5 })
    const second = await pg.post(bodies.take(5).body)
    assert.deepEqual(second.results.map((r) => r.rowcount), [1, 1, -2, 1, 1], 'the 8th row sent is rejected')
    assert.equal(double.rows.length, 9)
    assert.equal(front.parses.get('INSERT INTO "doc"."kv" ("k", "v") VALUES ($1, $2)'), 1, 'one Parse, one connection')
  })

test('each host\'s own PostgreSQL port: the nodes of one machine, one port each, all take the load', async (t) => {
  const { double, pg: first } = await setUp(t)
  const second = await startPgFront(double)
  t.after(() => second.close())
  double.execute('CREATE TABLE doc.t (tags OBJECT, ts TIMESTAMP, usage_user INTEGER)', [])
  const pg = new PgClient({ hosts: [{ hostname: '127.0.0.1' }, { hostname: '127.0.0.1' }],
    pgPorts: [first.port, second.port], user: 'crate', password: '', timeoutMs: 2000, maxSockets: 2 })
  t.after(() => pg.close())
  const body = JSON.stringify({ stmt: INSERT, bulk_args: [[{ h: 'a' }, 1, 10]] })
  await Promise.all([pg.post(body), pg.post(body)])
  assert.deepEqual([first.connections, second.connections], [1, 1], 'one connection to each node\'s own port')
})

test('a batch\'s answer read across chunks split anywhere: every row\'s count, the cycle settled once', () => {
  const answer = Buffer.concat([message('1', ''), message('2', ''), message('C', 'INSERT 0 1\0'), message('2', ''),
    message('C', 'INSERT 0 -3\0'), message('2', ''), message('C', 'INSERT 0 1\0'), message('Z', 'I')])
  for (let split = 0; split <= answer.length; split++) {
    const connection = new PgConnection({ host: 'h', port: 1, user: 'crate' })
    connection.parser = new (require('pg-protocol/dist/parser').Parser)()
    const settled = []
    connection.cycle = { batch: true, ok: 0, counts: null, commands: [], error: null, resolve: (c) => settled.push(c) }
    connection.read(answer.subarray(0, split))
    connection.read(answer.subarray(split))
    assert.equal(settled.length, 1, `split at ${split}`)
    assert.deepEqual([settled[0].ok, settled[0].counts], [2, [1, -3, 1]], `split at ${split}`)
  }
})

test('lost connections: refused is failed (never sent), closed mid-cycle or timed out is in doubt', async (t) => {
  const { client, double } = await setUp(t, { query: (stmt) => (stmt === 'SELECT 2' ? { cols: ['x'], rows: [[2]],
    rowcount: 1 } : null) }, { fault: ({ cycle }) => (cycle === 1 ? 'lost' : undefined) })
  double.execute('CREATE TABLE doc.t (tags OBJECT, ts TIMESTAMP, usage_user INTEGER)', [])
  const pg = client()
  await assert.rejects(pg.post(JSON.stringify({ stmt: INSERT, bulk_args: [[{}, 1, 1]] })),
    (e) => e instanceof TransportError && e.sent === true)
  assert.deepEqual(await pg.post(JSON.stringify({ stmt: 'SELECT 2' })), { cols: ['x'], rows: [['2']], rowcount: 1 },
    'the next request takes a new connection')
  const nowhere = new PgClient({ hosts: [{ hostname: '127.0.0.1' }], pgPorts: [1], user: 'crate', timeoutMs: 2000 })
  await assert.rejects(nowhere.post(JSON.stringify({ stmt: 'SELECT 2' })),
    (e) => e instanceof TransportError && e.code === 'ENOHOST' && e.sent === false)
  await assert.rejects(nowhere.requireOneHost(), (e) => e.code === 'ENOHOST')
})

test('a server that never answers: the request times out in doubt; abort abandons what is in flight', async (t) => {
  const silent = net.createServer((socket) => socket.on('data', () => {}))
  await new Promise((resolve) => silent.listen(0, '127.0.0.1', resolve))
  t.after(() => silent.close())
  const connection = new PgConnection({ host: '127.0.0.1', port: silent.address().port, user: 'crate', timeoutMs: 500 })
  const opening = connection.open()
  setTimeout(() => connection.destroy(), 100)
  await assert.rejects(opening)
  const { client, double } = await setUp(t, { fault: () => 'hang' })
  const pg = client({ timeoutMs: 20_000 })
  const inFlight = pg.post('{"stmt":"SELECT 2"}')
  // Abandoned once the server has it.
  while (double.requestCount === 0) await new Promise((resolve) => setTimeout(resolve, 10))
  pg.abort()
  await assert.rejects(inFlight, (e) => e.code === 'ABORTED' && e.sent === true)
  const timedOut = client({ timeoutMs: 300 })
  await assert.rejects(timedOut.post('{"stmt":"SELECT 2"}'), (e) => e.code === 'ETIMEDOUT' && e.sent === true)
})

test('a timeout timer that fires before the deadline (the event loop\'s time lags) is re-armed, never early',
  async (t) => {
  const { client, double } = await setUp(t, { fault: () => 'hang' })
  const pg = client({ timeoutMs: 60_000 })
  // Timers fire only when the test says: the first fires at once, long before the deadline by the clock.
  t.mock.timers.enable({ apis: ['setTimeout'] })
  t.after(() => t.mock.timers.reset())
  let settled = null
  const inFlight = pg.post('{"stmt":"SELECT 2"}').then(() => { settled = 'answered' }, (e) => { settled = e.code })
  while (double.requestCount === 0) await new Promise((resolve) => setImmediate(resolve))
  for (let i = 0; i < 3; i++) {
    t.mock.timers.tick(60_000)
    await new Promise((resolve) => setImmediate(resolve))
  }
  assert.equal(settled, null, 'the request is still waiting for its answer')
  pg.abort()
  await inFlight
  assert.equal(settled, 'ABORTED')
})

test('TLS asked of a server without it: one line saying so; nothing sent', async (t) => {
  const { pg } = await setUp(t)
  const connection = new PgConnection({ host: '127.0.0.1', port: pg.port, user: 'crate', ssl: true, timeoutMs: 2000 })
  await assert.rejects(connection.open(), (e) => e.code === 'ENOTLS' && e.sent === false &&
    /does not offer TLS over the PostgreSQL protocol/.test(e.message))
})

test('placeholders, values and command tags', () => {
  assert.deepEqual([{ a: 1 }, 5, 'x', null, undefined, true].map(textValue), ['{"a":1}', '5', 'x', null, null, 'true'])
  assert.deepEqual(['INSERT 0 1', 'INSERT 0 -3', 'SELECT 12', 'CREATE', ''].map(commandCount), [1, -3, 12, null, null])
})

test('reads land in one buffer of the connection\'s own: what a read leaves held survives the next read', () => {
  const answer = Buffer.concat([message('1', ''), ...new Array(4).fill(Buffer.concat([message('2', ''),
    message('C', 'INSERT 0 1\0')])), message('2', ''), message('C', 'INSERT 0 -3\0'), message('Z', 'I')])
  const shared = Buffer.alloc(64)
  for (let size = 1; size <= 30; size++) {
    const connection = new PgConnection({ host: 'h', port: 1, user: 'crate' })
    connection.parser = new (require('pg-protocol/dist/parser').Parser)()
    const settled = []
    connection.cycle = { batch: true, ok: 0, counts: null, commands: [], error: null, resolve: (c) => settled.push(c) }
    for (let at = 0; at < answer.length; at += size) {
      const bytes = answer.copy(shared, 0, at, Math.min(answer.length, at + size))
      connection.read(shared.subarray(0, bytes))
      shared.fill(0xff)
    }
    assert.deepEqual([settled.length, settled[0].ok, settled[0].counts], [1, 4, [1, 1, 1, 1, -3]], `reads of ${size}`)
  }
})

test('a batch\'s answer is read in gulps of 5% of the request\'s time so far (at most 100 ms): its ' +
  'latency read late by at most that; a young request, a full read and the last rows\' answer read as they come',
(t) => {
  const { gulps, GATHER_SHARE, MIN_GATHER_MS, MAX_GATHER_MS, READ_BUFFER_BYTES } =
    require('../../lib/cluster/pg-connection')
  assert.deepEqual([GATHER_SHARE, MIN_GATHER_MS, MAX_GATHER_MS], [0.05, 1, 100])
  let now = 0
  const calls = []
  const socket = { pause: () => calls.push('pause'), resume: () => calls.push('resume'), destroy () {} }
  const connection = new PgConnection({ host: 'h', port: 1, user: 'crate', now: () => now })
  connection.socket = socket
  gulps.now = () => now
  t.after(() => { gulps.now = () => performance.now() })
  const batchOf = (batchRows, startedAt) => ({ batch: true, batchRows, ok: 0, counts: null, startedAt })
  const readAt = (at, answered, bytes = 21) => {
    now = at
    connection.cycle.ok = answered
    connection.gatherIfStreaming(bytes)
  }
  // A request of 15 ms so far: 5% is under a millisecond, read as it comes.
  connection.cycle = batchOf(1000, 0)
  readAt(15, 1)
  assert.deepEqual(calls, [], 'too young for a gulp')
  // At 500 ms: a gulp of 25 ms.
  readAt(500, 10)
  assert.deepEqual(calls, ['pause'])
  assert.equal(gulps.waiting.get(connection), 525)
  connection.gatherIfStreaming(21)
  assert.deepEqual(calls, ['pause'], 'paused once')
  now = 524.5
  gulps.readDue()
  assert.deepEqual(calls, ['pause', 'resume'], 'due within a millisecond: read with the others of the gulp')
  // At 10 s: a gulp of at most 100 ms.
  readAt(10_000, 20)
  assert.equal(gulps.waiting.get(connection), 10_100)
  gulps.readAll()
  // A read that filled the buffer leaves more waiting, and the last rows answered leave the ReadyForQuery alone to
  // come: read on.
  calls.length = 0
  readAt(11_000, 200, READ_BUFFER_BYTES)
  readAt(11_001, 1000)
  assert.deepEqual(calls, [])
  // A query's answer, a TLS socket (which cannot stop reading from JavaScript) and no cycle: never paused.
  connection.cycle = { ...batchOf(0, 0), batch: false }
  readAt(20_000, 0)
  const secure = new PgConnection({ host: 'h', port: 1, user: 'crate', ssl: true, now: () => now })
  secure.socket = socket
  secure.cycle = batchOf(1000, 0)
  secure.gatherIfStreaming(21)
  connection.cycle = null
  connection.gatherIfStreaming(21)
  assert.deepEqual(calls, [])
  // Two connections due at different times: one timer for the first, then one for the second.
  const other = new PgConnection({ host: 'h', port: 2, user: 'crate', now: () => now })
  other.socket = { pause () {}, resume: () => calls.push('other resume'), destroy () {} }
  connection.cycle = batchOf(1000, 0)
  other.cycle = batchOf(1000, 0)
  now = 250
  connection.gatherIfStreaming(21)
  now = 400
  other.gatherIfStreaming(21)
  assert.deepEqual([...gulps.waiting.values()], [262.5, 420])
  now = 262.5
  gulps.readDue()
  assert.deepEqual(calls.slice(-1), ['resume'])
  assert.deepEqual([...gulps.waiting.values()], [420])
  // A connection dropped while it waits is not read again.
  other.drop()
  assert.equal(gulps.waiting.has(other), false)
  gulps.readAll()
})

test('a 5,000-row batch answered row by row as CrateDB flushes it (15): every row counted, in gulps only once the ' +
  'request is old enough',
  async (t) => {
    const { double, client } = await setUp(t, { rejectRow: (n) => n % 1000 === 999 }, { rowByRow: true })
    double.execute('CREATE TABLE doc.kv (k TEXT PRIMARY KEY, v TEXT)', [])
    const pg = client({ maxSockets: 1 })
    const rowWriter = kvRowWriter()
    const bodies = new BulkBodyPool({ stmt: 'INSERT INTO "doc"."kv" ("k", "v") VALUES (?, ?)', rowWriter,
      encoding: 'pg-batch', columns: 2 })
    const { PgConnection: Connection } = require('../../lib/cluster/pg-connection')
    let pauses = 0
    const batchRows = new Set()
    const pause = Connection.prototype.gatherIfStreaming
    Connection.prototype.gatherIfStreaming = function (bytes) {
      const before = this.gathering
      pause.call(this, bytes)
      if (!before && this.gathering) pauses++
    }
    // The rows each batch's cycle is opened with: read where the cycle begins, not from a read of its answer (an
    // answer that comes in one chunk, as on a loaded machine, has ended its cycle before any such read).
    const run = Connection.prototype.run
    Connection.prototype.run = function (bytes, options = {}) {
      if (options.batch) batchRows.add(options.rows)
      return run.call(this, bytes, options)
    }
    t.after(() => {
      Connection.prototype.gatherIfStreaming = pause
      Connection.prototype.run = run
    })
    const started = performance.now()
    const answer = await pg.post(bodies.take(5000).body)
    const elapsed = performance.now() - started
    assert.equal(answer.results.length, 5000)
    assert.deepEqual(answer.results.map((r, i) => [i, r.rowcount]).filter(([, c]) => c !== 1).map(([i]) => i),
      [999, 1999, 2999, 3999, 4999])
    // The double flushes 5,000 rows over at least 67 ms (the capture's pace). A request younger than 20 ms reads as
    // it comes (5% of it is under a millisecond); later gulps last a millisecond or more.
    assert.ok(elapsed >= 60, `${elapsed} ms`)
    assert.ok(pauses <= Math.max(0, elapsed - 20) + 1, `${pauses} gulps in ${Math.round(elapsed)} ms`)
    // The rows a batch has: counted from its Executes, or as the caller says (the engine passes its units).
    assert.deepEqual([...batchRows], [5000])
    batchRows.clear()
    const told = await pg.post(bodies.take(300).body, { units: 300 })
    assert.equal(told.allRowsOk, 300)
    assert.deepEqual([...batchRows], [300])
  })

/**
 * A one-host client (--timeout 1 s) of a server that takes connections and never answers a startup, on a clock the
 * test moves: `reading()` is what performance.now() reads, setTimeout fires on `tick(ms)`. `request()` sends one
 * and resolves, once its startup was sent, to { failure }: the promise of its error.
 */
async function silentOnMockedClock (t, reading) {
  const { performance } = require('node:perf_hooks')
  const silent = net.createServer((socket) => socket.on('data', () => silent.emit('startup-sent')))
  await new Promise((resolve) => silent.listen(0, '127.0.0.1', resolve))
  t.after(() => silent.close())
  t.mock.method(performance, 'now', reading)
  t.mock.timers.enable({ apis: ['setTimeout'] })
  const client = new PgClient({ hosts: [{ hostname: '127.0.0.1' }], pgPorts: [silent.address().port], user: 'crate',
    timeoutMs: 1000 })
  t.after(() => client.close())
  const request = async () => {
    const failure = client.post(JSON.stringify({ stmt: 'SELECT 1' })).catch((e) => e)
    await new Promise((resolve) => silent.once('startup-sent', resolve))
    return { failure }
  }
  return { request, tick: (ms) => t.mock.timers.tick(ms) }
}

test('the server is gone when a request begun after the first wholly failed one runs out of its time too, even by a ' +
  'timer that fires a hair early of the precise clock', async (t) => {
  let clock = 0
  const { request, tick } = await silentOnMockedClock(t, () => clock)
  // Each request's startup timer fires half a millisecond before its deadline on the precise clock.
  const failedAtEarlyTimer = async (deadline) => {
    const { failure } = await request()
    clock = deadline - 0.5
    tick(1000)
    return failure
  }
  const first = await failedAtEarlyTimer(1000)
  assert.equal(first.code, 'ECONNECT', 'one request is never the server gone')
  const second = await failedAtEarlyTimer(clock + 1000)
  assert.equal(second.code, 'ENOHOST', second.message)
})

test('one host: a session that runs out says --timeout, never a share across hosts, however long the request took ' +
  'to reach it', async (t) => {
  // Every reading of the clock 5 ms after the one before: a loaded machine between a request's start and its session.
  let clock = 0
  const { request, tick } = await silentOnMockedClock(t, () => (clock += 5))
  const { failure } = await request()
  tick(1000)
  assert.match((await failure).message, /did not answer the startup within 1 s \(--timeout\)$/)
})

test('a host gone silent takes only its share of a request\'s time, and stops no run by itself',
  async (t) => {
    const { double, pg } = await setUp(t)
    double.execute('CREATE TABLE doc.t (tags OBJECT, ts TIMESTAMP, usage_user INTEGER)', [])
    // A host cut off: it takes the connection and never answers the startup.
    const silent = net.createServer((socket) => socket.on('data', () => {}))
    await new Promise((resolve) => silent.listen(0, '127.0.0.1', resolve))
    t.after(() => silent.close())
    const client = new PgClient({ hosts: [{ hostname: '127.0.0.1' }, { hostname: '127.0.0.1' }],
      pgPorts: [silent.address().port, pg.port], user: 'crate', password: '', timeoutMs: 6000, maxSockets: 1 })
    t.after(() => client.close())
    const down = []
    client.on('host-down', (e) => down.push(e.detail))
    const began = Date.now()
    assert.deepEqual(await client.post(JSON.stringify({ stmt: 'SELECT 1' })), { cols: ['1'], rows: [['1']],
      rowcount: 1 }, 'answered by the other host within the request\'s own time')
    assert.ok(Date.now() - began < 6000, 'the silent host took its share, not the whole --timeout')
    assert.match(down[0], /did not answer the startup within 3 s \(its share of --timeout across the hosts\)$/)
    // Every host silent: this request's rows fail (never sent) and the run goes on, until they have failed every
    // session for longer than --timeout: the server gone.
    const cutOff = new PgClient({ hosts: [{ hostname: '127.0.0.1' }], pgPorts: [silent.address().port], user: 'crate',
      timeoutMs: 1000 })
    t.after(() => cutOff.close())
    await assert.rejects(cutOff.post(JSON.stringify({ stmt: 'SELECT 1' })),
      (e) => e instanceof TransportError && e.code === 'ECONNECT' && e.sent === false)
    await assert.rejects(cutOff.post(JSON.stringify({ stmt: 'SELECT 1' })), (e) => e.code === 'ENOHOST')
  })
