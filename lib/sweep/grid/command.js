'use strict'

// crate-bench sweep grid (scripts/find-grid.sh): every cell of two or more varied settings, each a run of the benchmark
// as a child process with --json (as the sweeps take a step), repeats in rounds over the whole grid; grid.json written
// after every run, so that the same command resumes where a stopped one left.

const { UsageError } = require('../../base/errors')
const { commandParser } = require('../../cli/command-args')
const { runBenchmark } = require('../benchmark-run')
const { runsCommand } = require('../runs-command')
const { DEFAULT_BUDGET } = require('../budget')
const { DIMENSIONS } = require('./plan')
const { DEFAULT_PLATEAU_PCT } = require('./analysis')
const { gridConfig, RACE_MIN_ROUNDS } = require('./config')
const { runGrid, NAME } = require('./grid-run')

const USAGE = `Usage: crate-bench sweep grid --vary NAME=V1,V2,… --vary NAME=V1,V2,… [options] [-- benchmark options]
   (or: scripts/find-grid.sh …)

Every cell of a grid of settings (Lindorm's batch size × workers table): one run of the benchmark per cell and
repeat, with its own warm-up, the benchmark options after '--' passed to every run. Repeats go in rounds over the
whole grid, so that a cluster that drifts spreads its drift over every cell. An ingest run re-creates its table (the
benchmark's default): every cell starts from the same state; grid.json keeps the table's size and segments at each
cell's start.

Options:
  --vary NAME=V1,V2,…    a dimension, given two or more times; NAME is one of
                         ${Object.keys(DIMENSIONS).join(', ')}
  --workload W           ingest (default) or query (appClusterAnalytical.js: pass --queries_config after '--')
  --repeat N             runs per cell, in rounds (default: 1, an exploration: its recommendation is UNTESTED
                         and sizes nothing; 3 gives each cell a 95% confidence interval: use it to size); in a
                         race, the rounds before a cell may be dropped (default: ${RACE_MIN_ROUNDS})
  --precision P%         race: rounds until the leading cell's 95% interval is within ±P% of its mean; after each
                         round from --repeat on, a cell shown worse than the leader (its runs against the leader's
                         of the same rounds) is dropped and the time goes to the others (budget: ${DEFAULT_BUDGET})
  --budget T             race: the time its runs may take (30m, 2h); with --precision or alone (then: until one
                         cell is left or T is spent)
  --no-warmup_run        no warm-up run: by default a grid of repeated runs (or a race) starts with a run of its
                         own, not measured, so that a cold cluster's first minutes fall on no cell
  --slo p99=DURATION     the latency target the recommended cell must meet (as find-capacity takes it)
  --plateau_pct PCT      the plateau is the cells within PCT percent of the best (default: ${DEFAULT_PLATEAU_PCT}); with
                         --repeat 3 or more, the cells whose 95% interval overlaps the best's
  --out DIR              where the grid goes (default: sweep-results/grid-<time>); the same command with the same
                         DIR resumes: only the runs left are run; one grid at a time a folder (a lock)
  --prefill ROWS         fill the table to ROWS rows once, before the first cell, and run every cell on it (cells
                         append; none drops it): figures on a table of realistic size, not an empty one
  -h, --help             this text

Writes DIR/grid.json after every run (the settings, every cell with its runs, median, spread, 95% interval, field
values/s, p50/p99, failed and in doubt, the busiest node's CPU and write queue, rejections; best, plateau,
recommended with the first neighbour that breaks; sentences), and at the end DIR/grid.svg (a heatmap) and
DIR/grid.html (heatmap, ridge, a chart per dimension); DIR/runs/ keeps each run's result and report. The best cell
is the fastest without failures, in-doubt rows or a saturated load generator; the recommended cell is the cheapest
of the plateau (fewest requests in flight, then smallest batch) within --slo: what to run in production. When the
runs cannot tell the cells apart there is none, and the grid says why (docs/sizing.md, "How much to trust a grid").
Each run of a --duration warms up first (a tenth of it, at least 5 s; --warmup after '--' wins, 0 turns it off).

Examples:
  crate-bench sweep grid --vary batch_size=100,500,2000,5000 --vary concurrent_requests=1,4,16,64 -- --duration 1m
  scripts/find-grid.sh --vary batch_size=1000,5000 --vary concurrent_requests=4,16 --repeat 3 --slo p99=500ms --out g
  crate-bench sweep grid --vary batch_size=1000,5000 --vary concurrent_requests=2,8 --precision 10% --budget 20m \\
    -- --duration 30s
  crate-bench sweep grid --workload query --vary concurrent_requests=1,4,16 --vary processes=1,2 -- \\
    --queries_config queries/cpu-dashboard.yml --duration 30s

Exit codes: 0 the grid finished (cells may have failures: that is data), 2 bad options or a --out holding another
grid, 3 the benchmark could not run, 4 interrupted (grid.json keeps the runs done; run the same command to resume).`

function parseArgs (argv) {
  const dash = argv.indexOf('--')
  const own = dash >= 0 ? argv.slice(0, dash) : argv
  const text = { type: 'string', requiresArg: true }
  const parsed = commandParser(own, { benchmarkAfterDash: true })
    .options({ vary: text, workload: text, repeat: text, slo: text, plateau_pct: text, out: text, prefill: text,
      precision: text, budget: text, warmup_run: { type: 'boolean' } })
    .parseSync()
  if (parsed.help) return { help: true }
  if (parsed._.length > 0) {
    throw new UsageError(`unexpected argument '${parsed._[0]}' (benchmark options go after '--'; see --help)`)
  }
  // Given once or more: yargs gathers a repeated flag into a list (never greedy, as an array option would be).
  return gridConfig({ vary: [parsed.vary ?? []].flat().map(String), workload: parsed.workload, repeat: parsed.repeat,
    slo: parsed.slo, plateauPct: parsed.plateau_pct, out: parsed.out, prefill: parsed.prefill,
    precision: parsed.precision, budget: parsed.budget, warmupRun: parsed.warmup_run,
    benchmark: dash >= 0 ? argv.slice(dash + 1) : [] })
}

/** Returns the exit code. `signals` emits 'interrupt' on Ctrl-C or SIGTERM (lib/cli/interrupts.js). */
async function main (argv, options = {}) {
  const { stdout = process.stdout, stderr = process.stderr, signals, run = runBenchmark, now = Date.now,
    processAlive } = options
  return runsCommand({ name: NAME, parse: () => parseArgs(argv), usage: () => `${USAGE}\n`, stdout, stderr,
    body: async (config) => (await runGrid(config, { stderr, signals, run, now, processAlive })).code })
}

module.exports = { main, parseArgs, USAGE }
