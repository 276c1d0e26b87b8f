'use strict'

// The PostgreSQL transport against the pgwire front of the test double: the HTTP endpoint's answer shapes, errors
// as the engine reads them, TLS asked of a server without it, a timeout, an abort.

const test = require('node:test')
const assert = require('node:assert/strict')
const net = require('node:net')
const { PgClient, withDollars, NO_REASON } = require('../../lib/cluster/pg-client')
const { PgConnection, commandCount, textValue } = require('../../lib/cluster/pg-connection')
const { CrateHttpError, TransportError } = require('../../lib/cluster/http-errors')
const { TRANSPORT_MEMBERS } = require('../../lib/cluster/transport')
const { startCrateTestDouble } = require('../helpers/crate-test-double')
const { startPgFront } = require('../helpers/pg-test-double')

async function setUp (t, script = {}, front = {}) {
  const double = await startCrateTestDouble(script)
  const pg = await startPgFront(double, front)
  t.after(() => Promise.all([pg.close(), double.stop()]))
  const client = (settings = {}) => {
    const c = new PgClient({ hosts: [{ hostname: '127.0.0.1' }], pgPort: pg.port, user: 'crate', password: '',
      timeoutMs: 2000, maxSockets: 2, ...settings })
    t.after(() => c.close())
    return c
  }
  return { double, pg, client }
}

const INSERT = 'INSERT INTO "doc"."t" ("tags", "ts", "usage_user") VALUES (?, ?, ?)'

test('a transport as the engine knows it: the HTTP answer shapes, per row and per query', async (t) => {
  const { double, client } = await setUp(t, { rejectRow: (n) => n === 1, query: (stmt) => (stmt === 'SELECT 2'
    ? { cols: ['x'], rows: [[2]], rowcount: 1 } : null) })
  const pg = client()
  for (const member of TRANSPORT_MEMBERS) assert.ok(member in pg, member)
  double.execute('CREATE TABLE doc.t (tags OBJECT, ts TIMESTAMP, usage_user INTEGER)', [])
  const body = JSON.stringify({ stmt: INSERT, bulk_args: [[{ h: 'a' }, 1, 10], [{ h: 'b' }, 2, 20], [{ h: 'c' }, 3, 30]] })
  assert.deepEqual(await pg.post(body), { results: [{ rowcount: 1 }, { rowcount: -2, error: { code: null,
    status: null, message: NO_REASON } }, { rowcount: 1 }] })
  assert.deepEqual(await pg.post(Buffer.from(JSON.stringify({ stmt: 'SELECT 2' }))), { cols: ['x'], rows: [['2']],
    rowcount: 1 })
  assert.deepEqual(await pg.sql('REFRESH TABLE doc.t'), { cols: [], rows: [[]], rowcount: 1 })
  await assert.rejects(pg.post(JSON.stringify({ stmt: 'SELECT * FROM doc.nothing' })),
    (e) => e instanceof CrateHttpError && e.code === 4041 && /SQLSTATE 42P01/.test(e.message))
  assert.deepEqual(await pg.requireOneHost(), [])
  assert.deepEqual(pg.downHosts(), [])
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
  const nowhere = new PgClient({ hosts: [{ hostname: '127.0.0.1' }], pgPort: 1, user: 'crate', timeoutMs: 2000 })
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
  const { client } = await setUp(t, { fault: () => 'hang' })
  const pg = client({ timeoutMs: 300 })
  pg.abort()
  await assert.rejects(pg.post('{"stmt":"SELECT 2"}'), (e) => e.code === 'ABORTED')
})

test('TLS asked of a server without it: one line saying so; nothing sent', async (t) => {
  const { pg } = await setUp(t)
  const connection = new PgConnection({ host: '127.0.0.1', port: pg.port, user: 'crate', ssl: true, timeoutMs: 2000 })
  await assert.rejects(connection.open(), (e) => e.code === 'ENOTLS' && e.sent === false &&
    /does not offer TLS over the PostgreSQL protocol/.test(e.message))
})

test('placeholders, values and command tags', () => {
  assert.equal(withDollars('SELECT ?, \'?\', "a?b", ? FROM t WHERE x = ?'), 'SELECT $1, \'?\', "a?b", $2 FROM t WHERE x = $3')
  assert.deepEqual([{ a: 1 }, 5, 'x', null, undefined, true].map(textValue), ['{"a":1}', '5', 'x', null, null, 'true'])
  assert.deepEqual(['INSERT 0 1', 'INSERT 0 -3', 'SELECT 12', 'CREATE', ''].map(commandCount), [1, -3, 12, null, null])
})
