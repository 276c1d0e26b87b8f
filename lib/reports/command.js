'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { EXIT, UsageError, errorLine } = require('../base/errors')
const { loadWorkload } = require('../workloads')
const { renderReport, renderCompanion } = require('./text')
const { renderHtmlReport } = require('./html')
const { mergeResults } = require('../results/merge')
const { connectionFromArgs } = require('../cluster/connection')
const { parseRunId } = require('../results/run-identity')
const { parseTableName } = require('../data/schema')
const { CrateClient } = require('../cluster/http-client')
const { readRegularFile, sameFile } = require('../base/files')
const { visible } = require('../base/format')
const { resultProblem, exitCodeOf } = require('../results/result')
const { readFleetRun } = require('../fleet/coordinator')
const { COLUMNS_SQL, resultColumnOf } = require('../results/store')
const { parseThreshold, evaluateThresholds } = require('../results/thresholds')

// A result of a long run with its timeline is a few megabytes; this is far beyond any.
const MAX_RESULT_BYTES = 512 * 1024 * 1024

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
The password comes from CRATE_PASSWORD, the rest as for the benchmarks (flags or CRATE_* in .env).`

const FLAGS_WITH_VALUES = new Set([
  '-o',
  '--out',
  '--results_table',
  '--run_id',
  '--fleet_table',
  '--host',
  '--port',
  '--user',
  '--timeout'
])
const SWITCHES = new Set(['--json', '--ssl', '--insecure', '--help', '-h'])

function parseArgs (argv) {
  const flags = {}
  const files = []
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    if (FLAGS_WITH_VALUES.has(arg)) {
      if (i + 1 >= argv.length) throw new UsageError(`${arg} needs a value`)
      flags[arg.replace(/^-+/, '')] = argv[++i]
    } else if (SWITCHES.has(arg)) flags[arg.replace(/^-+/, '')] = true
    else if (arg.startsWith('-')) throw new UsageError(`unknown option ${arg} (see --help)`)
    else files.push(arg)
  }
  return { flags, files, out: flags.o ?? flags.out }
}

/** crate-bench report … Returns the exit code. */
async function main (argv, { stdout = process.stdout, stderr = process.stderr, env = process.env } = {}) {
  try {
    const { flags, files, out } = parseArgs(argv)
    if (flags.help || flags.h) {
      stdout.write(`${USAGE}\n`)
      return EXIT.OK
    }
    if (flags.results_table !== undefined || flags.run_id !== undefined) {
      return await reportRun(flags, out, { stdout, stderr, env })
    }
    if (files.length !== 1) {
      throw new UsageError('give one result file, or --results_table and --run_id (see --help)')
    }
    if (out && sameFile(out, files[0])) {
      throw new UsageError(`-o ${visible(out)} is the result file itself: name another`)
    }
    const result = readResult(files[0])
    stderr.write(terminalReport(result))
    if (flags.json) stdout.write(`${JSON.stringify(result)}\n`)
    if (out) writeHtml(result, out, stderr)
    return EXIT.OK
  } catch (error) {
    stderr.write(`crate-bench report: error: ${errorLine(error.message)}\n`)
    return error.exitCode ?? EXIT.CANNOT_RUN
  }
}

/** A result saved with --json: a file that cannot be read is exit 3, one that is not a result exit 2. */
function readResult (file) {
  const text = readRegularFile(file, { what: 'result', maxBytes: MAX_RESULT_BYTES, unreadableExit: EXIT.CANNOT_RUN })
  let result
  try {
    result = JSON.parse(text)
  } catch (error) {
    throw new UsageError(`not a result file: ${visible(file)}: ${error.message}`)
  }
  const problem = resultProblem(result)
  if (problem) throw new UsageError(`not a result file: ${visible(file)}: ${problem}`)
  return result
}

function terminalReport (result) {
  const companion =
    result.ingest && result.workload === 'analytical' ? renderCompanion(loadWorkload('ingest'), result.ingest) : ''
  return renderReport(loadWorkload(result.workload), result) + companion
}

function writeHtml (result, out, stderr) {
  try {
    fs.writeFileSync(out, renderHtmlReport(result, { terminalReport: terminalReport(result) }))
  } catch (error) {
    const failure = new Error(`cannot write ${out}: ${error.message}`)
    failure.exitCode = EXIT.CANNOT_RUN
    throw failure
  }
  stderr.write(`HTML report written to ${path.resolve(out)}\n`)
}

/**
 * Each run id's rows in a results table, each merged into one result (a run of several load
 * generators is one result). Connection flags as for the benchmarks.
 */
async function readRuns (tableText, runIds, flags, env) {
  const table = parseTableName(tableText, 'results_table')
  const ids = runIds.map(parseRunId)
  const connection = connectionFromArgs(
    {
      host: flags.host,
      port: flags.port,
      user: flags.user,
      ssl: flags.ssl,
      insecure: Boolean(flags.insecure),
      timeout: flags.timeout ?? '60s'
    },
    env
  )
  const client = new CrateClient({ ...connection, maxSockets: 1, retryUnsent: true })
  const runs = []
  try {
    await client.requireOneHost()
    await client.sql(`REFRESH TABLE ${table.sql}`)
    const fleetTable = parseTableName(flags.fleet_table ?? 'doc.crate_bench_fleet', 'fleet_table')
    for (const runId of ids) runs.push(await readMergedRun(client, table, runId, { fleetTable }))
  } catch (error) {
    if (error.exitCode) throw error
    throw Object.assign(new Error(`cannot read from ${table.display}: ${error.message}`), { exitCode: EXIT.CANNOT_RUN })
  } finally {
    client.close()
  }
  return runs
}

/**
 * One run's rows of a results table (refreshed by the caller), merged into one result: with its fleet's rows when
 * its generators were a fleet, and its thresholds judged again on the merged figures. Returns { runId,
 * loadGenerators, result }.
 */
async function readMergedRun (client, table, runId, { fleetTable = null } = {}) {
  const column = await resultColumn(client, table)
  const select = `SELECT ${column} FROM ${table.sql} WHERE run_id = ? ORDER BY started_at`
  const rows = (await client.sql(select, [runId])).rows
  if (rows.length === 0) {
    const unreconciled = fleetTable && (await unreconciledFleet(client, fleetTable, runId))
    if (unreconciled) throw Object.assign(new Error(unreconciled), { exitCode: EXIT.PARTIAL })
    throw Object.assign(new Error(`${table.display} has no row with run_id ${runId}`), { exitCode: EXIT.CANNOT_RUN })
  }
  const results = rows.map(([text]) => JSON.parse(text))
  const problem = results.map(resultProblem).find(Boolean)
  if (problem) {
    const message = `${table.display} holds a row of run ${runId} that is not a result: ${problem}`
    throw Object.assign(new Error(message), { exitCode: EXIT.CANNOT_RUN })
  }
  const fleet = await fleetOf(client, results[0], runId)
  const merged = mergeResults(results, { fleet })
  merged.thresholds = rejudgedThresholds(results[0], merged)
  return { runId, loadGenerators: fleet ? fleet.generators.length : rows.length, result: merged }
}

/** The column of a results table that holds the results: `result_json`, or `result` in tables of earlier versions. */
async function resultColumn (client, table) {
  const answer = await client.sql(COLUMNS_SQL, [table.schema, table.table])
  const column = resultColumnOf(answer.rows.map(([name]) => name))
  if (!column) {
    const message = `${table.display} is not a results table of this tool: it has no result_json column`
    throw Object.assign(new Error(message), { exitCode: EXIT.CANNOT_RUN })
  }
  return column
}

/** The fleet table's rows of a run whose generators were a fleet (their options name the table); null otherwise. */
async function fleetOf (client, result, runId) {
  const named = result.options && result.options.fleet && result.options.fleet.table
  if (!named || !named.display) return null
  try {
    return await readFleetRun(client, parseTableName(named.display, 'fleet_table'), runId)
  } catch {
    return null
  }
}

/**
 * A run with no result but generators in the fleet table: every generator died before it stored its result, so
 * nobody reconciled the fleet. Says what the fleet table knows of them; null when the run is not there either.
 */
async function unreconciledFleet (client, fleetTable, runId) {
  let fleet
  try {
    fleet = await readFleetRun(client, fleetTable, runId)
  } catch {
    return null
  }
  if (fleet.generators.length === 0) return null
  const known = fleet.generators.map((g) => {
    const ok = g.detail.counts ? g.detail.counts.ok : 0
    return `generator ${g.generator + 1}${g.host ? ` on ${visible(g.host)}` : ''} ${g.state}, ${ok} acknowledged ` +
      'by its last heartbeat'
  })
  return `run ${runId} was not reconciled and has no result: every generator of its fleet died before storing one ` +
    `(${fleetTable.display}: ${known.join('; ')}); the table's rows of this run are unaccounted for`
}

/** The run's --threshold checks, judged again on the merged figures: each generator judged only its own. */
function rejudgedThresholds (result, merged) {
  const texts = (result.thresholds || []).map((t) => t.threshold)
  const unit = merged.workload === 'ingest' ? 'rows' : 'queries'
  return evaluateThresholds(texts.map(parseThreshold), merged, unit)
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
  const code = exitCodeOf(merged, merged.workload === 'ingest' ? 'rows' : 'queries')
  if (code !== EXIT.PARTIAL && (merged.thresholds || []).some((t) => !t.passed)) return EXIT.THRESHOLDS
  return code
}

module.exports = { main, readRuns, readMergedRun, readResult, terminalReport, writeHtml }
