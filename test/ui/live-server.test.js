'use strict'

// The live page's server and what it shows, in this process: a real Timeline, Totals and Steering fed as the load
// stage feeds them, the server on port 0, its events and API read with fetch.

const test = require('node:test')
const assert = require('node:assert/strict')
const path = require('node:path')
const { execFileSync } = require('node:child_process')
const { LiveServer } = require('../../lib/ui/live-server')
const { LiveView } = require('../../lib/ui/live-view')
const { renderLivePage } = require('../../lib/ui/live-page')
const { Steering } = require('../../lib/run/steering')
const { Timeline } = require('../../lib/results/timeline')
const { Recorder, Totals } = require('../../lib/results/stats')
const { parseStages } = require('../../lib/data/load-profile')
const { readEventStream } = require('../../lib/ui/event-stream')

const START = 1_000_000

/** A load as the load stage hands it to the 'load' event, with a clock the test moves and a way to feed it. */
function fakeLoad () {
  const clock = { t: START }
  const totals = new Totals()
  const timeline = new Timeline({ originMs: START })
  const told = []
  const options = { runId: 'run-test', stages: parseStages('10s:100,10s:200'), warmupMs: 0 }
  const steering = new Steering({
    groups: [{ role: 'main', name: 'ingest', unit: 'rows', options, workerGroup: { steer: (at,
      rate) => told.push(rate) } }],
    startAt: START,
    deadline: START + 20_000,
    now: () => clock.t
  })
  const monitor = { startedAt: START - 500, samples: [] }
  const hostEvents = { events: [], toJSON () { return this.events } }
  const load = {
    startAt: START,
    deadline: START + 20_000,
    timeline,
    groups: [{ role: 'main', workerGroup: { totals } }],
    monitor,
    hostEvents,
    steering,
    countLimit: null
  }
  /** One second of answers: `ok` rows at the end of second `s`. */
  const second = (s, ok) => {
    const recorder = new Recorder({ now: () => START + s * 1000 })
    recorder.sent(ok, START + s * 1000)
    recorder.answered({ label: 'ingest', units: ok, ok, failed: 0, latencyMicros: 2000, at: START + (s + 1) * 1000 })
    const delta = { ...recorder.takeDelta(), at: START + (s + 1) * 1000, periodMs: 1000 }
    totals.addDelta(delta)
    timeline.add('ingest', delta)
    clock.t = START + (s + 1) * 1000
  }
  return { load, clock, second, told, options, monitor, hostEvents }
}

async function serve (t, { host = '127.0.0.1' } = {}) {
  const fake = fakeLoad()
  const workload = { name: 'ingest', unit: 'rows' }
  const view = new LiveView({ workload, options: fake.options, now: () => fake.clock.t })
  const server = await new LiveServer({
    host,
    port: 0,
    view,
    steeringOf: () => view.load && view.load.steering,
    page: () => renderLivePage({ workload, options: fake.options }),
    timers: { setInterval: () => ({}), clearInterval: () => {} }
  }).start()
  t.after(() => server.close({ lingerMs: 0 }))
  return { ...fake, view, server, url: server.url }
}

/** Reads server-sent events from `url` until `until(events)` says enough. */
/** The page's events until `until(events)`; `onEvent` sees each as it comes (the hello: the page is subscribed). */
async function readEvents (url, until, onEvent = () => {}) {
  const res = await fetch(new URL('/events', url))
  const events = []
  await readEventStream(res.body, (event, data) => {
    events.push({ event, data })
    onEvent(event)
    return !until(events)
  })
  return events
}

const post = (url, path, body, headers = {}) => fetch(new URL(path, url), {
  method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body)
}).then(async (res) => ({ status: res.status, body: await res.json() }))

test('the page is one file with nothing from outside, and the report\'s charts but the distribution', async (t) => {
  const { url } = await serve(t)
  const res = await fetch(url)
  const html = await res.text()
  assert.equal(res.status, 200)
  assert.doesNotMatch(html, /(src|href)="https?:/)
  assert.match(html, /id="chart-throughput"/)
  assert.doesNotMatch(html, /id="chart-distribution"/)
  assert.match(html, /window\.drawRun = drawRun/)
  assert.match(html, /new EventSource\('\/events'\)/)
})

test('events: hello with the run so far, ticks with what is new (closed and open intervals), done with the report',
  async (t) => {
    const { url, server, view, load, second, monitor, hostEvents } = await serve(t)
    const before = await (await fetch(new URL('/api/state', url))).json()
    assert.equal(before.phase, 'starting')
    view.attach(load)
    for (let s = 0; s < 5; s++) second(s, 100)
    monitor.samples.push({ t_s: 0, nodes: [{ name: 'n1', process_cpu_pct: 10, write: { queue: 0,
      rejected_delta: 0 } }] },
      { t_s: 2, nodes: [{ name: 'n1', process_cpu_pct: 40, write: { queue: 1, rejected_delta: 3 } }] })
    hostEvents.events.push({ at_s: 1.5, kind: 'host_down', host: 'h', detail: 'refused' })
    let subscribed
    const helloCame = new Promise((resolve) => { subscribed = resolve })
    const reading = readEvents(url, (events) => events.some((e) => e.event === 'done'),
      (event) => event === 'hello' && subscribed())
    // Ticks only once the page has its hello (a loaded machine connects it late), never after a fixed wait.
    await helloCame
    server.tick()
    second(5, 100)
    server.tick()
    server.finish('<html><body><h1>the report</h1></body></html>')
    const events = await reading
    assert.deepEqual(events.map((e) => e.event), ['hello', 'tick', 'tick', 'tick', 'done'])
    const hello = events[0].data
    assert.equal(hello.run_id, 'run-test')
    assert.deepEqual(hello.stages.map((s) => s.planned), ['10s:100', '10s:200'])
    assert.deepEqual(hello.series.map((e) => e.t_s), [], 'nothing closed before the first tick')
    const firstTick = events[1].data
    // An interval closes when one two after it is reported: 0 and 1 are; 2 and 3 are shown as they stand; 4 (the
    // newest, not every worker's report in) waits.
    assert.deepEqual(firstTick.series.map((e) => [e.t_s, e.ingest.ok]), [[0, 100], [1, 100]])
    assert.deepEqual(firstTick.provisional.map((e) => [e.t_s, e.ingest.ok]), [[2, 100], [3, 100]])
    assert.equal(firstTick.series[0].ingest.latency_hist, undefined)
    // The baseline sample before the load is not drawn; the one 1.5 s in is.
    assert.deepEqual(firstTick.nodes.map((n) => [n.t_s, n.write_rejected]), [[1.5, 3]])
    assert.deepEqual(firstTick.events.map((e) => e.kind), ['host_down'])
    assert.equal(firstTick.now.ok, 500)
    assert.equal(firstTick.now.elapsed_s, 5)
    assert.equal(firstTick.now.duration_s, 20)
    assert.deepEqual(events[2].data.series.map((e) => e.t_s), [2])
    assert.equal(events[2].data.now.per_sec, 100, '100 rows in the second between the ticks')
    assert.deepEqual(events[4].data, { report: '/report' })
    const report = await fetch(new URL('/report', url))
    assert.match(await report.text(), /<a id="save-report" href="\/report\?download"/)
    const saved = await fetch(new URL('/report?download', url))
    assert.equal(saved.headers.get('content-disposition'), 'attachment; filename="crate-bench-run-test.html"')
    assert.equal(await saved.text(), '<html><body><h1>the report</h1></body></html>')
    const late = await readEvents(url, (e) => e.length > 0)
    assert.deepEqual(late.map((e) => e.event), ['done'], 'a page opened after the end goes to the report')
  })

test('steering through the API: the rate reaches the workers, bad requests get 4xx with why', async (t) => {
  const { url, view, load, told, clock } = await serve(t)
  assert.equal((await post(url, '/api/rate', { rate: 10 })).status, 409, 'not before the load')
  view.attach(load)
  clock.t = START + 12_000
  const changed = await post(url, '/api/rate', { rate: 300 })
  assert.equal(changed.status, 200)
  assert.deepEqual(told, [300])
  assert.equal(changed.body.event.from, 200)
  assert.equal((await post(url, '/api/rate', { rate: 300 }, { origin: 'http://evil.example' })).status, 403)
  const big = await fetch(new URL('/api/rate', url), {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: `{"rate": 1, "pad": "${'x'.repeat(5000)}"}`
  })
  assert.equal(big.status, 413)
  assert.equal((await post(url, '/api/rate', [1])).status, 400)
  // Issue 49: a change whose sender (the fleet page) gave up on it is void when it arrives late.
  const late = await post(url, '/api/rate', { rate: 900, not_after: Date.now() - 5000 })
  assert.equal(late.status, 409)
  assert.match(late.body.error, /^the change arrived [\d.]+ s after its sender gave up waiting for it: not taken$/)
  assert.deepEqual(told, [300], 'the late change never reached the workers')
  assert.equal((await post(url, '/api/rate', { rate: 400, not_after: Date.now() + 60_000 })).status, 200)
  assert.deepEqual(told, [300, 400])
  const stopped = await post(url, '/api/stop', {})
  assert.equal(stopped.status, 200)
  assert.equal(view.load.steering.stopped.by, 'api')
  assert.equal((await fetch(new URL('/report', url))).status, 404, 'no report before the end')
  assert.equal((await fetch(new URL('/events', url), { method: 'DELETE' })).status, 405)
})

test('on another address, steering needs the token; the page and the state do not', async (t) => {
  const { url, server, view, load } = await serve(t, { host: '0.0.0.0' })
  const local = url.replace('0.0.0.0', '127.0.0.1')
  view.attach(load)
  assert.match(server.token, /^[0-9a-f]{32}$/)
  assert.equal((await fetch(local)).status, 200)
  const state = await (await fetch(new URL('/api/state', local))).json()
  assert.equal(state.token_required, true)
  assert.equal((await post(local, '/api/stop', {})).status, 401)
  assert.equal((await post(local, '/api/stop', {}, { authorization: 'Bearer nope' })).status, 401)
  assert.equal((await post(local, '/api/stop', {}, { authorization: `Bearer ${server.token}` })).status, 200)
})

test('a port in use is a usage error naming it', async (t) => {
  const { server } = await serve(t)
  const second = new LiveServer({ host: '127.0.0.1', port: server.port, view: null, steeringOf: () => null,
    page: () => '' })
  await assert.rejects(second.start(), (e) => e.exitCode === 2 && /port \d+ on 127\.0\.0\.1 is in use/.test(e.message))
})

/** A run that ended with a page open on it: the page has read 'done', the server waits for it to fetch the report. */
async function endedWithPageOpen (t) {
  const served = await serve(t)
  served.view.attach(served.load)
  let subscribed
  const helloCame = new Promise((resolve) => { subscribed = resolve })
  const reading = readEvents(served.url, (events) => events.some((e) => e.event === 'done'),
    (event) => event === 'hello' && subscribed())
  await helloCame
  served.server.finish('<h1>r</h1>')
  await reading
  return served
}

test('the server waits for an open page to fetch the report, and not for one that is gone', async (t) => {
  const { url, server } = await endedWithPageOpen(t)
  assert.equal(server.pagesAtEnd, 1)
  let slept = 0
  const closing = server.close({ lingerMs: 60_000,
    sleep: async () => { slept++; if (slept === 3) await fetch(new URL('/report', url)) } })
  await closing
  assert.ok(slept >= 3 && slept < 10, `${slept} waits, until the report was fetched`)
})

test('Ctrl-C during the linger ends it: the page that never fetches its report is not waited for', async (t) => {
  const { server } = await endedWithPageOpen(t)
  let slept = 0
  await server.close({ lingerMs: 60_000, sleep: async () => { if (++slept === 3) server.endLinger() } })
  assert.equal(slept, 3, 'the wait ended at the interrupt')
})

/** A request with a Host header of our choosing, as a page of a rebound name sends it (fetch may not set Host). */
function requestAs (url, path, { method = 'GET', host, origin, body = null }) {
  const target = new URL(path, url)
  return new Promise((resolve, reject) => {
    const headers = { host }
    if (origin) headers.origin = origin
    if (body !== null) headers['content-type'] = 'application/json'
    const req = require('node:http').request({ hostname: target.hostname, port: target.port, path: target.pathname,
      method, headers }, (res) => {
      res.resume()
      res.on('end', () => resolve(res.statusCode))
    })
    req.on('error', reject)
    req.end(body === null ? undefined : JSON.stringify(body))
  })
}

test('DNS rebinding: a name that resolves to loopback neither reads nor steers the run; the page\'s own names do',
  async (t) => {
    const { url, server, view, load, told } = await serve(t)
    view.attach(load)
    const rebound = { host: `evil.example:${server.port}`, origin: `http://evil.example:${server.port}` }
    assert.deepEqual([
      await requestAs(url, '/', rebound),
      await requestAs(url, '/api/state', rebound),
      await requestAs(url, '/events', rebound),
      await requestAs(url, '/api/rate', { ...rebound, method: 'POST', body: { rate: 5 } }),
      await requestAs(url, '/api/stop', { ...rebound, method: 'POST', body: {} }),
      await requestAs(url, '/api/state', { host: `127.0.0.1:${server.port + 1}` })
    ], [403, 403, 403, 403, 403, 403])
    assert.deepEqual(told, [], 'no rate reached the workers')
    assert.equal(view.load.steering.stopped, null)
    for (const host of [`localhost:${server.port}`, `127.0.0.1:${server.port}`, `LOCALHOST:${server.port}`]) {
      assert.equal(await requestAs(url, '/api/state', { host }), 200, host)
    }
    assert.equal(await requestAs(url, '/api/rate', { host: `localhost:${server.port}`,
      origin: `http://localhost:${server.port}`, method: 'POST', body: { rate: 5 } }), 200)
  })

test('the page ticks once a second; only the bench asks for faster ticks (CRATE_BENCH_UI_TICK_MS)', () => {
  const tickMs = (env) => Number(execFileSync(process.execPath, ['-e',
    "process.stdout.write(String(require('./lib/ui/live-server').TICK_MS))"],
  { cwd: path.join(__dirname, '..', '..'), env: { PATH: process.env.PATH, ...env } }))
  assert.equal(tickMs({}), 1000)
  assert.equal(tickMs({ CRATE_BENCH_UI_TICK_MS: '20' }), 20)
  assert.equal(tickMs({ CRATE_BENCH_UI_TICK_MS: 'soon' }), 1000)
})

test('the page marks a steady warm-up where it ended, not at its cap', () => {
  const view = new LiveView({ workload: { name: 'ingest', unit: 'rows' }, options: { runId: 'r', warmupMs: 60_000,
    warmupSteady: true } })
  assert.equal(view.describe().warmup_s, 60)
  view.warmed({ ms: 23_456.7, steady: true })
  assert.equal(view.describe().warmup_s, 23.457)
})
