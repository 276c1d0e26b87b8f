'use strict'

// The test double is only worth its tests if it answers like CrateDB: replay the captured
// requests in their recorded order and compare status, content type and body.

const test = require('node:test')
const assert = require('node:assert/strict')
const { startCrateTestDouble, fixture } = require('./crate-test-double')

const { REPLAYED_IN_ORDER, replay: replayAt, withoutDuration, contractOf, differences } = require('./contract')

const replay = (double, capture) => replayAt(double.url, capture)

/** Replays the captures in order against a fresh double and compares status, content type and body. */
async function replaysAsCaptured (names, script) {
  const double = await startCrateTestDouble(script)
  try {
    for (const name of names) {
      const capture = fixture(name)
      const got = await replay(double, capture)
      assert.equal(got.status, capture.response.status, name)
      assert.equal(got.contentType, capture.response.contentType, name)
      assert.deepEqual(withoutDuration(got.body), capture.response.body, name)
      assert.deepEqual(differences(contractOf(capture.response), contractOf(got)), [], name)
    }
  } finally {
    await double.stop()
  }
}

test('answers the captured exchanges exactly as CrateDB 6.4.3 did', () => replaysAsCaptured(REPLAYED_IN_ORDER))

test('key-value exchanges: refresh off at creation, upserts, point reads, reset', () => replaysAsCaptured([
  '50-create-with-refresh-interval', '51-upsert-bulk', '52-point-read-by-key', '53-point-read-missing-key',
    '54-reset-refresh-interval'
]))

test('sys.nodes samples answer as captured before a load and after the write pool rejected work',
  () => replaysAsCaptured(
  ['56-sys-nodes-before-load', '57-sys-nodes-after-rejections'],
  { sysNodes: (n) => fixture(n === 1 ? '56-sys-nodes-before-load' : '57-sys-nodes-after-rejections').response.body }
))

test('401 in plain text without a content type, like the capture', async () => {
  const double = await startCrateTestDouble({ auth: { user: 'bench_user', password: 'right' } })
  try {
    const capture = fixture('32-auth-wrong-password')
    const response = await fetch(`${double.url}/_sql`, {
      method: 'POST',
      body: JSON.stringify(capture.request.body),
      headers: { authorization: `Basic ${Buffer.from('bench_user:wrong').toString('base64')}` }
    })
    assert.equal(response.status, 401)
    assert.equal(response.headers.get('content-type'), capture.response.contentType)
    assert.equal(await response.text(), capture.response.body)
  } finally {
    await double.stop()
  }
})

test('413 with an empty body over max content length, like the capture', async () => {
  const double = await startCrateTestDouble({ maxContentLength: 1000 })
  try {
    const capture = fixture('47-body-too-large')
    const response = await fetch(`${double.url}/_sql`, { method: 'POST', body: JSON.stringify({ stmt: 'SELECT ?',
      args: ['x'.repeat(2000)] }) })
    assert.equal(response.status, capture.response.status)
    assert.equal(response.headers.get('content-type'), capture.response.contentType)
    assert.equal(await response.text(), capture.response.body)
  } finally {
    await double.stop()
  }
})

test('rejected rows carry the captured thread-pool rejection under HTTP 200', async () => {
  const double = await startCrateTestDouble({ rejectRow: (n) => n === 1 })
  try {
    await replay(double, fixture('03-create-cpu-table'))
    const got = await replay(double, fixture('06-bulk-insert-ok'))
    const captured = fixture('48-bulk-thread-pool-rejected').response.body.results[0]
    assert.equal(got.status, 200)
    assert.deepEqual(got.body.results, [{ rowcount: 1 }, captured, { rowcount: 1 }])
  } finally {
    await double.stop()
  }
})

test('a test cluster: one table on every node; a killed node resets (61) and refuses (62); survivors answer as 60, ' +
  '63, 64', async () => {
  const { startCrateTestCluster, clientTo } = require('./crate-test-double')
  const cluster = await startCrateTestCluster({
    failover: { windowMs: 60_000, duplicateEvery: 100, bareEvery: 7 },
    fault: ({ bulk, node }) => (bulk && node === 2 ? { answerDelayMs: 1000 } : undefined)
  }, { nodes: 3 })
  const clientOf = (index) => clientTo(cluster.nodes[index].port)
  const clients = [0, 1, 2].map(clientOf)
  const insert = 'INSERT INTO doc.nodeloss (tags, ts, usage_user) VALUES (?, ?, ?)'
  const rows = (n) => Array.from({ length: n }, (_, i) => [{ hostname: `h${i}` }, i, 1])
  const bulk = (client) => client.post(JSON.stringify({ stmt: insert, bulk_args: rows(1000) }))
  try {
    await clients[0].sql("CREATE TABLE doc.nodeloss (tags OBJECT, ts TIMESTAMP, usage_user " +
      "INTEGER) CLUSTERED INTO 6 SHARDS WITH (number_of_replicas = '1')")
    const before = await bulk(clients[1])
    const captured60 = fixture('60-node-loss-bulk-before-kill').response
    assert.ok(before.results.every((r) => JSON.stringify(r) === JSON.stringify(captured60.body.results[0])),
      'all rows acknowledged, as in 60')

    const inFlight = bulk(clients[2])
    await new Promise((resolve) => setTimeout(resolve, 100))
    await cluster.kill(2)
    await assert.rejects(inFlight, (e) => e.code === 'ECLOSED' && e.sent === true,
      'the open request is reset mid-request (61)')
    await assert.rejects(clientOf(2).sql('SELECT 1'), (e) => e.code === 'ECONNREFUSED' && e.sent === false,
      'a new connection is refused (62)')

    const during = await bulk(clients[1])
    const captured63 = fixture('63-node-loss-bulk-partial-failure').response.body.results
    const shapes = new Set(during.results.map((r) => JSON.stringify(r)))
    for (const shape of new Set(captured63.map((r) => JSON.stringify(r)))) assert.ok(shapes.has(shape),
      `a survivor answers ${shape} as in 63`)
    assert.equal(shapes.size, 3, 'ok, 4091 and bare -2 rows, nothing else')

    const names = await clients[0].sql('SELECT name FROM sys.nodes ORDER BY name')
    const captured64 = fixture('64-node-loss-sys-nodes').response.body
    assert.deepEqual([names.cols, names.rowcount], [captured64.cols, captured64.rowcount])
    assert.deepEqual(names.rows, [['node-0'], ['node-1']], 'only the survivors, as in 64')

    await clients[0].sql('REFRESH TABLE doc.nodeloss')
    const count = (await clients[0].sql('SELECT count(*) FROM doc.nodeloss')).rows[0][0]
    const ok = during.results.filter((r) => r.rowcount === 1).length
    assert.equal(count, 1000 + 1000 + ok + cluster.rowsStoredDespiteFailure,
      'the in-flight bulk was written before the kill; 4091 rows were stored')
    assert.equal(cluster.rowsAcknowledged, 1000 + ok)
    assert.equal(cluster.rowsStoredDespiteFailure, 10)
  } finally {
    for (const client of clients) client.close()
    await cluster.stop()
  }
})

test('an indexed text over 32,766 bytes is refused as captured (82, 83); with INDEX OFF it is stored (84, 85)',
  async () => {
  await replaysAsCaptured(['82-create-results-text-indexed', '83-insert-text-over-32k'])
  await replaysAsCaptured(['84-create-results-text-index-off', '85-insert-text-over-32k-index-off'])
})
