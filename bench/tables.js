'use strict'

// The bench's tables, in the report's plain style: no colour codes in a file the README quotes.

const { table } = require('../lib/reports/table')
const {
  TARGET_SHARE_OF_BARE, TARGET_CPU_OF_BARE, TARGET_TREE_OF_BARE, TARGET_STARTUP_OF_BARE, TARGET_TREE_OF_NIB,
  TARGET_METRICS_COST, TARGET_UI_COST, TARGET_PG_OF_HTTP, TARGET_PG_ROWS_FLUSHED_OF_HTTP, TARGET_DASHBOARD_OF_BARE,
  TARGET_DASHBOARD_PACED_OF_BARE, DASHBOARD_RATE, DASHBOARD_ANSWER_ROWS
} = require('./targets')

const n = (x) => x.toLocaleString('en-US')
const metOf = (met) => met === null ? '-' : met ? 'yes' : 'NO'

/** The throughput scenarios: the median run of each and the range over its runs. */
function scenarioTableOf (rows) {
  const scenarioTable = table(['workload', 'setting', 'units ok', 'units/s per process (median)', 'range over runs',
    'client CPU µs/unit', 'peak RSS MB', 'target', 'met'])
  for (const r of rows) {
    scenarioTable.push([r.workload, r.setting, n(r.units), n(r.per_sec),
      `${n(r.per_sec_range[0])} – ${n(r.per_sec_range[1])}`,
      `${r.cpu_us} (${r.cpu_us_range[0]} – ${r.cpu_us_range[1]})`,
      r.rss_mb, r.target, metOf(r.met)])
  }
  return scenarioTable
}

/** SELECT 1 through the tool, watched and not, against the bare undici loop. */
function queryTableOf (queryPath) {
  const queryTable = table(['SELECT 1, 20 in flight, 1 process', 'queries/s (median)', 'client CPU µs/query',
    'target', 'met'])
  queryTable.push(
    ['bare undici loop (bench/bare-undici.js)', n(queryPath.bare_queries_per_sec), queryPath.bare_cpu_us_per_query,
      '', ''],
    ['this tool', n(queryPath.tool_queries_per_sec), queryPath.tool_cpu_us_per_query, '', ''],
    ['this tool, --metrics_port scraped every second (judged scraped ' +
      `~${queryPath.amplified_scrapes_per_sec} a second, a scrape's cost brought back to 1/s)`, '',
    queryPath.with_metrics_cpu_us_per_query,
    `<= ${TARGET_METRICS_COST}x without: ${queryPath.metrics_cost}x (scraped once a second: ` +
      `${queryPath.metrics_direct_cost}x)`, metOf(queryPath.metrics_cost <= TARGET_METRICS_COST)],
    [`this tool, --ui with one page open (judged ticking ~${queryPath.amplified_ticks_per_sec} a second, a tick's ` +
      'cost brought back to 1/s)', '', queryPath.with_ui_cpu_us_per_query,
    `<= ${TARGET_UI_COST}x without: ${queryPath.ui_cost}x (ticking once a second: ${queryPath.ui_direct_cost}x)`,
    metOf(queryPath.ui_cost <= TARGET_UI_COST)],
    ['this tool again, unwatched (A/A: the noise of the two ratios above)', '', queryPath.again_cpu_us_per_query,
      `${queryPath.same_again}x the first`, '-'],
    ['tool / bare', `${Math.round(queryPath.share_of_bare * 1000) / 10}%`, `${queryPath.cpu_of_bare}x`,
      `>= ${TARGET_SHARE_OF_BARE * 100}%, <= ${TARGET_CPU_OF_BARE}x`,
      metOf(queryPath.share_of_bare >= TARGET_SHARE_OF_BARE && queryPath.cpu_of_bare <= TARGET_CPU_OF_BARE)]
  )
  return queryTable
}

/** The whole process tree against the bare ingest loop (and nodeIngestBench), and what watching it costs. */
function treeTableOf (trees) {
  const treeTable = table(['whole process tree (user + sys, start-up included)', 'tool µs/row (median, range)',
    'bare ingest loop µs/row', 'tool / bare', 'start-up CPU s (launch to load)', 'start-up / bare loop',
    'end CPU s (last answer to exit)', 'nodeIngestBench µs/row', 'tool / nodeIngestBench',
    'load µs/row without / with --metrics_port scraped every second, cost; start-up with; the cost judged',
    'load µs/row with --ui and a page open, cost; the cost judged; the noise (A/A)', 'target', 'met'])
  for (const t of trees) {
    treeTable.push([
      t.setting,
      `${t.us_per_row} (${t.range[0]} – ${t.range[1]})`,
      t.bare_us_per_row,
      `${t.of_bare}x`,
      t.startup_cpu_s,
      `${t.startup_of_bare}x`,
      t.end_cpu_s,
      t.nib_us_per_row ?? 'NIB_DIR not set',
      t.of_nib === null ? '-' : `${t.of_nib}x`,
      t.metrics_cost === null ? '-' : `${t.load_us_per_row} / ${t.with_metrics_us_per_row}, ` +
        `${t.metrics_direct_cost}x; ${t.with_metrics_startup_cpu_s} s; at ~${t.amplified_scrapes_per_sec}/s back ` +
        `to 1/s: ${t.metrics_cost}x`,
      t.ui_cost === null ? '-' : `${t.with_ui_us_per_row}, ${t.ui_direct_cost}x; ticking ~` +
        `${t.amplified_ticks_per_sec}/s back to 1/s: ${t.ui_cost}x; unwatched again (A/A) ${t.same_again}x`,
      t.met === null ? '-' : (t.judged_against_bare ? `tool <= ${TARGET_TREE_OF_BARE}x bare, start-up <= ` +
        `${TARGET_STARTUP_OF_BARE}x bare, ` : '') + `metrics and ui <= ${TARGET_METRICS_COST}x` +
        (t.of_nib === null || !t.judged_against_bare ? '' : `, <= ${Math.round(TARGET_TREE_OF_NIB * 100) / 100}x NIB`),
      metOf(t.met)
    ])
  }
  return treeTable
}

/** How closely the open model kept its target. */
function rateTableOf (rates) {
  const rateTable = table(['open model', 'setting', 'target/s', 'achieved/s', 'achieved %', 'late requests',
    'p99 ms from scheduled start'])
  for (const r of rates) {
    rateTable.push([r.workload, r.setting, n(r.target_per_sec), n(r.achieved_per_sec), r.achieved_pct,
      n(r.late_requests), r.p99_ms])
  }
  return rateTable
}

/** The dashboard's table: the tool against the bare loop, at full speed and paced. */
function dashboardTableOf (dashboard) {
  const dashboardTable = table([`the dashboard mix (cpu-dashboard.yml, ${DASHBOARD_ANSWER_ROWS}-row answers), ` +
    '20 in flight: client CPU µs/query', 'bare loop, the same answers', 'this tool', 'tool / bare', 'target', 'met'])
  dashboardTable.push(
    ['as fast as answers come', dashboard.bare_cpu_us_per_query, dashboard.tool_cpu_us_per_query,
      `${dashboard.of_bare}x`, `<= ${TARGET_DASHBOARD_OF_BARE}x`, dashboard.of_bare <= TARGET_DASHBOARD_OF_BARE
        ? 'yes' : 'NO'],
    [`paced at ${DASHBOARD_RATE} queries/s (--rate)`, dashboard.bare_paced_cpu_us_per_query,
      dashboard.tool_paced_cpu_us_per_query, `${dashboard.paced_of_bare}x`, `<= ${TARGET_DASHBOARD_PACED_OF_BARE}x`,
      dashboard.paced_of_bare <= TARGET_DASHBOARD_PACED_OF_BARE ? 'yes' : 'NO']
  )
  return dashboardTable
}

/** The pg path's table: the same loads over HTTP and over pg, answered at once or at the capture's pace. */
function pgTableOf (pgPath) {
  const pgTable = table(['the same load over HTTP and over the PostgreSQL protocol (--protocol pg)', 'HTTP', 'pg',
    'pg / HTTP', 'target', 'met'])
  pgTable.push(
    ['ingest, batch 10000, 20 in flight, 1M rows: client CPU µs/row', pgPath.http_cpu_us_per_row,
      pgPath.pg_cpu_us_per_row, `${pgPath.pg_of_http_per_row}x`, `<= ${TARGET_PG_OF_HTTP}x`,
      pgPath.pg_of_http_per_row <= TARGET_PG_OF_HTTP ? 'yes' : 'NO'],
    ['SELECT 1, 20 in flight: client CPU µs/query', pgPath.http_cpu_us_per_query, pgPath.pg_cpu_us_per_query,
      `${pgPath.pg_of_http_per_query}x`, '-', '-'],
    ['ingest, batch 5000, 8 in flight, 400k rows, answered at once in one write: µs/row',
      pgPath.one_write_http_cpu_us_per_row, pgPath.one_write_pg_cpu_us_per_row, `${pgPath.one_write_pg_of_http}x`,
      '-', '-'],
    ['the same at the capture\'s pace (pgwire/15): pg row by row, HTTP whole when done: µs/row',
      pgPath.rows_flushed_http_cpu_us_per_row, pgPath.rows_flushed_pg_cpu_us_per_row,
      `${pgPath.rows_flushed_pg_of_http}x`, `<= ${TARGET_PG_ROWS_FLUSHED_OF_HTTP}x`,
      pgPath.rows_flushed_pg_of_http <= TARGET_PG_ROWS_FLUSHED_OF_HTTP ? 'yes' : 'NO'],
    ['the same, pg whole when done too (what reading row by row adds): µs/row',
      pgPath.whole_when_done_http_cpu_us_per_row, pgPath.whole_when_done_pg_cpu_us_per_row,
      `${pgPath.whole_when_done_pg_of_http}x`, '-', '-']
  )
  const rowByRow = table(['what receiving a batch\'s answer a row at a time adds (pg, the shape above): µs/row',
    'row by row', 'whole when done', 'added'])
  rowByRow.push(
    ['this tool', pgPath.rows_flushed_pg_cpu_us_per_row, pgPath.whole_when_done_pg_cpu_us_per_row,
      pgPath.tool_pg_row_by_row_us_per_row],
    ['a bare reader that reads each answer once, when due (bench/bare-pg.js)', pgPath.bare_pg_rows_flushed_us_per_row,
      pgPath.bare_pg_whole_when_done_us_per_row, pgPath.bare_pg_row_by_row_us_per_row]
  )
  return `${pgTable.toString()}\n${rowByRow.toString()}`
}

/** What watching a run costs, every kind of run side by side: the direct ratios, the judged ones and the noise. */
function watchingTableOf (queryPath, trees) {
  const watching = table(['what watching costs: CPU per unit against the same run unwatched',
    '--metrics_port scraped 1/s', `judged: scraped ~50/s, brought back to 1/s (<= ${TARGET_METRICS_COST}x)`,
    '--ui, a page open, ticking 1/s', `judged: ticking ~50/s, brought back to 1/s (<= ${TARGET_UI_COST}x)`,
    'the unwatched run again (A/A)'])
  const judged = (cost, perSec, together) => `${cost}x (${perSec}/s: ${together}x together)`
  watching.push(
    ['SELECT 1, 20 in flight, 1 process', `${queryPath.metrics_direct_cost}x`,
      judged(queryPath.metrics_cost, queryPath.amplified_scrapes_per_sec, queryPath.amplified_scrapes_cost),
      `${queryPath.ui_direct_cost}x`,
      judged(queryPath.ui_cost, queryPath.amplified_ticks_per_sec, queryPath.amplified_ticks_cost),
      `${queryPath.same_again}x`],
    ...trees.filter((t) => t.metrics_cost !== null).map((t) => [t.setting, `${t.metrics_direct_cost}x`,
      judged(t.metrics_cost, t.amplified_scrapes_per_sec, t.amplified_scrapes_cost), `${t.ui_direct_cost}x`,
      judged(t.ui_cost, t.amplified_ticks_per_sec, t.amplified_ticks_cost), `${t.same_again}x`])
  )
  return watching
}

/** A grid's bookkeeping between runs: the large grid's time against the small one's. */
function gridTableOf (grid) {
  const t = table(['a grid\'s bookkeeping after each run (figures, verdicts, grid.json)',
    `${n(grid.cells_small)} cells`, `${n(grid.cells_large)} cells`, 'growth', 'target', 'met'])
  t.push([`ms a run (cells ×${Math.round(grid.cells_large / grid.cells_small * 10) / 10})`, grid.small_ms,
    grid.large_ms, `${grid.growth}x`, `<= ${grid.target}x`, grid.met ? 'yes' : 'NO'])
  return t
}

module.exports = {
  scenarioTableOf, queryTableOf, treeTableOf, rateTableOf, dashboardTableOf, pgTableOf, watchingTableOf, gridTableOf,
  n
}
