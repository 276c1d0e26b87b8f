'use strict'

// --ui end to end: the tool against the CrateDB test double, its live page in headless Chromium driven by
// playwright-core (Debian's chromium; skipped visibly where it is missing), its API with curl's manners (fetch).
/* global document, window, echarts -- the functions given to page.evaluate and waitForFunction run in the page */

const test = require('node:test')
const assert = require('node:assert/strict')
const path = require('node:path')
const net = require('node:net')
const { withCrateTestDouble } = require('../helpers/crate-test-double')
const { runTool } = require('../helpers/run-tool')
const { tempDir } = require('../helpers/temp-files')
const { NO_CHROMIUM, launchBrowser, textLayout } = require('../helpers/chromium')

const urlIn = (stderr) => /live: +(http:\/\/\S+\/)/.exec(stderr)[1]
const number = (text) => Number(String(text).replace(/,/g, ''))

/** The mean rate of the timeline's whole intervals inside [fromS, toS). */
function meanRate (result, fromS, toS) {
  const inside = result.timeline.series.filter((e) => e.t_s >= fromS && e.t_s + 1 <= toS && e.ingest)
  return inside.reduce((sum, e) => sum + e.ingest.per_sec, 0) / inside.length
}

test('the live page: its numbers move, a rate set on it reaches the load, stop ends the run with its report',
  { skip: NO_CHROMIUM }, (t) => withCrateTestDouble({}, async (double) => {
    const report = path.join(tempDir(t), 'live.html')
    const browser = await launchBrowser()
    t.after(() => browser.close())
    let driving = null
    const run = await runTool('appClusterIngest.js', ['--rate', '1000', '--duration', '60s', '--batch_size', '100',
      '--processes', '1', '--monitor_interval', '1s', '--ui', '0', '--report', report, '--json'], {
      env: double.env(),
      timeoutMs: 120_000,
      waitFor: /live: +http/,
      whileRunning: (child, stderr) => { driving = drive(browser, urlIn(stderr)).catch((error) => error) }
    })
    const seen = await driving
    if (seen instanceof Error) throw seen
    assert.equal(run.code, 0, run.stderr)
    const r = run.json
    assert.equal(r.partial, false, 'stopped by the user: the run is whole')
    assert.equal(r.stopped_by, 'page')
    assert.ok(r.workers.every((w) => w.stop_reason === 'user_stop'))
    const change = r.events.find((e) => e.kind === 'rate_change')
    assert.deepEqual({ what: change.what, from: change.from, to: change.to, by: change.by },
      { what: 'rate', from: 1000, to: 3000, by: 'page' })
    assert.ok(r.events.some((e) => e.kind === 'user_stop' && e.by === 'page'))
    assert.ok(r.timeline.events.some((e) => e.kind === 'rate_change'), 'drawn on the charts as host events are')
    // The load followed the page: the whole seconds before the change at 1,000 rows/s, after it at 3,000.
    const before = meanRate(r, 0, change.at_s)
    const after = meanRate(r, Math.ceil(change.at_s) + 1, seen.stopAtS)
    assert.ok(Math.abs(before - 1000) <= 100, `before the change: ${before} rows/s`)
    assert.ok(Math.abs(after - 3000) <= 300, `after the change: ${after} rows/s`)
    assert.ok(r.rows_ok > 0 && r.rows_failed === 0)
    assert.match(run.stderr, /rate change +│ +│ rate 1000 -> 3000 rows\/s \(page\)/)
    // What the page turned into: the report, with a link that saves it, drawn without an error.
    assert.ok(seen.final.url.endsWith('/report'))
    assert.equal(seen.final.errors, '0')
    assert.ok(Number(seen.final.charts) >= 8, `${seen.final.charts} charts`)
    assert.equal(seen.final.save, 'Save this report')
    assert.ok(seen.markLines.includes('rate 1000\u21923000'), seen.markLines.join(', '))
    const layout = textLayout(report)
    assert.deepEqual(layout.overlaps, [])
    assert.deepEqual(layout.outside, [])
  }))

/** What a person does on the page, and what the test saw there. */
async function drive (browser, url) {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1300 } })
  await page.goto(url)
  await page.waitForFunction(() => Number(document.body.dataset.ticks) >= 2 && document.getElementById('ok')
    .textContent !== '-', null, { timeout: 30_000 })
  const first = number(await page.textContent('#ok'))
  await page.waitForFunction((before) => Number(document.getElementById('ok').textContent.replace(/,/g, '')) >
    before, first, { timeout: 10_000 })
  // Three whole seconds at the first rate, then the page sets the new one.
  await page.waitForFunction(() => parseFloat(document.getElementById('elapsed').textContent) >= 4, null,
    { timeout: 30_000 })
  await page.fill('#rate-main', '3000')
  await page.click('#apply-main')
  await page.waitForFunction(() => /1000 -> 3000/.test(document.getElementById('message').textContent), null,
    { timeout: 10_000 })
  const changedAtS = parseFloat(await page.textContent('#elapsed'))
  await page.waitForFunction((at) => parseFloat(document.getElementById('elapsed').textContent) >= at + 5, changedAtS,
    { timeout: 30_000 })
  // The event is on the charts, as host events are.
  const markLines = await page.evaluate(() => {
    const chart = echarts.getInstanceByDom(document.getElementById('chart-throughput'))
    return chart.getOption().series[0].markLine.data.map((d) => d.name)
  })
  const stopAtS = parseFloat(await page.textContent('#elapsed'))
  await page.click('#stop')
  await page.waitForURL(/\/report$/, { timeout: 30_000 })
  await page.waitForFunction(() => Number(document.body.dataset.charts) > 0, null, { timeout: 10_000 })
  const final = await page.evaluate(() => ({
    url: window.location.href,
    errors: document.body.dataset.errors,
    charts: document.body.dataset.charts,
    save: document.getElementById('save-report').textContent
  }))
  return { markLines, stopAtS, final }
}

test('the API: a bad rate, a closed-model run, an unknown group or path, no JSON — 4xx, the run goes on', () =>
  withCrateTestDouble({}, async (double) => {
    let driving = null
    const run = await runTool('appClusterIngest.js', ['--duration', '30s', '--batch_size', '10', '--processes', '1',
      '--monitor_interval', '0', '--ui', '0', '--json'], {
      env: double.env(),
      waitFor: /live: +http/,
      whileRunning: (child, stderr) => { driving = askApi(urlIn(stderr)).catch((error) => error) }
    })
    const answers = await driving
    if (answers instanceof Error) throw answers
    assert.deepEqual(answers.map((a) => a.status), [409, 404, 415, 400, 405, 404, 200])
    assert.match(answers[0].body.error, /as fast as the answers come: only a run with --rate, --stages/)
    assert.equal(run.code, 0, run.stderr)
    assert.equal(run.json.stopped_by, 'api')
    assert.equal(run.json.partial, false)
  }))

async function askApi (url) {
  const post = (p, body, type = 'application/json') => fetch(new URL(p, url), {
    method: 'POST', headers: { 'content-type': type }, body
  }).then(async (res) => ({ status: res.status, body: await res.json() }))
  await waitForLoad(url)
  return [
    await post('/api/rate', JSON.stringify({ rate: 100 })),
    await post('/api/rate', JSON.stringify({ rate: 100, group: 'companion' })),
    await post('/api/rate', 'rate=100', 'application/x-www-form-urlencoded'),
    await post('/api/rate', '{not json'),
    await fetch(new URL('/api/rate', url)).then(async (res) => ({ status: res.status, body: await res.json() })),
    await fetch(new URL('/nothing', url)).then(async (res) => ({ status: res.status, body: await res.json() })),
    await post('/api/stop', '{}')
  ]
}

/** The load has started (the API steers from then on). */
async function waitForLoad (url) {
  for (let i = 0; i < 300; i++) {
    const state = await (await fetch(new URL('/api/state', url))).json()
    if (state.phase === 'running') return state
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error('the load never started')
}

test('steering on another address than loopback needs the token printed at start; rates out of bounds are 400', () =>
  withCrateTestDouble({}, async (double) => {
    let driving = null
    const run = await runTool('appClusterIngest.js', ['--rate', '200', '--duration', '30s', '--batch_size', '10',
      '--processes', '1', '--monitor_interval', '0', '--ui', '0', '--ui_host', '0.0.0.0', '--json'], {
      env: double.env(),
      waitFor: /ui token: +\S+/,
      whileRunning: (child, stderr) => {
        const url = urlIn(stderr).replace('0.0.0.0', '127.0.0.1')
        const token = /ui token: +(\S+)/.exec(stderr)[1]
        driving = steerWithToken(url, token).catch((error) => error)
      }
    })
    const answers = await driving
    if (answers instanceof Error) throw answers
    assert.deepEqual(answers.map((a) => a.status), [401, 401, 400, 400, 400, 200, 200])
    assert.match(answers[2].body.error, /above 0/)
    assert.match(answers[4].body.error, /at most/)
    assert.equal(run.code, 0, run.stderr)
    assert.ok(!/ui token/.test(urlIn(run.stderr)), 'the token is never part of the URL')
    assert.deepEqual(run.json.events.filter((e) => e.kind === 'rate_change').map((e) => [e.from, e.to]), [[200, 250]])
  }))

async function steerWithToken (url, token) {
  const post = (p, body, auth) => fetch(new URL(p, url), {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(auth ? { authorization: `Bearer ${auth}` } : {}) },
    body: JSON.stringify(body)
  }).then(async (res) => ({ status: res.status, body: await res.json() }))
  await waitForLoad(url)
  return [
    await post('/api/rate', { rate: 250 }),
    await post('/api/rate', { rate: 250 }, 'not-the-token'),
    await post('/api/rate', { rate: 0 }, token),
    await post('/api/rate', { rate: -5 }, token),
    await post('/api/rate', { rate: 1e12 }, token),
    await post('/api/rate', { rate: 250 }, token),
    await post('/api/stop', {}, token)
  ]
}

test('--ui on a port in use: one line, exit 2, before any SQL', () => withCrateTestDouble({}, async (double) => {
  const taken = net.createServer()
  await new Promise((resolve) => taken.listen(0, '127.0.0.1', resolve))
  try {
    const run = await runTool('appClusterIngest.js', ['--ui', String(taken.address().port)], { env: double.env() })
    assert.equal(run.code, 2)
    assert.match(run.stderr, new RegExp(`error: --ui: port ${taken.address().port} on 127.0.0.1 is in use`))
    assert.equal(double.statements.length, 0)
    const bad = await runTool('appClusterIngest.js', ['--ui', 'abc'], { env: double.env() })
    assert.equal(bad.code, 2)
    assert.match(bad.stderr, /--ui must be a port number from 0 to 65535 \(got 'abc'\)/)
    const badFleet = await runTool('bin/crate-bench.js', ['fleet', '--generators', '2', 'ingest', '--ui', '70000'],
      { env: double.env() })
    assert.equal(badFleet.code, 2)
    assert.match(badFleet.stderr,
      /^crate-bench fleet: error: --ui must be a port number from 0 to 65535 \(got '70000'\)\n$/)
  } finally {
    taken.close()
  }
}))

test('crate-bench fleet --ui: the generators of this machine on one page, the rate and the stop sent to each', () =>
  withCrateTestDouble({ trackKeys: true }, async (double) => {
    let driving = null
    const run = await runTool('bin/crate-bench.js', ['fleet', '--generators', '2', 'ingest', '--rate', '400',
      '--duration', '60s', '--batch_size', '20', '--processes', '1', '--monitor_interval', '0', '--ui', '0', '--json'],
        {
      env: double.env(),
      timeoutMs: 120_000,
      waitFor: /live: +http/,
      whileRunning: (child, stderr) => { driving = steerFleet(urlIn(stderr)).catch((error) => error) }
    })
    const seen = await driving
    if (seen instanceof Error) throw seen
    assert.equal(run.code, 0, run.stderr)
    assert.equal(seen.hello.generators, 2)
    assert.deepEqual(seen.groups.map((g) => [g.role, g.target_per_sec]), [['main', 400]])
    assert.equal(seen.changed.status, 200)
    assert.deepEqual([seen.changed.body.event.from, seen.changed.body.event.to], [400, 800])
    // The page's seconds are both generators' added: 400 rows/s at first.
    const whole = seen.merged.filter((e) => e.ingest && e.t_s >= 1 && e.t_s < 3)
    assert.ok(whole.length > 0 && whole.every((e) => Math.abs(e.ingest.ok - 400) <= 40), JSON.stringify(whole))
    assert.ok(whole.every((e) => e.ingest.p99_ms > 0), 'percentiles from the generators\' merged histograms')
    const m = run.json
    assert.equal(m.options.load_generators, 2)
    // Each generator took its share of the change: 200 -> 400 rows/s.
    assert.deepEqual(m.timeline.events.filter((e) => e.kind === 'rate_change').map((e) => [e.from, e.to]),
      [[200, 400], [200, 400]])
    assert.ok(m.workers.every((w) => w.stop_reason === 'user_stop'))
    assert.equal(double.keys.size, m.rows_ok)
  }))

async function steerFleet (url) {
  const post = (p, body) => fetch(new URL(p, url), {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body)
  }).then(async (res) => ({ status: res.status, body: await res.json() }))
  let state = null
  for (let i = 0; i < 600 && !(state && state.phase === 'running' && state.groups.length > 0 &&
    state.now.elapsed_s >= 4); i++) {
    state = await (await fetch(new URL('/api/state', url))).json()
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  const hello = state
  const changed = await post('/api/rate', { rate: 800 })
  await new Promise((resolve) => setTimeout(resolve, 3000))
  const later = await (await fetch(new URL('/api/state', url))).json()
  const stopped = await post('/api/stop', {})
  assert.equal(stopped.status, 200, JSON.stringify(stopped.body))
  return { hello, groups: hello.groups, changed, merged: later.series }
}

// Issue 47: the page says when the load falls behind, and shows the ingest beside a query mix.
test('the header marks a rate not held, by how much and with the requests late; the ingest beside the queries shown',
  { skip: NO_CHROMIUM }, (t) => withCrateTestDouble({
    // Each query answers in 100 ms: one in flight serves 10 queries/s of the 40 asked.
    query: (stmt) => (/^SELECT count\(\*\) FROM doc\.cpu WHERE/.test(stmt) ? { cols: ['count'], rows: [[1]],
      rowcount: 1 }
      : null),
    fault: ({ stmt }) => (/^SELECT count\(\*\) FROM doc\.cpu WHERE/.test(stmt) ? { delayMs: 100 } : undefined)
  }, async (double) => {
    const browser = await launchBrowser()
    t.after(() => browser.close())
    const mix = require('../helpers/temp-files').tempFile(t, 'mix.yml',
      '- {name: hosts, query: "SELECT count(*) FROM doc.cpu WHERE tags[\'hostname\'] = ?", ratio: 1, args: ' +
        '[{hostname: {}}]}\n')
    let seen = null
    const run = await runTool('appClusterAnalytical.js', ['--queries_config', mix, '--rate', '40',
      '--concurrent_requests',
      '1', '--processes', '1', '--ingest_rate', '500', '--duration', '30s', '--monitor_interval', '0', '--ui', '0',
      '--json'], {
      env: double.env(),
      timeoutMs: 90_000,
      waitFor: /live: +http/,
      whileRunning: (child, stderr) => {
        seen = (async () => {
          const page = await browser.newPage({ viewport: { width: 1400, height: 900 } })
          await page.goto(urlIn(stderr))
          await page.waitForFunction(() => !document.getElementById('behind-figure').hidden &&
            !document.getElementById('companion-figure').hidden &&
            /rows\/s/.test(document.getElementById('companion').textContent), null, { timeout: 30_000 })
          const figures = { behind: await page.textContent('#behind'), companion: await page.textContent('#companion') }
          await page.click('#stop')
          return figures
        })().catch((error) => error)
      }
    })
    const figures = await seen
    if (figures instanceof Error) throw figures
    assert.equal(run.code, 0, run.stderr)
    assert.match(figures.behind, /^\d+(\.\d)?% of 40\/s over the last [\d.]+ s, [\d,]+ requests late$/)
    assert.ok(Number(figures.behind.split('%')[0]) < 50, figures.behind)
    assert.match(figures.companion, /^[\d,]+ rows\/s of 500(, p99 [\d.,]+ ms)?$/)
  }))
