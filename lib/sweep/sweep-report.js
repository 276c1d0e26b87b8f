#!/usr/bin/env node
'use strict'

// The shared logic of the sweep scripts in scripts/, as a small command:
//   record  appends one run (its --json result and exit code) to the sweep's JSONL file
//   check   decides whether a saturation ramp should stop (exit 10) or go on (exit 0)
//   report  writes the CSV and the SVG chart and prints the table with the sweet spot

const fs = require('node:fs')
const path = require('node:path')
const { EXIT, UsageError, errorText } = require('../base/errors')
const { fmt } = require('../base/format')
const {
  pointOf,
  combineRepeats,
  withChanges,
  analyse,
  saturationReason,
  toCsv,
  parseValue,
  LATENCY_GUARD
} = require('./sweep')
const { summaryOf, verdictLines, renderTable } = require('./sweep-verdict')
const { makeDirectories } = require('../base/files')
const { commandParser } = require('../cli/command-args')

const SATURATED = 10
const SCRIPT = 'sweep-report'

function readRuns (file) {
  let text
  try {
    text = fs.readFileSync(file, 'utf8')
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${error.code === 'ENOENT' ? 'no such file' : error.message}`)
  }
  return text.split('\n').filter((line) => line.trim()).map((line, i) => {
    try {
      return JSON.parse(line)
    } catch {
      throw new UsageError(`${file} line ${i + 1} is not JSON`)
    }
  })
}

function pointsOf (file) {
  const runs = readRuns(file)
  if (runs.length === 0) throw new UsageError(`${file} holds no runs`)
  return withChanges(
    combineRepeats(
      runs.map((run) => pointOf({ value: parseValue(run.value), exitCode: run.exit_code, result: run.result }))
    )
  )
}

function record (args, { stderr }) {
  let text = ''
  try {
    text = fs.readFileSync(args.result === '-' ? 0 : args.result, 'utf8')
  } catch (error) {
    if (error.code !== 'ENOENT') throw new UsageError(`cannot read ${args.result}: ${error.message}`)
  }
  let result = null
  if (text.trim()) {
    try {
      result = JSON.parse(text)
    } catch {
      throw new UsageError(`the run at ${args.value} did not print a JSON result`)
    }
  }
  fs.appendFileSync(args.file, `${JSON.stringify({ value: String(args.value), exit_code: args.exit_code, result })}\n`)
  const point = pointOf({ value: args.value, exitCode: args.exit_code, result })
  stderr.write(
    point.missing
      ? `${args.parameter}=${args.value}: no result (exit code ${args.exit_code})\n`
      : `${args.parameter}=${args.value}: ${fmt(point.throughput)} ${point.unit}/s, p99 ${fmt(point.p99Ms)} ` +
        `ms, ${fmt(point.failed)} failed${point.partial ? ', PARTIAL' : ''}\n`
  )
  return EXIT.OK
}

function check (args, { stdout }) {
  const reason = saturationReason(pointsOf(args.file), {
    minGainPct: args.min_gain,
    maxFailurePct: args.max_failure_pct,
    maxP99Ms: args.max_p99_ms ?? null,
    maxShortfallPct: args.max_shortfall_pct
  })
  if (reason === null) return EXIT.OK
  stdout.write(`${reason}\n`)
  return SATURATED
}

/**
 * find-saturation.sh runs every value; its verdict is the first value where the ramp's rule
 * (find-query-saturation.sh) would have stopped, in the same terms as find-capacity's steps.
 */
function saturationOf (points, args) {
  for (let i = 1; i <= points.length; i++) {
    const reason = saturationReason(points.slice(0, i), { maxP99Ms: args.max_p99_ms ?? null })
    if (reason) return { value: points[i - 1].value, reason }
  }
  return { value: null, reason: null }
}

/** The `report` command: the report, and its summary as JSON on stdout with --json. */
function report (args, { stdout, stderr }) {
  const summary = writeSweepReport(args, { stderr })
  if (args.json) stdout.write(`${JSON.stringify(summary)}\n`)
  return EXIT.OK
}

/**
 * A sweep's report from its JSONL file: the CSV, the SVG chart, and the table with the verdict on stderr. `args` as
 * the report command's flags (file, parameter, out, threshold, max_p99_ms, saturation, title, subtitle). Returns the
 * summary. Throws UsageError when the file cannot be read or the directory cannot be made.
 */
function writeSweepReport (args, { stderr }) {
  const points = pointsOf(args.file)
  // A ramp's saturated value and those after it are past the knee: never its sweet spot, in the text or the chart.
  const saturation = args.saturation ? saturationOf(points, args) : null
  const analysis = analyse(points, {
    thresholdPct: args.threshold,
    maxP99Ms: args.max_p99_ms ?? null,
    saturatedAt: saturation ? saturation.value : null,
    latencyGuard: args.latency_guard ?? LATENCY_GUARD
  })
  const summary = summaryOf(args, points, analysis)
  if (saturation) summary.saturation = saturation
  const dir = path.dirname(path.resolve(args.out))
  try {
    makeDirectories(dir)
  } catch {
    throw new UsageError(`--out '${args.out}': cannot create the directory ${dir}`)
  }
  fs.writeFileSync(summary.csv, toCsv(args.parameter, points))
  const { renderSweepChart } = require('./sweep-chart')
  const verdict = verdictLines(summary, args.parameter)
  if (summary.saturation) {
    verdict.push(
      summary.saturation.value === null
        ? 'saturation: not reached at the values tried'
        : `saturated at ${args.parameter}=${summary.saturation.value}: ${summary.saturation.reason}`
    )
  }
  fs.writeFileSync(
    summary.chart,
    renderSweepChart({
      parameter: args.parameter,
      unit: summary.unit,
      title: args.title || `${summary.unit}/s and p99 latency by ${args.parameter}`,
      subtitle: [args.subtitle, verdict[1] || verdict[0]].filter(Boolean).join('\n'),
      points,
      analysis,
      maxP99Ms: args.max_p99_ms ?? null
    })
  )
  stderr.write(
    `${renderTable(args.parameter, points)}\n${verdict.join('\n')}\nwrote ${summary.csv} and ${summary.chart}\n`
  )
  return summary
}

function parse (argv) {
  const fileOption = {
    file: { type: 'string', demandOption: true, describe: "the sweep's JSONL file (one run per line)" }
  }
  let chosen = null
  const parser = commandParser(argv)
    .scriptName('node lib/sweep/sweep-report.js')
    .usage(
      'The analysis behind scripts/find-*.sh: records runs, decides when a ramp is saturated, writes CSV, table and ' +
      'chart.\n\nUsage: node lib/sweep/sweep-report.js <command> [options]'
    )
    .command(
      'record',
      'append one run (its --json result and exit code) to the sweep file',
      (y) =>
        y.options({
          ...fileOption,
          parameter: { type: 'string', demandOption: true, describe: 'the flag being swept, e.g. batch_size' },
          value: { type: 'string', demandOption: true, describe: 'the value this run used' },
          exit_code: { type: 'number', demandOption: true, describe: "the benchmark's exit code" },
          result: { type: 'string', default: '-', describe: "file holding the run's --json output (- for stdin)" }
        }),
      () => {
        chosen = record
      }
    )
    .command(
      'check',
      'exit 10 and print why when the last run is past saturation, else exit 0',
      (y) =>
        y.options({
          ...fileOption,
          min_gain: { type: 'number', default: 5, describe: 'percent more throughput each step must bring' },
          max_failure_pct: { type: 'number', default: 1, describe: 'percent of failed units a step may have' },
          max_p99_ms: { type: 'number', describe: 'p99 latency a step may have (ms)' },
          max_shortfall_pct: {
            type: 'number',
            default: 1,
            describe: 'with --rate steps: percent a step may fall short of its target rate'
          }
        }),
      () => {
        chosen = check
      }
    )
    .command(
      'report',
      'write OUT.csv and OUT.svg, print the table and the sweet spot',
      (y) =>
        y.options({
          ...fileOption,
          parameter: { type: 'string', demandOption: true, describe: 'the flag being swept, e.g. batch_size' },
          out: { type: 'string', demandOption: true, describe: 'path prefix of the CSV and the chart' },
          threshold: { type: 'number', default: 5, describe: 'percent gain under which the curve counts as flat' },
          max_p99_ms: { type: 'number', describe: 'values with a p99 latency over this (ms) are never the sweet spot' },
          latency_guard: { type: 'number', default: LATENCY_GUARD, describe: 'a larger value gaining under 25% ' +
            'with a p99 over this many times the smaller one\'s does not move the sweet spot (0: off)' },
          saturation: {
            type: 'boolean',
            default: false,
            describe: 'also say where a ramp would have stopped (find-saturation.sh)'
          },
          title: { type: 'string', describe: 'chart title' },
          subtitle: { type: 'string', describe: 'chart subtitle, e.g. the fixed options' },
          json: { type: 'boolean', default: false, describe: 'print the summary as JSON on stdout' }
        }),
      () => {
        chosen = report
      }
    )
    .demandCommand(1, 'name a command: record, check or report')
    .example(
      'node lib/sweep/sweep-report.js report --file out/batch.jsonl --parameter batch_size --out out/batch',
      'table, CSV and chart of a batch-size sweep'
    )
    .strictCommands()
    .help('help')
    .wrap(Math.min(120, process.stdout.columns || 100))
  const args = parser.parseSync()
  if (!chosen) return { args, command: null }
  for (const key of ['threshold', 'min_gain', 'max_failure_pct', 'max_p99_ms', 'max_shortfall_pct', 'exit_code']) {
    if (args[key] !== undefined && !Number.isFinite(args[key])) throw new UsageError(`--${key} must be a number`)
  }
  return { args, command: chosen }
}

function main ({ argv = process.argv.slice(2), stdout = process.stdout, stderr = process.stderr } = {}) {
  let code
  try {
    const { args, command } = parse(argv)
    code = command ? command(args, { stdout, stderr }) : EXIT.OK
  } catch (error) {
    const known = error && error.exitCode !== undefined
    const message = known ? error.message : `unexpected failure: ${error && error.message}`
    stderr.write(errorText(SCRIPT, message))
    code = known ? error.exitCode : EXIT.CANNOT_RUN
  }
  return code
}

if (require.main === module) process.exitCode = main()

module.exports = { main, SATURATED, verdictLines, summaryOf, pointsOf, writeSweepReport, recordRun: record }
