'use strict'

// The whole process tree (every process's user + sys, start-up included) per row, against the bare ingest loop and,
// with NIB_DIR, nodeIngestBench; and what watching it costs.

const fs = require('node:fs')
const path = require('node:path')
const {
  RUNS, TREE_ROWS, TREE_BATCH, IN_FLIGHT, AMPLIFIED_SCRAPE_EVERY_MS, AMPLIFIED_TICK_MS, TARGET_TREE_OF_BARE,
  TARGET_STARTUP_OF_BARE, TARGET_TREE_OF_NIB, TARGET_METRICS_COST, TARGET_UI_COST
} = require('./targets')
const { ROOT, OWN_TABLE, withStandIn, median, inTurn, treeCpu, q, ratio } = require('./harness')
const { withScraper, withOpenPage, oneASecond, perUnitRatio, pairedMedian, loadOf } = require('./watching')

const TREE_SCENARIOS = [
  { setting: '1 process x 1,000,000 rows, batch 10000', processes: 1, target: true, watch: true },
  // Watched too, and judged on that alone: a master that merges two workers' reports serves the scrapes and the page.
  { setting: '2 processes x 500,000 rows, batch 10000', processes: 2, target: false, watch: true }
]

/** The tool's tree for TREE_ROWS rows: CPU per row, and its start-up and end as the tool reports them. */
async function toolTree (processes, port, extraArgs = [], extraEnv = {}) {
  const args = ['--processes', processes, '--max_rows', TREE_ROWS / processes, '--batch_size', TREE_BATCH,
    '--concurrent_requests', IN_FLIGHT, '--monitor_interval', '0', '--json', ...OWN_TABLE, ...extraArgs]
  const tool = `${q(process.execPath)} ${q(path.join(ROOT, 'appClusterIngest.js'))} ${args.join(' ')}`
  const { seconds, stdout } = await treeCpu(tool, { CRATE_HOST: '127.0.0.1', CRATE_PORT: String(port),
    CRATE_BENCH_METRICS_LINGER_MS: '0', ...extraEnv })
  const result = JSON.parse(stdout)
  if (result.rows_ok !== TREE_ROWS) throw new Error(`the tool stored ${result.rows_ok} of ${TREE_ROWS} rows`)
  const startup = result.client.startup_cpu_seconds
  const end = seconds - startup - result.client.cpu_seconds
  return { seconds, startup, end, loadUsPerRow: result.client.cpu_us_per_row, ...loadOf(result, result.rows_ok) }
}


/** The bare ingest loop over the same rows, batch and in-flight count: its whole process. */
async function bareTree (port) {
  const bare = `${q(process.execPath)} ${q(path.join(__dirname, 'bare-ingest.js'))}`
  const { seconds, stdout } = await treeCpu(`${bare} ${port} ${TREE_ROWS} ${TREE_BATCH} ${IN_FLIGHT}`)
  const counts = JSON.parse(stdout)
  if (counts.rows_ok !== TREE_ROWS) throw new Error(`the bare loop stored ${counts.rows_ok} of ${TREE_ROWS} rows`)
  return { seconds, build: counts.build_cpu_s, send: counts.send_cpu_s }
}

/**
 * nodeIngestBench (NIB_DIR: a checkout with its dependencies) over the same rows against the same stand-in: its
 * ingest entry (appClusterIngest.js, or appCluster.js in older checkouts) with the same batch size, in-flight count
 * and processes; its --max_rows counts per process.
 */
async function nibTree (port, processes) {
  const dir = process.env.NIB_DIR
  const entry = fs.existsSync(path.join(dir, 'appClusterIngest.js')) ? 'appClusterIngest.js' : 'appCluster.js'
  const args = ['--batch_size', TREE_BATCH, '--max_rows', TREE_ROWS / processes, '--processes', processes,
    '--concurrent_requests', IN_FLIGHT]
  const env = { CRATE_HOST: '127.0.0.1', CRATE_PORT: String(port), CRATE_SSL: 'false' }
  const { seconds } = await treeCpu(`cd ${q(dir)} && ${q(process.execPath)} ${entry} ${args.join(' ')}`, env)
  return { seconds }
}

const usPerRow = (seconds) => Math.round(((seconds * 1e6) / TREE_ROWS) * 1000) / 1000

/** The tool's tree beside the bare ingest loop (and nodeIngestBench), alternately, each on a fresh stand-in. */
async function measureTree (scenario) {
  const tool = []
  const again = []
  const bare = []
  const nib = []
  const metered = []
  const amplified = []
  const paged = []
  const pagedFast = []
  for (let i = 0; i < RUNS; i++) {
    bare.push(await withStandIn((port) => bareTree(port)))
    await inTurn(i, [
      async () => tool.push(await withStandIn((port) => toolTree(scenario.processes, port))),
      ...(scenario.watch ? [
        async () => again.push(await withStandIn((port) => toolTree(scenario.processes, port))),
        async () => metered.push((await withStandIn((port) => withScraper((extra) => toolTree(scenario.processes, port,
          extra)))).result),
        async () => {
          const { result, scrapesPerSec } = await withStandIn((port) => withScraper((extra) =>
            toolTree(scenario.processes, port, extra), { everyMs: AMPLIFIED_SCRAPE_EVERY_MS }))
          amplified.push({ ...result, scrapesPerSec })
        },
        async () => paged.push((await withStandIn((port) => withOpenPage((extra) => toolTree(scenario.processes, port,
          extra)))).result),
        async () => {
          const { result, ticksPerSec } = await withStandIn((port) => withOpenPage((extra, env) =>
            toolTree(scenario.processes, port, extra, env), { tickMs: AMPLIFIED_TICK_MS }))
          pagedFast.push({ ...result, ticksPerSec })
        }
      ] : [])
    ])
    if (process.env.NIB_DIR) nib.push(await withStandIn((port) => nibTree(port, scenario.processes)))
  }
  const toolUs = median(tool.map((r) => usPerRow(r.seconds)))
  const bareUs = median(bare.map((r) => usPerRow(r.seconds)))
  const bareSeconds = median(bare.map((r) => r.seconds))
  const entry = {
    setting: scenario.setting,
    us_per_row: toolUs,
    range: [Math.min(...tool.map((r) => usPerRow(r.seconds))), Math.max(...tool.map((r) => usPerRow(r.seconds)))],
    bare_us_per_row: bareUs,
    bare_build_s: median(bare.map((r) => r.build)),
    of_bare: ratio(toolUs, bareUs),
    startup_cpu_s: median(tool.map((r) => r.startup)),
    end_cpu_s: Math.round(median(tool.map((r) => r.end)) * 1000) / 1000,
    nib_us_per_row: nib.length ? median(nib.map((r) => usPerRow(r.seconds))) : null
  }
  entry.startup_of_bare = ratio(entry.startup_cpu_s, bareSeconds)
  // --metrics_port scraped every second, against the same tool without it: CPU per row over the load (master and
  // workers, the scrapes served included), as the tool reports it; loading prom-client is start-up, shown apart.
  entry.load_us_per_row = median(tool.map((r) => r.loadUsPerRow))
  entry.with_metrics_us_per_row = metered.length ? median(metered.map((r) => r.loadUsPerRow)) : null
  entry.metrics_direct_cost = metered.length ? ratio(entry.with_metrics_us_per_row, entry.load_us_per_row) : null
  entry.amplified_scrapes_per_sec = amplified.length ? Math.round(median(amplified.map((r) => r.scrapesPerSec))) : null
  entry.metrics_cost = amplified.length
    ? pairedMedian(tool, amplified, (t, a) => oneASecond(t, a, a.scrapesPerSec))
    : null
  entry.amplified_scrapes_cost = amplified.length ? pairedMedian(tool, amplified, perUnitRatio) : null
  entry.with_metrics_startup_cpu_s = metered.length ? median(metered.map((r) => r.startup)) : null
  entry.with_ui_us_per_row = paged.length ? median(paged.map((r) => r.loadUsPerRow)) : null
  entry.ui_direct_cost = paged.length ? ratio(entry.with_ui_us_per_row, entry.load_us_per_row) : null
  entry.amplified_ticks_per_sec = pagedFast.length ? Math.round(median(pagedFast.map((r) => r.ticksPerSec))) : null
  entry.ui_cost = pagedFast.length ? pairedMedian(tool, pagedFast, (t, p) => oneASecond(t, p, p.ticksPerSec)) : null
  entry.amplified_ticks_cost = pagedFast.length ? pairedMedian(tool, pagedFast, perUnitRatio) : null
  entry.same_again = again.length ? ratio(median(again.map((r) => r.loadUsPerRow)), entry.load_us_per_row) : null
  entry.of_nib = entry.nib_us_per_row ? ratio(toolUs, entry.nib_us_per_row) : null
  entry.judged_against_bare = scenario.target
  const watchingMet = !scenario.watch || (entry.metrics_cost <= TARGET_METRICS_COST && entry.ui_cost <= TARGET_UI_COST)
  // Several processes: only what watching costs is judged (the master merges the workers' reports and serves both).
  entry.met = !scenario.target ? (scenario.watch ? watchingMet : null)
    : entry.of_bare <= TARGET_TREE_OF_BARE && entry.startup_of_bare <= TARGET_STARTUP_OF_BARE &&
      (entry.of_nib === null || entry.of_nib <= TARGET_TREE_OF_NIB) && watchingMet
  return entry
}

module.exports = { TREE_SCENARIOS, measureTree }
