'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { EXIT, UsageError } = require('../../base/errors')
const { sameFile } = require('../../base/files')
const { commandParser, CONNECTION_FLAGS, connectionFlagsOf } = require('../../cli/command-args')
const { commandMain } = require('../../cli/command-main')
const { compareRuns, regressions } = require('./index')
const { table } = require('../table')
const { runsText, changeText, intervalText, verdictText, fmt, optionDifferenceText, protocolsText, sidesText,
  busyText } = require('./wording')

const USAGE = `Usage: crate-bench compare --base FILE... --new FILE...
         [--paired] [--fail_on_regression PCT] [--json] [-o compare.html]
       crate-bench compare --results_table TABLE --base_run_id ID... --new_run_id ID...
         [the same options, connection flags]

Compares two sets of runs saved with --json (several repeats of each configuration: at least 3 a
side to judge significance). Per figure (throughput, p50, p99, p99.9, failed, per query): base,
new, change in %, and with 3 runs a side or more a 95% confidence interval and a verdict from
Welch's t-test: better, worse, or no significant difference (p < 0.05), which says the smallest
change the runs could have seen. --paired: the i-th base and the i-th new ran together (one after
the other, or at once): each figure is judged on their ratios, which cancel what the machine did to
both (a far smaller change is seen on a noisy machine). With --results_table, each run id is one
run (its load generators merged), read from the cluster.
--fail_on_regression PCT exits 1 when a figure got significantly worse by more than PCT percent.
Exit codes: 0 no such regression, 1 regression, 2 bad input, 3 a file cannot be read.

Examples:
  crate-bench compare --base http-1.json http-2.json http-3.json --new pg-1.json pg-2.json pg-3.json
  crate-bench compare --base before-*.json --new after-*.json --fail_on_regression 5 -o compare.html
  crate-bench compare --paired --base a-1.json a-2.json a-3.json --new b-1.json b-2.json b-3.json`

function parseArgs (argv) {
  const text = { type: 'string', requiresArg: true }
  const many = { type: 'string', array: true, default: [] }
  const parsed = commandParser(argv)
    .options({
      base: many,
      new: many,
      base_run_id: { ...many, requiresArg: true },
      new_run_id: { ...many, requiresArg: true },
      results_table: text,
      out: { ...text, alias: 'o' },
      fail_on_regression: text,
      json: { type: 'boolean', default: false },
      paired: { type: 'boolean', default: false },
      ...CONNECTION_FLAGS
    })
    .parseSync()
  if (parsed._.length > 0) throw new UsageError(`'${parsed._[0]}': say whether it is --base or --new`)
  let failOn = null
  if (parsed.fail_on_regression !== undefined) {
    failOn = Number(parsed.fail_on_regression)
    if (!(failOn >= 0) || parsed.fail_on_regression.trim() === '') {
      throw new UsageError(`--fail_on_regression must be a percentage >= 0 (got '${parsed.fail_on_regression}')`)
    }
  }
  const connection = connectionFlagsOf(parsed)
  return {
    help: parsed.help,
    base: parsed.base,
    new: parsed.new,
    baseRunIds: parsed.base_run_id,
    newRunIds: parsed.new_run_id,
    resultsTable: parsed.results_table,
    json: parsed.json,
    out: parsed.out ?? null,
    failOn,
    paired: parsed.paired,
    connection
  }
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
      results.slice(args.baseRunIds.length).map((r) => r.result),
      { baseNames: args.baseRunIds, newNames: args.newRunIds }
    ]
  }
  if (args.base.length === 0 || args.new.length === 0) {
    throw new UsageError('give at least one --base and one --new result file')
  }
  const { readResult } = require('../result-file')
  return [args.base.map(readResult), args.new.map(readResult), { baseNames: args.base.map((f) => path.basename(f)),
    newNames: args.new.map((f) => path.basename(f)) }]
}

function describeChange (f) {
  if (f.change_pct === null) return `${f.figure} ${fmt(f.base)} -> ${fmt(f.new)}`
  return `${f.figure} ${changeText(f)}`
}

/** crate-bench compare … Returns the exit code. */
function main (argv, { stdout = process.stdout, stderr = process.stderr, env = process.env } = {}) {
  return commandMain({ name: 'crate-bench compare', usage: () => `${USAGE}\n`, parse: () => parseArgs(argv), stdout,
    stderr, body: (args) => compare(args, { stdout, stderr, env }) })
}

async function compare (args, { stdout, stderr, env }) {
  const input = [...args.base, ...args.new].find((file) => args.out && sameFile(args.out, file))
  if (input) throw new UsageError(`-o ${args.out} is one of the result files compared: name another`)
  const [base, next, names] = await sidesOf(args, env)
  const workloads = new Set([...base, ...next].map((r) => r.workload))
  if (workloads.size > 1) {
    throw new UsageError(`the runs are of different workloads (${[...workloads].join(', ')}): nothing to compare`)
  }
  if (args.paired && base.length !== next.length) {
    throw new UsageError(`--paired compares runs in pairs: give as many --new as --base (${base.length} and ` +
      `${next.length})`)
  }
  const comparison = compareRuns(base, next, { ...names, paired: args.paired })
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
    t.push([f.figure, fmt(f.base), fmt(f.new), changeText(f), intervalText(f), verdictText(f)])
  }
  const note = comparison.judged
    ? comparison.method
    : `significance cannot be judged with fewer than 3 runs a side (${comparison.base_runs} ` +
      `base, ${comparison.new_runs} new): repeat each configuration`
  return `${sidesText(comparison.sides)}${protocolsText(comparison.protocols)}\n${optionsText(comparison)}` +
    `${t.toString()}\n${note}\n${busyText(comparison.busy)}`
}

/** The options that differ between the sides, one line, or that none does. */
function optionsText (comparison) {
  const differences = comparison.option_differences || []
  if (differences.length === 0) return 'options: the same on both sides\n'
  return `options that differ: ${differences.map(optionDifferenceText).join('; ')}\n`
}

module.exports = { main }
