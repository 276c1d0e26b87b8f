'use strict'

// The query path: SELECT 1 and the dashboard mix through the tool against a bare undici loop fetching the same
// answers, and what watching the query path costs.

const path = require('node:path')
const {
  RUNS, QUERY_PATH_QUERIES, AMPLIFIED_SCRAPE_EVERY_MS, AMPLIFIED_TICK_MS, TARGET_SHARE_OF_BARE, TARGET_CPU_OF_BARE,
  TARGET_METRICS_COST, TARGET_UI_COST, DASHBOARD_RATE, DASHBOARD_PACED_SECONDS, DASHBOARD_ANSWER_ROWS,
  DASHBOARD_QUERIES, TARGET_DASHBOARD_OF_BARE, TARGET_DASHBOARD_PACED_OF_BARE
} = require('./targets')
const { ROOT, runApp, withStandIn, runBareUndici, median, inTurn } = require('./harness')
const { withScraper, withOpenPage, oneASecond, perUnitRatio, pairedMedian, loadOf } = require('./watching')

/** SELECT 1 through the tool and through a bare undici loop, alternately, each on a fresh stand-in. */
async function measureQueryPath () {
  const tool = []
  const again = []
  const bare = []
  const metered = []
  const amplified = []
  const paged = []
  const pagedFast = []
  const select1 = [
    '--queries_config',
    path.join(ROOT, 'queries', 'select1.yml'),
    '--max_queries',
    String(QUERY_PATH_QUERIES)
  ]
  const queries = (extra = [], env = {}) => (port) => runApp('appClusterAnalytical.js',
    ['--processes', '1', '--concurrent_requests', '20', '--seed', '1', '--monitor_interval', '0', ...select1, ...extra],
    port, null, env)
  for (let i = 0; i < RUNS; i++) {
    bare.push(await withStandIn((port) => runBareUndici(port)))
    await inTurn(i, [
      async () => {
        const result = await withStandIn(queries())
        tool.push({ queries_per_sec: result.queries_per_sec, cpu_us_per_query: result.client.cpu_us_per_query,
          ...loadOf(result, result.queries_ok) })
      },
      async () => {
        const result = await withStandIn(queries())
        again.push(result.client.cpu_us_per_query)
      },
      async () => {
        const { result } = await withStandIn((port) => withScraper((extra) => queries(extra)(port)))
        metered.push(result.client.cpu_us_per_query)
      },
      async () => {
        const { result, scrapesPerSec } = await withStandIn((port) => withScraper((extra) => queries(extra)(port),
          { everyMs: AMPLIFIED_SCRAPE_EVERY_MS }))
        amplified.push({ ...loadOf(result, result.queries_ok), scrapesPerSec })
      },
      async () => {
        const { result } = await withStandIn((port) => withOpenPage((extra) => queries(extra)(port)))
        paged.push(result.client.cpu_us_per_query)
      },
      async () => {
        const { result, ticksPerSec } = await withStandIn((port) => withOpenPage((extra, env) =>
          queries(extra, env)(port), { tickMs: AMPLIFIED_TICK_MS }))
        pagedFast.push({ ...loadOf(result, result.queries_ok), ticksPerSec })
      }
    ])
  }
  const m = {
    tool_queries_per_sec: median(tool.map((r) => r.queries_per_sec)),
    bare_queries_per_sec: median(bare.map((r) => r.queries_per_sec)),
    tool_cpu_us_per_query: median(tool.map((r) => r.cpu_us_per_query)),
    bare_cpu_us_per_query: median(bare.map((r) => r.cpu_us_per_query))
  }
  m.share_of_bare = Math.round((m.tool_queries_per_sec / m.bare_queries_per_sec) * 1000) / 1000
  m.cpu_of_bare = Math.round((m.tool_cpu_us_per_query / m.bare_cpu_us_per_query) * 100) / 100
  m.with_metrics_cpu_us_per_query = median(metered)
  m.metrics_direct_cost = Math.round((m.with_metrics_cpu_us_per_query / m.tool_cpu_us_per_query) * 100) / 100
  m.amplified_scrapes_per_sec = Math.round(median(amplified.map((r) => r.scrapesPerSec)))
  m.metrics_cost = pairedMedian(tool, amplified, (t, a) => oneASecond(t, a, a.scrapesPerSec))
  m.amplified_scrapes_cost = pairedMedian(tool, amplified, perUnitRatio)
  m.with_ui_cpu_us_per_query = median(paged)
  m.ui_direct_cost = Math.round((m.with_ui_cpu_us_per_query / m.tool_cpu_us_per_query) * 100) / 100
  m.amplified_ticks_per_sec = Math.round(median(pagedFast.map((r) => r.ticksPerSec)))
  m.ui_cost = pairedMedian(tool, pagedFast, (t, p) => oneASecond(t, p, p.ticksPerSec))
  m.amplified_ticks_cost = pairedMedian(tool, pagedFast, perUnitRatio)
  // The same unwatched run again (A/A): how far two medians of the same thing fall apart on this machine.
  m.again_cpu_us_per_query = median(again)
  m.same_again = Math.round((m.again_cpu_us_per_query / m.tool_cpu_us_per_query) * 100) / 100
  m.met = m.share_of_bare >= TARGET_SHARE_OF_BARE && m.cpu_of_bare <= TARGET_CPU_OF_BARE &&
    m.metrics_cost <= TARGET_METRICS_COST && m.ui_cost <= TARGET_UI_COST
  return m
}

/**
 * The dashboard mix through the tool and the same answers through the bare loop, in turns, each on a fresh stand-in
 * that answers its SELECTs with 100 rows: at full speed, and paced at DASHBOARD_RATE a second.
 */
async function measureDashboard () {
  const mix = ['--queries_config', path.join(ROOT, 'queries', 'cpu-dashboard.yml'), '--data_end',
    '2026-01-01T00:00:00Z', '--processes', '1', '--concurrent_requests', '20', '--seed', '1', '--monitor_interval', '0']
  const statement = 'SELECT hostname, ts, usage_user FROM doc.cpu ORDER BY ts DESC LIMIT 100'
  const paced = DASHBOARD_RATE * DASHBOARD_PACED_SECONDS
  const figures = { tool: [], bare: [], tool_paced: [], bare_paced: [] }
  const options = { selectRows: DASHBOARD_ANSWER_ROWS }
  const tool = (extra) => (port) => runApp('appClusterAnalytical.js', [...mix, ...extra], port)
  for (let i = 0; i < RUNS; i++) {
    await inTurn(i, [
      async () => figures.tool.push((await withStandIn(tool(['--max_queries', String(DASHBOARD_QUERIES)]), options))
        .client.cpu_us_per_query),
      async () => figures.bare.push((await withStandIn((port) => runBareUndici(port,
        { queries: DASHBOARD_QUERIES, statement }), options)).cpu_us_per_query),
      async () => figures.tool_paced.push((await withStandIn(tool(['--rate', String(DASHBOARD_RATE), '--max_queries',
        String(paced)]), options)).client.cpu_us_per_query),
      async () => figures.bare_paced.push((await withStandIn((port) => runBareUndici(port,
        { queries: paced, statement, rate: DASHBOARD_RATE }), options)).cpu_us_per_query)
    ])
  }
  const m = Object.fromEntries(Object.entries(figures).map(([k, v]) => [`${k}_cpu_us_per_query`, median(v)]))
  m.of_bare = Math.round((m.tool_cpu_us_per_query / m.bare_cpu_us_per_query) * 100) / 100
  m.paced_of_bare = Math.round((m.tool_paced_cpu_us_per_query / m.bare_paced_cpu_us_per_query) * 100) / 100
  m.met = m.of_bare <= TARGET_DASHBOARD_OF_BARE && m.paced_of_bare <= TARGET_DASHBOARD_PACED_OF_BARE
  return m
}

module.exports = { measureQueryPath, measureDashboard }
