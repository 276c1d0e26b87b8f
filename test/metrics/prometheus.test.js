'use strict'

// /metrics against a real Prometheus (the Debian package `prometheus`; .ci/run installs it, elsewhere this test
// skips with a visible line): a 20 s run against the CrateDB test double scraped every second; then, through
// Prometheus' HTTP API, the final counters equal the report's totals, and every query of the shipped Grafana
// dashboard evaluates without error, ours returning data.

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { spawn } = require('node:child_process')
const { withCrateTestDouble } = require('../helpers/crate-test-double')
const { runTool, ROOT } = require('../helpers/run-tool')
const { tempDir } = require('../helpers/temp-files')
const { closedPort } = require('../helpers/ports')
const { scrapeUntil } = require('../helpers/scrape')

const PROMETHEUS = [process.env.PROMETHEUS_PATH, '/usr/bin/prometheus'].find((p) => p && fs.existsSync(p))
const NO_PROMETHEUS = PROMETHEUS ? false : 'Prometheus is not installed (apt-get install prometheus, or ' +
  'PROMETHEUS_PATH): /metrics is not scraped by a real Prometheus'
if (NO_PROMETHEUS) console.log(`# ${NO_PROMETHEUS}`)

const DASHBOARD = JSON.parse(fs.readFileSync(path.join(ROOT, 'deploy', 'grafana', 'crate-bench.json'), 'utf8'))

async function api (base, pathAndQuery) {
  const answer = await fetch(`${base}${pathAndQuery}`)
  return answer.json()
}

async function waitFor (check, timeoutMs, what) {
  const until = Date.now() + timeoutMs
  for (;;) {
    const value = await check().catch(() => null)
    if (value) return value
    if (Date.now() > until) throw new Error(`${what} within ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
}

function startPrometheus (dir, { port, target }) {
  const config = path.join(dir, 'prometheus.yml')
  fs.writeFileSync(config,
    'global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n' +
    `scrape_configs:\n  - job_name: crate-bench\n    static_configs:\n      - targets: ['${target}']\n`)
  const child = spawn(PROMETHEUS, [`--config.file=${config}`, `--storage.tsdb.path=${path.join(dir, 'data')}`,
    `--web.listen-address=127.0.0.1:${port}`], { stdio: ['ignore', 'ignore', 'pipe'] })
  let log = ''
  child.stderr.on('data', (c) => { log += c })
  return { child, log: () => log }
}

test('Prometheus scrapes a 20 s run: the final counters equal the report; every dashboard query evaluates',
  { skip: NO_PROMETHEUS, timeout: 120_000 },
    (t) => withCrateTestDouble({ fault: ({ bulk }) => (bulk ? { delayMs: 3 } : undefined) }, async (double) => {
  const dir = tempDir(t)
  const [metricsPort, prometheusPort] = [await closedPort(), await closedPort()]
  const prometheus = startPrometheus(dir, { port: prometheusPort, target: `127.0.0.1:${metricsPort}` })
  const base = `http://127.0.0.1:${prometheusPort}`
  try {
    await waitFor(async () => (await fetch(`${base}/-/ready`)).ok, 30_000, 'Prometheus was not ready')
    // Prometheus hands discovered targets to its scrapers every 5 s: the run starts once the target is known.
    await waitFor(async () => (await api(base, '/api/v1/targets')).data.activeTargets.length > 0, 30_000, 'no target')
    const run = await runTool('appClusterIngest.js', ['--processes', '1', '--concurrent_requests', '2', '--batch_size',
      '500', '--rate', '20000', '--warmup', '5s', '--duration', '15s', '--monitor_interval', '0', '--metrics_port',
        String(metricsPort), '--run_id', 'prom-1', '--json'],
          { env: double.env({ CRATE_BENCH_METRICS_LINGER_MS: '4000' }), timeoutMs: 90_000 })
    assert.equal(run.code, 0, run.stderr)
    // The run has ended: once a scrape finds the target gone, Prometheus marks its series stale and an instant query
    // returns nothing, so the final value is read as the last sample of the past minute.
    const instant = async (selector) => {
      const expr = `last_over_time(${selector}[1m])`
      const answer = await api(base, `/api/v1/query?query=${encodeURIComponent(expr)}`)
      assert.equal(answer.status, 'success', `${expr}: ${JSON.stringify(answer)}`)
      return answer.data.result
    }
    const [ok] = await waitFor(async () => {
      const result = await instant('cratebench_rows_total{run_id="prom-1", outcome="ok"}')
      return result.length && Number(result[0].value[1]) === run.json.rows_ok ? result : null
    }, 10_000, `cratebench_rows_total{outcome="ok"} did not reach the report's rows_ok (${run.json.rows_ok})`)
    assert.equal(ok.metric.generator, '1')
    const [requests] = await instant('cratebench_requests_total{run_id="prom-1", outcome="ok"}')
    assert.equal(Number(requests.value[1]), run.json.requests - run.json.requests_failed)
    const [count] = await instant('cratebench_request_duration_seconds_count{run_id="prom-1"}')
    assert.equal(Number(count.value[1]), run.json.requests, 'one observation per request answered')

    // Every query of every panel and annotation, over the run, with the dashboard's variables filled in.
    const end = Math.ceil(Date.now() / 1000)
    const start = end - 40
    const queries = [
      ...DASHBOARD.panels.flatMap((p) => p.targets.map((x) => ({ title: p.title, expr: x.expr }))),
      ...DASHBOARD.annotations.list.map((a) => ({ title: `annotation ${a.name}`, expr: a.expr }))
    ]
    assert.ok(queries.length >= 15)
    for (const { title, expr } of queries) {
      const filled = expr.replaceAll('$run_id', 'prom-1').replaceAll('$__rate_interval', '4s')
      const answer = await api(base,
        `/api/v1/query_range?query=${encodeURIComponent(filled)}&start=${start}&end=${end}&step=1`)
      assert.equal(answer.status, 'success', `${title}: ${filled}: ${JSON.stringify(answer).slice(0, 300)}`)
      // CrateDB's own panels have data where its JMX exporter is scraped too; ours must have data here.
      if (/cratebench_/.test(filled)) assert.ok(answer.data.result.length > 0, `${title}: no data for ${filled}`)
    }
    const phases = await api(base,
      `/api/v1/query_range?query=${encodeURIComponent('max by (phase) (cratebench_phase{run_id="prom-1"}) == 1')}` +
      `&start=${start}&end=${end}&step=1`)
    // A scrape may land in the drain too (the last answers after --duration), on a loaded machine.
    const seen = phases.data.result.map((r) => r.metric.phase)
    assert.ok(seen.includes('warmup') && seen.includes('measure'),
      `the warm-up and the measured part were seen: ${JSON.stringify(phases.data.result)}`)
    assert.deepEqual(seen.filter((p) => !['warmup', 'measure', 'drain'].includes(p)), [], 'no other phase')
  } finally {
    prometheus.child.kill()
  }
}))

test('/metrics: one scrape while running names every metric with run_id and generator; a port in use is an error ' +
  'before any SQL', () => withCrateTestDouble({ fault: ({ bulk }) => (bulk ? { delayMs: 3 } : undefined) },
    async (double) => {
  const port = await closedPort()
  const series = ['cratebench_run_info', 'cratebench_rows_total', 'cratebench_requests_total',
    'cratebench_request_duration_seconds_bucket', 'cratebench_in_flight', 'cratebench_late_requests_total',
    'cratebench_hosts_up', 'cratebench_client_saturated', 'cratebench_phase']
    .map((name) => new RegExp(`^${name}\\{[^}]*run_id="scrape-1",generator="1"`, 'm'))
  const MEASURING = /^cratebench_phase\{[^}]*phase="measure"\} 1$/m
  let scrape
  const run = await runTool('appClusterIngest.js', ['--processes', '1', '--duration', '4s', '--batch_size', '500',
    '--concurrent_requests', '1', '--monitor_interval', '0', '--metrics_port', String(port), '--run_id', 'scrape-1',
      '--json'], {
    env: double.env({ CRATE_BENCH_METRICS_LINGER_MS: '0' }),
    waitFor: /metrics: +http/,
    // Until the worker has reported in the measured part (a loaded machine may take seconds to start it).
    whileRunning: (child) => { scrape = scrapeUntil(port, [MEASURING, ...series], child) }
  })
  assert.equal(run.code, 0, run.stderr)
  const scraped = await scrape
  for (const pattern of series) assert.match(scraped, pattern)
  assert.match(scraped, MEASURING)
  const net = require('node:net')
  const busy = net.createServer()
  await new Promise((resolve) => busy.listen(0, '127.0.0.1', resolve))
  try {
    const refused = await runTool('appClusterIngest.js', ['--metrics_port', String(busy.address().port)],
      { env: double.env() })
    assert.equal(refused.code, 3)
    assert.match(refused.stderr, /error: --metrics_port \d+ on 127\.0\.0\.1: the port is in use\n$/)
    assert.equal(double.statementsMatching(/DROP|CREATE TABLE IF NOT EXISTS "doc"\."cpu"/).length, 1,
      'only the first run prepared tables')
  } finally {
    busy.close()
  }
}))
