'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { EXIT, UsageError, errorText } = require('../../base/errors')
const { sameFile } = require('../../base/files')
const { compareRuns, regressions } = require('./index')
const { table } = require('../text')
const { runsText, changeText, intervalText, fmt, optionDifferenceText } = require('./wording')

const USAGE = `Usage: crate-bench compare --base FILE... --new FILE...
         [--fail_on_regression PCT] [--json] [-o compare.html]
       crate-bench compare --results_table TABLE --base_run_id ID... --new_run_id ID...
         [the same options, connection flags]

Compares two sets of runs saved with --json (several repeats of each configuration: at least 3 a
side to judge significance). Per figure (throughput, p50, p99, p99.9, failed, per query): base,
new, change in %, and with 3 runs a side or more a 95% confidence interval and a verdict from
Welch's t-test: better, worse, or no significant difference (p < 0.05). With --results_table, each
run id is one run (its load generators merged), read from the cluster.
--fail_on_regression PCT exits 1 when a figure got significantly worse by more than PCT percent.
Exit codes: 0 no such regression, 1 regression, 2 bad input, 3 a file cannot be read.`

const CONNECTION_FLAGS = new Set(['--host', '--port', '--user', '--timeout'])

function parseArgs (argv) {
  const args = {
    base: [],
    new: [],
    baseRunIds: [],
    newRunIds: [],
    json: false,
    out: null,
    failOn: null,
    connection: {}
  }
  let side = null
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    if (arg === '--base' || arg === '--new') side = arg.slice(2)
    else if (arg === '--base_run_id' || arg === '--new_run_id') {
      args[arg === '--base_run_id' ? 'baseRunIds' : 'newRunIds'].push(argv[++i])
    } else if (arg === '--results_table') args.resultsTable = argv[++i]
    else if (CONNECTION_FLAGS.has(arg)) args.connection[arg.slice(2)] = argv[++i]
    else if (arg === '--ssl' || arg === '--insecure') args.connection[arg.slice(2)] = true
    else if (arg === '--json') args.json = true
    else if (arg === '-o' || arg === '--out') args.out = argv[++i]
    else if (arg === '--fail_on_regression') {
      args.failOn = Number(argv[++i])
      if (!(args.failOn >= 0)) throw new UsageError(`--fail_on_regression must be a percentage >= 0 (got '${argv[i]}')`)
    } else if (arg === '--help' || arg === '-h') args.help = true
    else if (arg.startsWith('-')) throw new UsageError(`unknown option ${arg} (see --help)`)
    else if (side) args[side].push(arg)
    else throw new UsageError(`'${arg}': say whether it is --base or --new`)
  }
  return args
}

/** The two sides: result files, or run ids in a results table. */
async function sidesOf (args, env) {
  if (args.resultsTable !== undefined || args.baseRunIds.length || args.newRunIds.length) {
    if (args.resultsTable === undefined || !args.baseRunIds.length || !args.newRunIds.length) {
      throw new UsageError('--results_table, --base_run_id and --new_run_id go together')
    }
    const { readRuns } = require('../read-runs')
    const results = await readRuns(args.resultsTable, [...args.baseRunIds, ...args.newRunIds], args.connection, env)
    return [
      results.slice(0, args.baseRunIds.length).map((r) => r.result),
      results.slice(args.baseRunIds.length).map((r) => r.result)
    ]
  }
  if (args.base.length === 0 || args.new.length === 0) {
    throw new UsageError('give at least one --base and one --new result file')
  }
  const { readResult } = require('../result-file')
  return [args.base.map(readResult), args.new.map(readResult)]
}

function describeChange (f) {
  if (f.change_pct === null) return `${f.figure} ${fmt(f.base)} -> ${fmt(f.new)}`
  return `${f.figure} ${changeText(f)}`
}

/** crate-bench compare … Returns the exit code. */
async function main (argv, { stdout = process.stdout, stderr = process.stderr, env = process.env } = {}) {
  try {
    const args = parseArgs(argv)
    if (args.help) {
      stdout.write(`${USAGE}\n`)
      return EXIT.OK
    }
    const input = [...args.base, ...args.new].find((file) => args.out && sameFile(args.out, file))
    if (input) throw new UsageError(`-o ${args.out} is one of the result files compared: name another`)
    const [base, next] = await sidesOf(args, env)
    const workloads = new Set([...base, ...next].map((r) => r.workload))
    if (workloads.size > 1) {
      throw new UsageError(`the runs are of different workloads (${[...workloads].join(', ')}): nothing to compare`)
    }
    const comparison = compareRuns(base, next)
    stderr.write(render(comparison))
    if (args.json) stdout.write(`${JSON.stringify(comparison)}\n`)
    if (args.out) {
      fs.writeFileSync(args.out, require('./html').renderCompareHtml(comparison))
      stderr.write(`HTML comparison written to ${path.resolve(args.out)}\n`)
    }
    if (args.failOn !== null) {
      const worse = regressions(comparison, args.failOn)
      if (worse.length > 0) {
        stderr.write(
          `regression: ${worse.map(describeChange).join(', ')} ` +
          `(significantly worse by more than ${args.failOn}%)\n`
        )
        return EXIT.FAILURES
      }
    }
    return EXIT.OK
  } catch (error) {
    stderr.write(errorText('crate-bench compare', error.message))
    return error.exitCode ?? EXIT.CANNOT_RUN
  }
}

function render (comparison) {
  const t = table([
    'figure',
    `base (${runsText(comparison.base_runs)})`,
    `new (${runsText(comparison.new_runs)})`,
    'change',
    '95% CI of the change',
    'verdict'
  ])
  for (const f of comparison.figures) {
    t.push([f.figure, fmt(f.base), fmt(f.new), changeText(f), intervalText(f), f.verdict])
  }
  const note = comparison.judged
    ? comparison.method
    : `significance cannot be judged with fewer than 3 runs a side (${comparison.base_runs} ` +
      `base, ${comparison.new_runs} new): repeat each configuration`
  return `${optionsText(comparison)}${t.toString()}\n${note}\n`
}

/** The options that differ between the sides, one line, or that none does. */
function optionsText (comparison) {
  const differences = comparison.option_differences || []
  if (differences.length === 0) return 'options: the same on both sides\n'
  return `options that differ: ${differences.map(optionDifferenceText).join('; ')}\n`
}

module.exports = { main }
