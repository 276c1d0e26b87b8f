'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { CrateClient, CrateHttpError, TransportError } = require('../lib/http-client')
const { startCrateTestDouble, withCrateTestDouble } = require('./helpers/crate-test-double')
const { closedPort } = require('./helpers/ports')

const clientFor = (double, over = {}) => new CrateClient({
  hosts: [{ protocol: 'http', hostname: '127.0.0.1', port: double.port }],
  user: 'crate',
  password: '',
  timeoutMs: 2000,
  ...over
})

const withDouble = withCrateTestDouble

test('a statement with args goes as parameters and its answer is parsed', () => withDouble({}, async (double) => {
  const client = clientFor(double)
  const answer = await client.sql('SELECT 1')
  assert.deepEqual(answer.rows, [[1]])
  await assert.rejects(client.sql('SELECT * FROM doc.nothing'), (e) => e instanceof CrateHttpError && e.status === 404 && e.code === 4041 && /RelationUnknown/.test(e.message))
  client.close()
}))

test('401 with a plain-text body becomes an authentication error', () => withDouble({ auth: { user: 'bench', password: 'right' } }, async (double) => {
  const client = clientFor(double, { user: 'bench', password: 'wrong' })
  await assert.rejects(client.sql('SELECT 1'), (e) => e.status === 401 && e.message === 'authentication failed: password authentication failed for user "bench"')
  client.close()
  const good = clientFor(double, { user: 'bench', password: 'right' })
  assert.deepEqual((await good.sql('SELECT 1')).rows, [[1]])
  good.close()
}))

test('413 tells the user to lower the batch size', () => withDouble({ maxContentLength: 100 }, async (double) => {
  const client = clientFor(double)
  await assert.rejects(client.post(Buffer.alloc(500, 32)), (e) => e.status === 413 && /lower --batch_size/.test(e.message))
  client.close()
}))

test('no answer within the timeout is a timeout error', () => withDouble({ fault: () => 'hang' }, async (double) => {
  const client = clientFor(double, { timeoutMs: 150 })
  const started = Date.now()
  await assert.rejects(client.sql('SELECT 1'), (e) => e instanceof TransportError && e.code === 'ETIMEDOUT' && /within 150 ms/.test(e.message))
  assert.ok(Date.now() - started < 20_000, 'ended by the timeout, not by the server')
  client.close()
}))

test('abort() abandons every request in flight as ABORTED, not as a server failure', () => withDouble({ fault: () => 'hang' }, async (double) => {
  const client = clientFor(double, { timeoutMs: 10_000 })
  const inFlight = [client.sql('SELECT 1'), client.sql('SELECT 2'), client.sql('SELECT 3')]
  await new Promise((resolve) => setTimeout(resolve, 100))
  const started = Date.now()
  client.abort()
  const outcomes = await Promise.allSettled(inFlight)
  assert.deepEqual(outcomes.map((o) => o.status === 'rejected' && o.reason instanceof TransportError && o.reason.code), ['ABORTED', 'ABORTED', 'ABORTED'])
  assert.ok(Date.now() - started < 9000, 'ended by abort(), not by the 10 s timeout')
  client.close()
}))

test('a dropped connection is a transport error', () => withDouble({ fault: () => 'drop' }, async (double) => {
  const client = clientFor(double)
  await assert.rejects(client.sql('SELECT 1'), (e) => e instanceof TransportError && e.code === 'ECONNRESET')
  client.close()
}))

test('a refused connection names the host', async () => {
  const port = await closedPort()
  const client = new CrateClient({ hosts: [{ protocol: 'http', hostname: '127.0.0.1', port }], user: 'crate', timeoutMs: 2000 })
  await assert.rejects(client.sql('SELECT 1'), (e) => e.code === 'ECONNREFUSED' && e.message === `connection refused by http://127.0.0.1:${port}`)
  client.close()
})

test('TLS to a plain HTTP port is reported as such', () => withDouble({}, async (double) => {
  const client = new CrateClient({ hosts: [{ protocol: 'https', hostname: '127.0.0.1', port: double.port }], user: 'crate', timeoutMs: 2000 })
  await assert.rejects(client.sql('SELECT 1'), (e) => e.code === 'ETLS' && /does not speak TLS/.test(e.message))
  client.close()
}))

test('TLS certificates are verified unless --insecure', () => {
  const verified = new CrateClient({ hosts: [{ protocol: 'https', hostname: 'h', port: 1 }], user: 'crate' })
  assert.equal(verified.targets[0].agent.options.rejectUnauthorized, true)
  const insecure = new CrateClient({ hosts: [{ protocol: 'https', hostname: 'h', port: 1 }], user: 'crate', insecure: true })
  assert.equal(insecure.targets[0].agent.options.rejectUnauthorized, false)
})

test('requests go round-robin over the hosts', async () => {
  const a = await startCrateTestDouble()
  const b = await startCrateTestDouble()
  try {
    const client = new CrateClient({
      hosts: [a, b].map((d) => ({ protocol: 'http', hostname: '127.0.0.1', port: d.port })),
      user: 'crate',
      timeoutMs: 2000
    })
    for (let i = 0; i < 6; i++) await client.sql('SELECT 1')
    assert.equal(a.requestCount, 3)
    assert.equal(b.requestCount, 3)
    client.close()
  } finally {
    await a.stop()
    await b.stop()
  }
})
