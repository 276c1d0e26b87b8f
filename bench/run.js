'use strict'

// npm run bench: the client's CPU cost per row and per query against a stand-in server that answers at once. Every
// target is a ratio to a reference measured in the same run on the same stand-in, never an absolute time or rate
// (that would measure the machine): the query path against a bare undici loop, the whole process tree's CPU per row
// (start-up included) against a bare ingest loop (bench/bare-ingest.js). Start-up is measured on its own. With
// NIB_DIR, nodeIngestBench runs beside the tool. Prints tables and a JSON line; exits non-zero when a target is missed.
// `npm run bench -- watching|pg|dashboard|grid` runs one part; `npm run bench -- real` measures the pg and HTTP paths
// on a real node (CRATE_BENCH_URL, CRATE_BENCH_PG_URL) instead of the stand-in.

const os = require('node:os')
const { RUNS, TARGET_METRICS_COST, TARGET_UI_COST } = require('./targets')
const { SCENARIOS, RATE_SCENARIOS, measure, measureRate } = require('./scenarios')
const { measureQueryPath, measureDashboard } = require('./query-path')
const { TREE_SCENARIOS, measureTree } = require('./process-tree')
const { measurePgPath } = require('./pg-path')
const { measureGridBookkeeping } = require('./grid-bookkeeping')
const { measureRealNode, realNodeTableOf } = require('./real-node')
const {
  scenarioTableOf, queryTableOf, treeTableOf, rateTableOf, dashboardTableOf, pgTableOf, watchingTableOf, gridTableOf
} = require('./tables')

const print = (tables, json) => {
  process.stderr.write(`${tables.map(String).join('\n')}\n`)
  process.stdout.write(`${JSON.stringify({ runs_per_scenario: RUNS, ...json })}\n`)
}

async function measureTrees () {
  const trees = []
  for (const scenario of TREE_SCENARIOS) trees.push(await measureTree(scenario))
  return trees
}

/** One part of the bench alone: its tables, its JSON and whether its targets were met. */
const PARTS = {
  // What --metrics_port and --ui cost.
  async watching () {
    const queryPath = await measureQueryPath()
    const trees = await measureTrees()
    print([watchingTableOf(queryPath, trees)], { query_path: queryPath, trees })
    const watched = [queryPath, ...trees.filter((t) => t.metrics_cost !== null)]
    return !watched.some((w) => w.metrics_cost > TARGET_METRICS_COST || w.ui_cost > TARGET_UI_COST)
  },
  // The PostgreSQL path against the stand-in.
  async pg () {
    const pgPath = await measurePgPath()
    print([pgTableOf(pgPath)], { pg_path: pgPath })
    return pgPath.met
  },
  // The dashboard mix (a few minutes less than the whole bench).
  async dashboard () {
    const dashboard = await measureDashboard()
    print([dashboardTableOf(dashboard)], { dashboard })
    return dashboard.met
  },
  // A grid's bookkeeping between runs, 1,024 cells against 10,000.
  async grid () {
    const grid = measureGridBookkeeping()
    print([gridTableOf(grid)], { grid_bookkeeping: grid })
    return grid.met
  },
  // The pg and HTTP paths on a real node: figures, no target (a real node's pace is not the client's).
  async real () {
    const realNode = await measureRealNode()
    print([realNodeTableOf(realNode)], { machine: machineOf(), real_node: realNode })
    return true
  }
}

function machineOf () {
  return {
    cpu: os.cpus()[0].model,
    cpus: os.availableParallelism(),
    node: process.version,
    date: new Date().toISOString().slice(0, 10)
  }
}

async function whole () {
  const rows = []
  for (const scenario of SCENARIOS) rows.push(await measure(scenario))
  const queryPath = await measureQueryPath()
  const dashboard = await measureDashboard()
  const trees = await measureTrees()
  const rates = []
  for (const scenario of RATE_SCENARIOS) rates.push(await measureRate(scenario))
  const pgPath = await measurePgPath()
  const grid = measureGridBookkeeping()
  const machine = machineOf()
  process.stderr.write(`machine: ${machine.cpu}, ${machine.cpus} CPUs, node ${machine.node}, ${machine.date}; ` +
    `${RUNS} runs per scenario, median shown\n`)
  if (!process.env.NIB_DIR) {
    process.stderr.write('# nodeIngestBench skipped: set NIB_DIR to a checkout with its dependencies\n')
  }
  print([scenarioTableOf(rows), queryTableOf(queryPath), dashboardTableOf(dashboard), treeTableOf(trees),
    rateTableOf(rates), pgTableOf(pgPath), gridTableOf(grid)],
  { machine, results: rows, query_path: queryPath, dashboard, process_tree: trees, rates, pg_path: pgPath,
    grid_bookkeeping: grid })
  return queryPath.met && dashboard.met && !trees.some((t) => t.met === false) && pgPath.met && grid.met
}

async function main () {
  const part = process.argv[2]
  if (part !== undefined && !(part in PARTS)) {
    throw new Error(`unknown part "${part}": one of ${Object.keys(PARTS).join(', ')}, or none for the whole bench`)
  }
  const met = part ? await PARTS[part]() : await whole()
  if (!met) process.exitCode = 1
}

main().catch((error) => {
  process.stderr.write(`bench: error: ${error.message}\n`)
  process.exitCode = 1
})
