'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { relativePaths } = require('../html/relative-paths')
const { EXIT, UsageError, errorText } = require('../../base/errors')
const { commandParser, CONNECTION_FLAGS, connectionFlagsOf } = require('../../cli/command-args')
const { commandMain } = require('../../cli/command-main')
const { writableFile } = require('../../base/files')
const { pointsOfFiles } = require('./inputs')
const { sizingText } = require('./rows')
const { pointOf, sizingOf, DEFAULT_HEADROOM_PCT } = require('./index')

const USAGE = `Usage: crate-bench sizing RESULT.json|GRID_DIR... [--headroom PCT] [--report FILE.html] [--json]
       crate-bench sizing --results_table TABLE --run_id ID... [the same options, connection flags]

A sizing reference from runs measured on clusters of different shapes (each result's environment.cluster, read
from sys.nodes when it ran): per shape every result it stands on (how many, each one's figure, their spread, and a
warning when they disagree), the best measured (the highest rows/s or queries/s without failures, partial runs, a
saturated load generator or a --rate target), the figure at the settings a grid recommended, per node and per core,
the scaling efficiency of every larger shape against the smallest (best measured per node: 100% is linear), and ONE
figure to plan with per shape: the lowest of what its inputs carry (write-only: --headroom below the lower end of the
recommended cell's 95% interval, default ${DEFAULT_HEADROOM_PCT}%; the mixed capacity; a sustained run's end rate less
the headroom), the rule that set it beside it. None, with why and what to run next, where the evidence cannot carry
one: a grid undecided or of one run a cell, an interval that reaches 0, single runs, results that disagree, busy
runs. Under the table, every verdict of the inputs per shape: busy runs, incomplete and undecided grids, a long run
that did not hold, what the shape lacks.

Compare each size at its own best: a grid folder (crate-bench sweep grid --out) gives the cell its figure stands on
(its recommended cell; else, when the runs could not tell its cells apart, the best-bounded of the cells equivalent
within noise; else its fastest cell within its --slo: never a cell over it where one meets it), the cell a study runs
its mixed capacity and sustained run at; never a load raised with the nodes. Results of different
workloads, data models, protocols or row shapes are never mixed in one table; the same file given twice counts
once; a shape with one result is a point; a result whose cluster is no cluster (nodes not a whole number its node
list agrees with, cores below 1) is left out, said why; nodes that share a machine are flagged: no scaling figure.
With four sizes or more of the same machines, the Universal Scalability Law is fitted (an estimate: one node's
throughput, contention σ, coherency κ, which term limits, where more nodes stop paying). --report writes an HTML
page: the tables, throughput against cluster size with each figure's interval, the linear line and the fit, and the
p99 at each size. With --results_table, each run id is one run (its load generators merged), read from the cluster
(connection flags or CRATE_* as for the benchmarks).

Examples:
  crate-bench sizing small/*.json medium/*.json large/*.json
  crate-bench sizing grid-3x8 grid-6x8 grid-12x8
  crate-bench sizing runs/*.json --headroom 30 --json > sizing.json
  crate-bench sizing grid-3 grid-6 grid-9 grid-12 --report sizing.html
  crate-bench sizing --results_table doc.crate_bench_results --run_id small-1 --run_id large-1

Exit codes: 0 the reference printed, 2 bad input (a file that is not a result), 3 no result with a cluster shape.`

function parseArgs (argv) {
  const text = { type: 'string', requiresArg: true }
  const parsed = commandParser(argv)
    .options({ headroom: text, json: { type: 'boolean', default: false }, results_table: text, report: text,
      run_id: { type: 'string', array: true, requiresArg: true, default: [] }, ...CONNECTION_FLAGS })
    .parseSync()
  if ((parsed.results_table === undefined) !== (parsed.run_id.length === 0)) {
    throw new UsageError('--results_table and --run_id go together')
  }
  if (parsed.results_table !== undefined && parsed._.length > 0) {
    throw new UsageError('give result files or --results_table with --run_id, not both')
  }
  const headroom = parsed.headroom === undefined ? DEFAULT_HEADROOM_PCT
    : Number(String(parsed.headroom).replace(/%$/, ''))
  if (!(headroom >= 0 && headroom < 100)) {
    throw new UsageError(`--headroom must be a percentage from 0 to below 100 (got '${parsed.headroom}')`)
  }
  // Checked before the work: a report to a link to nothing or to a folder fails here, not after every input is read.
  if (parsed.report !== undefined) writableFile(parsed.report, 'report')
  return { help: parsed.help, files: parsed._.map(String), headroom, json: parsed.json, report: parsed.report,
    resultsTable: parsed.results_table, runIds: parsed.run_id.map(String), connection: connectionFlagsOf(parsed) }
}

function writeReport (file, sizing, text, stderr) {
  const { renderSizingHtml } = require('./html')
  try {
    // Forwarded: the inputs named from the page's own folder.
    fs.writeFileSync(file, relativePaths(renderSizingHtml(sizing), path.dirname(path.resolve(file))))
  } catch (error) {
    throw Object.assign(new Error(`cannot write ${file}: ${error.message}`), { exitCode: EXIT.CANNOT_RUN })
  }
  stderr.write(`sizing report written to ${path.resolve(file)}\n`)
}

/** Each input as sizing reads it: result files, or each run of a results table (its generators merged). */
async function pointsOf (args, env) {
  if (args.resultsTable !== undefined) {
    const { readRuns } = require('../read-runs')
    const runs = await readRuns(args.resultsTable, args.runIds, args.connection, env)
    return runs.map((run) => pointOf(run.result, run.runId))
  }
  if (args.files.length === 0) throw new UsageError('give the result files of the runs to size (see --help)')
  return pointsOfFiles(args.files)
}

/** crate-bench sizing … Returns the exit code. */
function main (argv, { stdout = process.stdout, stderr = process.stderr, env = process.env } = {}) {
  return commandMain({ name: 'crate-bench sizing', usage: () => `${USAGE}\n`, parse: () => parseArgs(argv), stdout,
    stderr, body: (args) => size(args, { stdout, stderr, env }) })
}

async function size (args, { stdout, stderr, env }) {
  const points = await pointsOf(args, env)
  const sizing = sizingOf(points, { headroomPct: args.headroom })
  if (sizing.groups.length === 0) {
    stderr.write(errorText('crate-bench sizing', 'none of the results says what cluster it ran on ' +
      '(environment.cluster): run them again with this version'))
    return EXIT.CANNOT_RUN
  }
  const text = sizingText(sizing)
  stderr.write(text)
  if (args.report !== undefined) writeReport(args.report, sizing, text, stderr)
  if (args.json) stdout.write(`${JSON.stringify(sizing)}\n`)
  return EXIT.OK
}

module.exports = { main, USAGE }
