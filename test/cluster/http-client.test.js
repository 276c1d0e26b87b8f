'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { CrateClient, CrateHttpError, TransportError, FIRST_PAUSE_MS } = require('../../lib/cluster/http-client')
const { startCrateTestDouble, withCrateTestDouble } = require('../helpers/crate-test-double')
const { closedPort } = require('../helpers/ports')
const { fixture } = require('../helpers/crate-test-double')
const fs = require('node:fs')
const https = require('node:https')
const path = require('node:path')

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
  await assert.rejects(client.sql('SELECT * FROM doc.nothing'),
    (e) => e instanceof CrateHttpError && e.status === 404 && e.code === 4041 && /RelationUnknown/.test(e.message))
  client.close()
}))

test('401 with a plain-text body becomes an authentication error', () => withDouble({ auth: { user: 'bench',
  password: 'right' } }, async (double) => {
  const client = clientFor(double, { user: 'bench', password: 'wrong' })
  await assert.rejects(client.sql('SELECT 1'),
    (e) => e.status === 401 && e.message === 'authentication failed: password authentication failed for user "bench"')
  client.close()
  const good = clientFor(double, { user: 'bench', password: 'right' })
  assert.deepEqual((await good.sql('SELECT 1')).rows, [[1]])
  good.close()
}))

test('413 tells the user to lower the batch size', () => withDouble({ maxContentLength: 100 }, async (double) => {
  const client = clientFor(double)
  await assert.rejects(client.post(Buffer.alloc(500, 32)),
    (e) => e.status === 413 && /lower --batch_size/.test(e.message))
  client.close()
}))

test('no answer within the timeout is a timeout error', () => withDouble({ fault: () => 'hang' }, async (double) => {
  const client = clientFor(double, { timeoutMs: 150 })
  const started = Date.now()
  await assert.rejects(client.sql('SELECT 1'),
    (e) => e instanceof TransportError && e.code === 'ETIMEDOUT' && /within 150 ms/.test(e.message))
  assert.ok(Date.now() - started < 20_000, 'ended by the timeout, not by the server')
  client.close()
}))

test('--timeout bounds the whole answer: one that trickles a byte at a time fails as a timeout, in doubt', () =>
  withDouble({ fault: () => ({ trickleMs: 50 }) }, async (double) => {
    const client = clientFor(double, { timeoutMs: 400 })
    await assert.rejects(client.sql('SELECT 1'), (e) => e instanceof TransportError && e.code === 'ETIMEDOUT' &&
      e.sent === true && /within 400 ms \(--timeout\)/.test(e.message))
    client.close()
  }))

test('an answer over the cap is cut off with an error naming --max_answer_mb; the request is in doubt', () =>
  withDouble({ fault: () => ({ hugeBytes: 8 * 1024 * 1024 }) }, async (double) => {
    const client = clientFor(double, { maxAnswerBytes: 1024 * 1024 })
    await assert.rejects(client.sql('SELECT 1'), (e) => e instanceof TransportError && e.code === 'ETOOLARGE' &&
      e.sent === true && /more than 1,048,576 bytes \(--max_answer_mb\)/.test(e.message))
    client.close()
  }))

test('a timeout names where it came from', () => withDouble({ fault: () => 'hang' }, async (double) => {
  const client = clientFor(double, { timeoutMs: 100, timeoutName: "the monitor's timeout, from --monitor_interval" })
  await assert.rejects(client.sql('SELECT 1'), /within 100 ms \(the monitor's timeout, from --monitor_interval\)/)
  client.close()
}))

test('abort() abandons every request in flight as ABORTED, not as a server failure',
  () => withDouble({ fault: () => 'hang' }, async (double) => {
  const client = clientFor(double, { timeoutMs: 10_000 })
  const inFlight = [client.sql('SELECT 1'), client.sql('SELECT 2'), client.sql('SELECT 3')]
  await new Promise((resolve) => setTimeout(resolve, 100))
  const started = Date.now()
  client.abort()
  const outcomes = await Promise.allSettled(inFlight)
  assert.deepEqual(outcomes.map((o) => o.status === 'rejected' && o.reason instanceof TransportError && o.reason.code),
    ['ABORTED', 'ABORTED', 'ABORTED'])
  assert.ok(Date.now() - started < 9000, 'ended by abort(), not by the 10 s timeout')
  client.close()
}))

test('a connection closed mid-request (capture 61): the request was sent, its answer lost: in doubt',
  () => withDouble({ fault: () => 'drop' }, async (double) => {
  const client = clientFor(double)
  assert.equal(fixture('61-node-loss-socket-closed-mid-request').response.transportError.code, 'UND_ERR_SOCKET')
  await assert.rejects(client.sql('SELECT 1'),
    (e) => e instanceof TransportError && e.code === 'ECLOSED' && e.sent === true &&
    /connection to http:\/\/127\.0\.0\.1:\d+ closed before the answer arrived/.test(e.message))
  client.close()
}))

test('a refused connection (capture 62) names the host; nothing was sent', async () => {
  const port = await closedPort()
  const client = new CrateClient({ hosts: [{ protocol: 'http', hostname: '127.0.0.1', port }], user: 'crate',
    timeoutMs: 2000 })
  assert.equal(fixture('62-node-loss-connection-refused').response.transportError.code, 'ECONNREFUSED')
  await assert.rejects(client.sql('SELECT 1'),
    (e) => e.code === 'ECONNREFUSED' && e.sent === false &&
      e.message === `connection refused by http://127.0.0.1:${port}`)
  client.close()
})

test('TLS to a plain HTTP port is reported as such', () => withDouble({}, async (double) => {
  const client = new CrateClient({ hosts: [{ protocol: 'https', hostname: '127.0.0.1', port: double.port }],
    user: 'crate', timeoutMs: 2000 })
  await assert.rejects(client.sql('SELECT 1'), (e) => e.code === 'ETLS' && /does not speak TLS/.test(e.message))
  client.close()
}))

test('TLS certificates are verified unless --insecure', async () => {
  const tls = path.join(__dirname, '..', 'fixtures', 'tls')
  const server = https.createServer({ key: fs.readFileSync(path.join(tls, 'self-signed.key')),
    cert: fs.readFileSync(path.join(tls, 'self-signed.crt')) }, (req, res) => {
    req.resume()
    req.on('end', () => res.writeHead(200,
      { 'content-type': 'application/json' }).end('{"cols":["1"],"rows":[[1]],"rowcount":1,"duration":0.1}'))
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  const hosts = [{ protocol: 'https', hostname: '127.0.0.1', port: server.address().port }]
  try {
    const verified = new CrateClient({ hosts, user: 'crate', timeoutMs: 2000 })
    await assert.rejects(verified.sql('SELECT 1'),
      (e) => e.code === 'ECERT' && e.sent === false && /is not trusted .*--insecure skips verification/.test(e.message))
    verified.close()
    const insecure = new CrateClient({ hosts, user: 'crate', timeoutMs: 2000, insecure: true })
    assert.deepEqual((await insecure.sql('SELECT 1')).rows, [[1]])
    insecure.close()
  } finally {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  }
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

// ---- failover ----------------------------------------------------------------------------------

/** A clock the test moves; a sleep moves it at once, so waiting for a host costs no real time. */
function handClock () {
  const clock = { t: 1_000_000 }
  clock.now = () => clock.t
  clock.sleep = async (ms) => { clock.t += ms }
  return clock
}

const hostsOf = (...doubles) => doubles.map((d) => ({ protocol: 'http', hostname: '127.0.0.1', port: d.port }))

test('a host that refuses is skipped for a pause, probed with SELECT 1 after it, and rejoins when it answers',
  async () => {
  const a = await startCrateTestDouble()
  const b = await startCrateTestDouble()
  const clock = handClock()
  const client = new CrateClient({ hosts: hostsOf(a, b), user: 'crate', timeoutMs: 5000, clock })
  const events = []
  client.on('host-down', (e) => events.push(['down', e.host, e.at - 1_000_000]))
  client.on('host-up', (e) => events.push(['up', e.host, e.at - 1_000_000]))
  const request = () => client.post(JSON.stringify({ stmt: 'SELECT 1', args: [] }))
  try {
    await b.kill()
    await request()
    await assert.rejects(request(), (e) => e.code === 'ECONNREFUSED' && e.sent === false,
      'the request that finds b dead fails')
    for (let i = 0; i < 4; i++) await request()
    assert.equal(a.requestCount, 5, 'while b is down, every request goes to a')
    clock.t += FIRST_PAUSE_MS
    await request()
    await client.probesSettled()
    assert.equal(a.requestCount, 6, 'after 1 s the workload still goes to a; a probe is refused by b')
    clock.t += FIRST_PAUSE_MS
    await request()
    await client.probesSettled()
    await b.revive()
    clock.t += FIRST_PAUSE_MS
    await request()
    await client.probesSettled()
    assert.deepEqual(b.statements.map((st) => st.args), [undefined],
      'b got the probe (a SELECT 1 without args) 2 s after the second refusal, no workload')
    await request()
    await request()
    assert.deepEqual([a.requestCount, b.requestCount], [9, 2], 'round-robin again')
    const bBase = `http://127.0.0.1:${b.port}`
    assert.deepEqual(events, [['down', bBase, 0], ['up', bBase, 3000]])
  } finally {
    client.close()
    await a.stop()
    await b.stop()
  }
})

test('with every host down, requests wait for a probe to bring one back, and fail as ENOHOST after --timeout',
  async () => {
  const a = await startCrateTestDouble()
  const clock = handClock()
  // Each wait slice also lets real time pass, so that the probes' refusals arrive.
  clock.sleep = async (ms) => { clock.t += ms; await new Promise((resolve) => setTimeout(resolve, 2)) }
  const client = new CrateClient({ hosts: hostsOf(a), user: 'crate', timeoutMs: 3000, clock })
  try {
    await a.kill()
    await assert.rejects(client.sql('SELECT 1'), (e) => e.code === 'ECONNREFUSED')
    await assert.rejects(client.sql('SELECT 1'), (e) => e.code === 'ENOHOST' && e.sent === false &&
      e.message === 'no host answers: all 1 host has been down for more than 3000 ms (--timeout)')
    assert.ok(clock.t - 1_000_000 > 3000, 'it waited out the timeout')
    await a.revive()
    clock.t += 20_000
    const master = new CrateClient({ hosts: hostsOf(a), user: 'crate', timeoutMs: 30_000, clock, retryUnsent: true,
      downHosts: [`http://127.0.0.1:${a.port}`] })
    assert.deepEqual((await master.sql('SELECT 1')).rows, [[1]], 'a statement waits for the host to come back')
    master.close()
  } finally {
    client.close()
    await a.stop()
  }
})

test('with every host down, stopWaiting() ends a request that waits for one at once, or after the moment given',
  async () => {
    const a = await startCrateTestDouble()
    const clock = handClock()
    clock.sleep = async (ms) => { clock.t += ms; await new Promise((resolve) => setTimeout(resolve, 2)) }
    const client = new CrateClient({ hosts: hostsOf(a), user: 'crate', timeoutMs: 60_000, clock })
    try {
      await a.kill()
      await assert.rejects(client.sql('SELECT 1'), (e) => e.code === 'ECONNREFUSED')
      const downAt = clock.t
      client.stopWaiting({ afterMs: 5000 })
      await assert.rejects(client.sql('SELECT 1'), (e) => e.code === 'ENOHOST' && e.sent === false &&
        /^no host answers: all 1 host was down for [0-9]+ ms when the run stopped$/.test(e.message))
      assert.ok(clock.t - downAt >= 5000 && clock.t - downAt < 6000, `waited the moment, not --timeout: ${clock.t -
        downAt} ms`)
      client.stopWaiting()
      const before = clock.t
      await assert.rejects(client.sql('SELECT 1'), (e) => e.code === 'ENOHOST')
      assert.equal(clock.t, before, 'at once')
    } finally {
      client.close()
      await a.stop()
    }
  })

test('the master retries a statement that was never sent on the next host', async () => {
  const a = await startCrateTestDouble()
  const b = await startCrateTestDouble()
  const client = new CrateClient({ hosts: hostsOf(a, b), user: 'crate', retryUnsent: true, clock: handClock() })
  try {
    await a.kill()
    for (let i = 0; i < 3; i++) assert.deepEqual((await client.sql('SELECT 1')).rows, [[1]])
    assert.equal(b.requestCount, 3)
  } finally {
    client.close()
    await a.stop()
    await b.stop()
  }
})

test('hosts found unreachable before the run start down, without an event', async () => {
  const a = await startCrateTestDouble()
  const b = await startCrateTestDouble()
  const client = new CrateClient({ hosts: hostsOf(a, b), user: 'crate', downHosts: [`http://127.0.0.1:${b.port}`],
    clock: handClock() })
  let events = 0
  client.on('host-down', () => events++)
  try {
    for (let i = 0; i < 3; i++) await client.sql('SELECT 1')
    assert.deepEqual([a.requestCount, b.requestCount, events], [3, 0, 0])
    assert.deepEqual(client.downHosts(), [`http://127.0.0.1:${b.port}`])
  } finally {
    client.close()
    await a.stop()
    await b.stop()
  }
})
