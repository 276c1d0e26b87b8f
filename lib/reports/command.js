'use strict'

const { EXIT, UsageError } = require('../base/errors')
const { commandParser, CONNECTION_FLAGS } = require('../cli/command-args')
const { commandMain } = require('../cli/command-main')
const { terminalReport, resultHeader } = require('./text')
const { readRuns } = require('./read-runs')
const { readResult, writeHtml } = require('./result-file')
const { sameFile } = require('../base/files')
const { visible } = require('../base/format')
const { exitCodeOf, exitCodeWithThresholds, unitOfWorkload } = require('../results/result')

const USAGE = `Usage: crate-bench report RESULT.json [-o FILE.html] [--json]
       crate-bench report --results_table TABLE --run_id ID [-o FILE.html] [--json]
         [--fleet_table TABLE] [--host H] [--port P] [--user U] [--ssl] [--insecure]

The first form prints the report of a result saved with --json and, with -o, writes its
self-contained HTML report (the same report --report writes at the end of a run). The second
reads every row of one run from a --results_table, written by several load generators, and
prints one report: units added, the window from the earliest start to the latest end,
percentiles from the merged latency histograms (exact, never averaged); --json prints the
merged result, -o writes its HTML report. A run whose every generator of a fleet died has no
row: its --fleet_table (default doc.crate_bench_fleet) says so, and the report exits 4.
Exit codes of the second form, as a single run's: 0 every unit acknowledged, 1 failures,
4 partial (a generator died, the fleet not reconciled), 5 a --threshold missed, 3 no such run.
The password comes from CRATE_PASSWORD, the rest as for the benchmarks (flags or CRATE_* in .env).

Examples:
  node appClusterIngest.js --duration 1m --json > run.json
  crate-bench report run.json -o run.html
  crate-bench report --results_table doc.crate_bench_results --run_id fleet-1 -o fleet.html`

function parseArgs (argv) {
  const text = { type: 'string', requiresArg: true }
  const flags = commandParser(argv)
    .options({
      out: { ...text, alias: 'o' },
      results_table: text,
      run_id: text,
      fleet_table: text,
      json: { type: 'boolean' },
      ...CONNECTION_FLAGS
    })
    .parseSync()
  return { flags, files: flags._.map(String), out: flags.out }
}

/** crate-bench report … Returns the exit code. */
function main (argv, { stdout = process.stdout, stderr = process.stderr, env = process.env } = {}) {
  return commandMain({ name: 'crate-bench report', usage: () => `${USAGE}\n`, stdout, stderr,
    parse: () => {
      const parsed = parseArgs(argv)
      return { ...parsed, help: parsed.flags.help }
    },
    body: ({ flags, files, out }) => report(flags, files, out, { stdout, stderr, env }) })
}

/** A saved result's report, or a run's from a results table. */
async function report (flags, files, out, { stdout, stderr, env }) {
  if (flags.results_table !== undefined || flags.run_id !== undefined) {
    return reportRun(flags, out, { stdout, stderr, env })
  }
  if (files.length !== 1) {
    throw new UsageError('give one result file, or --results_table and --run_id (see --help)')
  }
  if (out && sameFile(out, files[0])) {
    throw new UsageError(`-o ${visible(out)} is the result file itself: name another`)
  }
  const result = readResult(files[0])
  stderr.write(resultHeader(result) + terminalReport(result))
  if (flags.json) stdout.write(`${JSON.stringify(result)}\n`)
  if (out) writeHtml(result, out, stderr)
  return EXIT.OK
}

/** Every row of one run in a results table, merged into one result. */
async function reportRun (flags, out, { stdout, stderr, env }) {
  if (flags.results_table === undefined || flags.run_id === undefined) {
    throw new UsageError('--results_table and --run_id go together')
  }
  const [{ runId, loadGenerators, result: merged }] = await readRuns(flags.results_table, [flags.run_id], flags, env)
  stderr.write(
    `run ${runId}: ${loadGenerators} load generator${loadGenerators === 1 ? '' : 's'}\n${terminalReport(merged)}`
  )
  if (flags.json) stdout.write(`${JSON.stringify(merged)}\n`)
  if (out) writeHtml(merged, out, stderr)
  return mergedExitCode(merged)
}

/** A merged run exits as a single run would: 4 partial, 5 a threshold missed, 1 failures, 0 all acknowledged. */
function mergedExitCode (merged) {
  return exitCodeWithThresholds(exitCodeOf(merged, unitOfWorkload(merged.workload)), merged.thresholds)
}

module.exports = { main }
