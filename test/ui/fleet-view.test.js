'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { FleetView } = require('../../lib/ui/fleet-view')
const { newHistogram, recordMicros, encodeHistogram } = require('../../lib/results/stats')

const workload = { name: 'ingest', unit: 'rows' }

/** A generator's second: `ok` rows, each answered after `ms`, with the histogram a fleet's generator hands on. */
function second (t, ok, ms) {
  const h = newHistogram()
  for (let i = 0; i < ok; i++) recordMicros(h, ms * 1000)
  return { t_s: t, ingest: { ok, failed: 0, in_doubt: 0, per_sec: ok, p99_ms: ms, max_ms: ms, labels: {},
    latency_hist: encodeHistogram(h) } }
}

const now = (ok, target) => ({ phase: 'running', elapsed_s: 3, duration_s: 10, sent: ok, limit: null, ok, failed: 0,
  in_doubt: 0, per_sec: 100, groups: [{ role: 'main', unit: 'rows', steerable: true, target_per_sec: target }] })

function fleetOf (fetchImpl) {
  const view = new FleetView({ workload, options: { runId: 'run-f' }, members: 2, fetchImpl })
  const [a, b] = view.members
  a.url = 'http://127.0.0.1:1/'
  b.url = 'http://127.0.0.1:2/'
  view.receive(a, 'hello', { series: [], provisional: [], nodes: [], events: [], now: now(0, 200), queries: undefined,
    warmup_s: 0, groups: now(0, 200).groups })
  view.receive(b, 'hello', { series: [], provisional: [], nodes: [], events: [], now: now(0, 200), groups: [] })
  return { view, a, b }
}

test('a second is merged once every generator closed it, with exact percentiles; before that it is as it stands',
  () => {
  const { view, a, b } = fleetOf()
  view.receive(a, 'tick', { series: [second(0, 100, 2), second(1, 100, 2)], provisional: [second(2, 90, 2)],
    nodes: [{ t_s: 1, name: 'n1' }], events: [{ at_s: 1, kind: 'host_down', detail: 'refused' }], now: now(200, 200) })
  view.receive(b, 'tick', { series: [second(0, 100, 8)], provisional: [second(1, 100, 8)], nodes: [],
    events: [], now: now(100, 200) })
  const fresh = view.tick()
  assert.deepEqual(fresh.series.map((e) => [e.t_s, e.ingest.ok]), [[0, 200]])
  // Half the answers at 2 ms, half at 8: the merged p99 is 8, not a mean of the generators' p99s.
  assert.ok(Math.abs(fresh.series[0].ingest.p99_ms - 8) < 0.01, String(fresh.series[0].ingest.p99_ms))
  assert.deepEqual(fresh.provisional.map((e) => [e.t_s, e.ingest.ok]), [[1, 200], [2, 90]])
  assert.deepEqual(fresh.nodes, [{ t_s: 1, name: 'n1' }])
  assert.deepEqual(fresh.events.map((e) => e.detail), ['generator 1: refused'])
  assert.deepEqual([fresh.now.ok, fresh.now.per_sec, fresh.now.duration_s], [300, 200, 10])
  assert.deepEqual(fresh.now.groups.map((g) => [g.role, g.steerable, g.target_per_sec]), [['main', true, 400]])
  view.receive(b, 'tick', { series: [second(1, 100, 8)], provisional: [], nodes: [], events: [], now: now(200, 200) })
  assert.deepEqual(view.tick().series.map((e) => e.t_s), [1], 'each second merged once')
  view.receive(b, 'done', {})
  view.receive(a, 'tick', { series: [second(2, 90, 2)], provisional: [], nodes: [], events: [], now: now(290, 200) })
  assert.deepEqual(view.tick().series.map((e) => [e.t_s, e.ingest.ok]), [[2, 90]],
    'a generator that ended holds no second back')
  assert.equal(view.whole().generators, 2)
  assert.equal(view.describe().phase, 'running')
})

test('the rate goes to every generator as its share; a refusal is the fleet\'s answer', async () => {
  const posts = []
  const { view } = fleetOf(async (url, init) => {
    posts.push([String(url), JSON.parse(init.body)])
    const body = JSON.parse(init.body)
    if (body.rate === 1) return { ok: false, status: 400, json: async () => ({ error: 'too low' }) }
    return { ok: true, status: 200, json: async () => ({ ok: true, event: { what: 'rate', from: 200,
      to: body.rate } }) }
  })
  const steering = view.steering()
  const changed = await steering.setRate('main', 800, 'page')
  // Each change void past the time the page stops waiting for it (a paused generator must not take it later).
  const before = Date.now()
  for (const [, body] of posts) {
    assert.ok(body.not_after >= before && body.not_after <= Date.now() + 2000, JSON.stringify(body))
    delete body.not_after
  }
  assert.deepEqual(posts, [['http://127.0.0.1:1/api/rate', { group: 'main', rate: 400, by: 'page' }],
    ['http://127.0.0.1:2/api/rate', { group: 'main', rate: 400, by: 'page' }]])
  assert.deepEqual([changed.ok, changed.event.from, changed.event.to], [true, 400, 800])
  assert.match(changed.event.detail, /rate 400 -> 800 over 2 generators \(page\)/)
  assert.deepEqual(await steering.setRate('main', 0, 'page'), { ok: false, status: 400,
    error: 'the rate must be above 0 (got 0): stop the run to stop its load' })
  const refused = await steering.setRate('main', 2, 'api')
  assert.deepEqual([refused.ok, refused.status, refused.error], [false, 400, 'too low'])
  const stopped = await steering.stop('api')
  assert.deepEqual([stopped.ok, stopped.took, stopped.missed], [true, [1, 2], []])
})

test('a generator that hangs or is gone: each answer bounded, the fleet\'s answer names who took the change',
  async () => {
  const { view } = fleetOf((url, init) => {
    const port = new URL(url).port
    if (port === '1') {
      // SIGSTOPped: the connection is taken, no answer ever comes, until the signal gives up.
      return new Promise((resolve, reject) => init.signal.addEventListener('abort', () => reject(init.signal.reason)))
    }
    const body = JSON.parse(init.body)
    return Promise.resolve({ ok: true, status: 200, json: async () => ({ ok: true, event: { what: 'rate', from: 200,
      to: body.rate } }) })
  })
  const startedAt = Date.now()
  const changed = await view.steering().setRate('main', 800, 'page')
  assert.ok(Date.now() - startedAt < 10_000, 'not waited for')
  assert.equal(changed.ok, true)
  assert.deepEqual(changed.took, [2])
  assert.deepEqual(changed.missed, [{ generator: 1, error: 'generator 1: no answer within 2 s' }])
  assert.match(changed.event.detail,
    /over 2 generators \(page\); not taken by generator 1: no answer within 2 s: the fleet runs 400 of it$/)
  const gone = fleetOf(() => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:1'))).view
  const none = await gone.steering().stop('api')
  assert.deepEqual([none.ok, none.status, none.took], [false, 502, []])
  assert.match(none.error, /generator 1: connect ECONNREFUSED/)
})
