'use strict'

// --ingest_rate: a constant-rate ingest next to the query mix, each reported on its own.

const assert = require('node:assert/strict')
const { runTool } = require('../helpers/run-tool')
const { testOverProtocols } = require('../helpers/protocols')
const { tempFile } = require('../helpers/temp-files')
const { closedPort } = require('../helpers/ports')
const { scrapeUntil } = require('../helpers/scrape')

const DROPPED_INGEST = /^cratebench_dropped_requests_total\{[^}]*workload="ingest"\} \d+$/m


const mixFile = (t) => tempFile(t, 'mix.yml',
  '- {name: hosts, query: "SELECT count(*) FROM doc.cpu WHERE tags[\'hostname\'] = ?", ratio: 1, args: [{hostname: ' +
    '{}}]}\n')

// Answers the mix's query with one row; each query takes 10 ms.
const mixScript = (extra = {}) => ({
  query: (stmt) => (/^SELECT count\(\*\) FROM doc\.cpu WHERE/.test(stmt) ? { cols: ['count'], rows: [[1]],
    rowcount: 1 } : null),
  fault: ({ stmt }) => (/^SELECT count\(\*\) FROM doc\.cpu WHERE/.test(stmt) ? { delayMs: 10 } : undefined),
  ...extra
})

testOverProtocols('queries and a 2000 rows/s ingest side by side: both sections, exact counts', mixScript(),
  async (double, t) => {
  const run = await runTool('appClusterAnalytical.js', ['--queries_config', mixFile(t), '--max_queries', '150',
    '--concurrent_requests', '2', '--ingest_rate', '2000', '--ingest_batch_size', '50', '--json'],
      { env: double.env() })
  assert.equal(run.code, 0, run.stderr)
  const r = run.json
  assert.equal(r.queries_ok, 150)
  const ingest = r.ingest
  assert.equal(ingest.workload, 'ingest')
  assert.ok(ingest.rows_ok >= 500, `${ingest.rows_ok} rows over a ~0.75 s query run at 2000 rows/s`)
  assert.equal(ingest.rows_failed, 0)
  assert.equal(ingest.rows_sent, double.bulkRowsReceived, 'every row sent is accounted')
  assert.equal(ingest.rate.target_per_sec, 2000)
  // An open model never runs ahead of its timetable: n requests span at least n - 1 intervals. How
  // far behind a loaded machine falls is for npm run bench.
  const ceilingPct = (100 * ingest.requests) / (ingest.requests - 1) + 0.1
  assert.ok(ingest.rate.achieved_pct > 0 && ingest.rate.achieved_pct <= ceilingPct,
    `${ingest.rate.achieved_pct}% of target, ceiling ${ceilingPct}%`)
  assert.equal(ingest.options.drop_table, false)
  assert.equal(double.statementsMatching(/^DROP TABLE/).length, 0, 'the mix never drops the table it reads')
  assert.match(run.stderr, /ingest next to the run \(--ingest_rate 2,000 rows\/s, 1 process\):/)
  assert.match(run.stderr, /rows\/s achieved +│ [\d,.]+ \([\d.]+% of target/)
})

testOverProtocols('rows the cluster rejects during the mix: counted in the ingest section, exit 1',
  mixScript({ rejectRow: (n) => n % 10 === 0 }), async (double, t) => {
  const run = await runTool('appClusterAnalytical.js', ['--queries_config', mixFile(t), '--max_queries', '100',
    '--concurrent_requests', '2', '--ingest_rate', '2000', '--ingest_batch_size', '50', '--json'],
      { env: double.env() })
  assert.equal(run.code, 1, run.stderr)
  assert.equal(run.json.queries_failed, 0)
  assert.ok(run.json.ingest.rows_failed > 0)
  assert.equal(run.json.ingest.rows_failed, Math.ceil(run.json.ingest.rows_sent / 10))
  // Over the PostgreSQL protocol such a row answers INSERT 0 -3 and nothing else (captures 05, 14).
  assert.match(run.stderr, double.protocol === 'pg' ? /no reason given over the PostgreSQL protocol/
    : /EsRejectedExecutionException/)
})

testOverProtocols('/metrics gives each workload its target rate: the queries\' --rate and the ingest\'s --ingest_rate',
  mixScript(), async (double, t) => {
  const port = await closedPort()
  let scraping
  const run = await runTool('appClusterAnalytical.js', ['--queries_config', mixFile(t), '--duration', '3s', '--rate',
    '20', '--concurrent_requests', '2', '--ingest_rate', '2000', '--ingest_batch_size', '50', '--metrics_port',
      String(port)], {
    env: double.env({ CRATE_BENCH_METRICS_LINGER_MS: '0' }),
    waitFor: /metrics: +http/,
    // Until the ingest has reported (on a loaded machine its worker may start seconds after the endpoint).
    whileRunning: (child) => { scraping = scrapeUntil(port, DROPPED_INGEST, child) }
  })
  assert.equal(run.code, 0, run.stderr)
  const scraped = await scraping
  assert.match(scraped, /^cratebench_target_rate\{[^}]*workload="analytical"\} 20$/m)
  assert.match(scraped, /^cratebench_target_rate\{[^}]*workload="ingest"\} 2000$/m)
  // Its count is the machine's (a busy one may find every slot taken): the series, by workload, is the point.
  assert.match(scraped, DROPPED_INGEST)
})

testOverProtocols('--threshold can judge the ingest beside the queries: "ingest:…" or its table\'s name',
  mixScript({ rejectRow: (n) => n % 10 === 0 }), async (double, t) => {
  const run = await runTool('appClusterAnalytical.js', ['--queries_config', mixFile(t), '--max_queries', '100',
    '--concurrent_requests', '2', '--ingest_rate', '2000', '--ingest_batch_size', '50', '--threshold',
      'ingest:failed=0', '--threshold', 'doc.cpu:rows_per_sec>0', '--threshold', 'hosts:failed=0', '--json'],
        { env: double.env() })
  assert.equal(run.code, 5, run.stderr)
  assert.deepEqual(run.json.thresholds.map((x) => [x.threshold, x.passed, x.actual]), [
    ['ingest:failed=0', false, run.json.ingest.rows_failed],
    ['doc.cpu:rows_per_sec>0', true, run.json.ingest.tables[0].rows_per_sec],
    ['hosts:failed=0', true, 0]
  ])
  const unknown = await runTool('appClusterAnalytical.js', ['--queries_config', mixFile(t), '--threshold',
    'ingest:failed=0'], { env: double.env() })
  assert.equal(unknown.code, 2, 'no ingest without --ingest_rate')
  assert.match(unknown.stderr, /no query or table named 'ingest' \(there are: hosts\)/)
})

testOverProtocols('--ingest_rate must be a positive rate', mixScript(), async (double, t) => {
  const run = await runTool('appClusterAnalytical.js', ['--queries_config', mixFile(t), '--ingest_rate', 'lots'],
    { env: double.env() })
  assert.equal(run.code, 2)
  assert.match(run.stderr,
    /--ingest_rate must be a decimal number from 0\.001 to 1e\+9 of rows per second \(got 'lots'\)/)
})
