'use strict'

// The sweeps of scripts/find-*.sh as one Node program: parse the options, run the benchmark once
// per value (and repeat) as a child process with --json, record each result, stop a ramp at
// saturation, and write the report (lib/sweep/sweep-report.js: CSV, table, chart, sweet spot).

const fs = require('node:fs')
const path = require('node:path')
const { EXIT, UsageError, FatalError, errorText } = require('../base/errors')
const { redact } = require('../base/secrets')
const { visible } = require('../base/format')
const { pointsOf, writeSweepReport, recordRun } = require('./sweep-report')
const { saturationReason, nothingClean } = require('./sweep')
const { runBenchmark } = require('./benchmark-run')
const { studyBenchmarkOptions, withStudyCluster } = require('./study-cluster')
const { runsCommand, lastErrorOf, clusterLostBefore } = require('./runs-command')
const { commandParser } = require('../cli/command-args')
const { unknownOptionMessage } = require('../cli/suggest')

const RAMP_ONLY = ['min_gain', 'max_failure_pct', 'max_shortfall_pct']


function usage (def, param, values) {
  const ramp = def.ramp
    ? `  --min_gain PCT         stop when a step brings less than PCT percent more throughput (default: 5)
  --max_failure_pct PCT  stop when more than PCT percent of a step's queries fail (default: 1)
`
    : ''
  const steps = def.steps
    ? `  --step FLAG            the flag to step: ${def.param} (default) or ${Object.keys(def.steps).join(', ')}
  --max_shortfall_pct PCT
                         with --step rate: stop when a step achieves more than PCT percent under its
                         target rate (default: 1); the --min_gain rule does not apply then
${Object.entries(def.steps)
  .map(([flag, list]) => `                         default values with --step ${flag}: ${list}`)
  .join('\n')}
`
    : ''
  return `Usage: crate-bench sweep ${def.name} [options] [-- benchmark options]
   (or: scripts/${def.script} [options] [-- benchmark options])

${def.summary}

Runs 'node ${def.app} --${param} VALUE --json' once per value, with the benchmark options
after '--' passed to every run unchanged. A run that reports failed rows or queries is kept: past
saturation the cluster rejects work, and that is data. The sweep stops with an error when the
benchmark cannot run at all (bad options, cluster unreachable: its exit codes 2 and 3).

Options:
  --values "V1 V2 ..."   values of --${param} to try, in order
                         (default: ${values})
  --out DIR              where to write the results (default: sweep-results/${def.name}-<time>)
  --plateau_pct PCT      a value is the sweet spot when larger values gain less than PCT percent
                         more throughput (default: 5); --threshold after '--' is the benchmarks'
                         pass/fail check, applied to every run
  --repeat N             run each value N times; the median run stands for the value and the
                         table shows the range (default: 1; use 3 on a noisy setup)
  --max_p99_ms MS        a value with a p99 latency over MS is never the sweet spot; a ramp stops there
                         (default: no limit)
  --latency_guard X      a larger value that gains under 25% while its p99 is more than X times the
                         smaller one's does not move the sweet spot (default: 2; 0 judges throughput alone)
${ramp}${steps}  -h, --help             this text

Writes DIR/${def.name}.csv (one row per value: value, seconds, count, throughput, % change from
the value before, p99 latency, failed count, exit code), DIR/${def.name}.svg (throughput and p99
against the value, sweet spot marked), DIR/${def.name}.jsonl (every run's full --json result) and
DIR/runs/ (each run's report and result), and prints the table with the best value and the sweet spot.
Connection settings come from .env or CRATE_* variables, as for the benchmarks.

Exit codes: 0 sweep finished (runs may have failures: see the failed column), 2 bad options
(the script's or the benchmark's), 3 the benchmark could not run (cluster unreachable, rejected
credentials), 4 interrupted (the report covers the values finished).

Example:
  ${def.example}
`
}

/** The options, checked in the order a user wrote them would be; every problem is a UsageError (exit 2). */
function parseArgs (def, argv) {
  const dash = argv.indexOf('--')
  const own = dash >= 0 ? argv.slice(0, dash) : argv
  const { options: fixed, cluster } = studyBenchmarkOptions(dash >= 0 ? argv.slice(dash + 1) : [])
  const names = ['values', 'out', 'plateau_pct', 'threshold', 'repeat', 'step', 'max_p99_ms', 'latency_guard',
    ...RAMP_ONLY]
  const usageError = (message) => new UsageError(message)
  const parsed = commandParser(own, { passThrough: true })
    .options(Object.fromEntries(names.map((n) => [n, { type: 'string' }])))
    .parseSync()
  if (parsed.help) return { help: true }
  const stray = parsed._.map(String)
  if (stray.length > 0) {
    throw usageError(
      stray[0].startsWith('-')
        ? unknownOptionMessage(stray[0].replace(/^-+/, '').split('=')[0], names, { afterDash: true })
        : `unexpected argument '${stray[0]}' (benchmark options go after '--'; see --help)`
    )
  }
  if (parsed.threshold !== undefined) {
    // The benchmarks' --threshold is a pass/fail check ("p99<250ms"); one flag name must not mean two things.
    throw usageError(
      "--threshold is the benchmarks' pass/fail check: give it after '--' to judge every run; the sweet spot's " +
      'gain is --plateau_pct PCT'
    )
  }
  let param = def.param
  let values = def.values
  if (parsed.step !== undefined) {
    if (!def.steps) {
      throw usageError(
        `--step applies to ${def.script === 'find-query-saturation.sh' ? def.script : 'find-query-saturation.sh'} only`
      )
    }
    if (def.steps[parsed.step]) {
      param = parsed.step
      values = def.steps[parsed.step]
    } else if (parsed.step !== def.param) {
      throw usageError(`--step must be ${def.param} or ${Object.keys(def.steps).join(', ')}, not '${parsed.step}'`)
    }
  }
  const number = (flag, text) => {
    if (!/^[0-9]+(\.[0-9]+)?$/.test(String(text))) {
      throw usageError(`--${flag} must be a non-negative number, not '${text}'`)
    }
    return Number(text)
  }
  for (const flag of RAMP_ONLY) {
    if (parsed[flag] !== undefined && !def.ramp) {
      throw usageError(`--${flag} applies to ramps (find-query-saturation.sh) only`)
    }
  }
  if (parsed.repeat !== undefined && !/^[1-9][0-9]*$/.test(parsed.repeat)) {
    throw usageError(`--repeat must be a whole number of at least 1, not '${parsed.repeat}'`)
  }
  const config = {
    param,
    threshold: parsed.plateau_pct === undefined ? 5 : number('plateau_pct', parsed.plateau_pct),
    repeat: parsed.repeat === undefined ? 1 : Number(parsed.repeat),
    minGain: parsed.min_gain === undefined ? 5 : number('min_gain', parsed.min_gain),
    maxFailurePct: parsed.max_failure_pct === undefined ? 1 : number('max_failure_pct', parsed.max_failure_pct),
    maxShortfallPct: parsed.max_shortfall_pct === undefined ? 1 : number('max_shortfall_pct', parsed.max_shortfall_pct),
    maxP99Ms: parsed.max_p99_ms === undefined ? null : number('max_p99_ms', parsed.max_p99_ms),
    latencyGuard: parsed.latency_guard === undefined ? undefined : number('latency_guard', parsed.latency_guard),
    values: (parsed.values === undefined ? values : parsed.values).split(/\s+/).filter(Boolean),
    out:
      parsed.out ??
      path.join(
        'sweep-results',
        `${def.name}-${new Date().toISOString().replace(/[-:]/g, '').replace(/\..*/, '').replace('T', '-')}`
      ),
    fixed: fixed.withDefaultWarmup(),
    cluster
  }
  if (config.values.length === 0) throw usageError('--values is empty')
  // Every value as the benchmark will take it: a rate is a positive number, the rest whole numbers.
  for (const v of config.values) {
    if (param === 'rate' ? !(/^[0-9]+(\.[0-9]+)?$/.test(v) && Number(v) > 0) : !/^[1-9][0-9]*$/.test(v)) {
      throw usageError(
        `'${v}' is not a value for --${param}: give ${param === 'rate' ? 'positive numbers' : 'whole numbers of at ' +
        'least 1'}`
      )
    }
  }
  if (fixed.has(param)) throw usageError(`--${param} is what this script sweeps: give its values with --values`)
  if (fixed.has('json')) throw usageError('--json is added by the sweep; leave it out')
  return config
}

/** The benchmark options every value shares, as shown on stderr and in the chart: passwords masked. */
function fixedOptionsText (config) {
  return redact(visible(config.fixed.toArgv().join(' ')))
}

/** The report of the values done (lib/sweep/sweep-report.js), its summary JSON kept in a file; the exit code. */
function writeReport (def, config, jsonl, note, stderr) {
  const fixedText = fixedOptionsText(config)
  const subtitle = [fixedText ? `with ${fixedText}` : '', note].filter(Boolean).join('; ')
  try {
    const summary = writeSweepReport({
      file: jsonl,
      parameter: config.param,
      out: path.join(config.out, def.name),
      threshold: config.threshold,
      subtitle,
      max_p99_ms: config.maxP99Ms ?? undefined,
      latency_guard: config.latencyGuard,
      saturation: Boolean(def.reportsSaturation)
    }, { stderr })
    fs.writeFileSync(path.join(config.out, `${def.name}.summary.json`), `${JSON.stringify(summary)}\n`)
    return EXIT.OK
  } catch (error) {
    stderr.write(errorText(def.script, error.message))
    return error.exitCode ?? EXIT.CANNOT_RUN
  }
}

/** Returns the exit code. `signals` emits 'interrupt' on Ctrl-C or SIGTERM (lib/cli/interrupts.js). */
async function main (def, argv, options = {}) {
  const { stdout = process.stdout, stderr = process.stderr, signals, run = runBenchmark } = options
  return runsCommand({ name: def.script, parse: () => parseArgs(def, argv),
    usage: () => usage(def, def.param, def.values), stdout, stderr,
    body: (config) => withStudyCluster(config.cluster, { out: config.out, stderr, signals, run },
      (studyRun) => sweep(def, config, { stderr, signals, run: studyRun })) })
}

async function sweep (def, config, { stderr, signals, run }) {
  const jsonl = path.join(config.out, `${def.name}.jsonl`)
  fs.writeFileSync(jsonl, '')
  const times = config.repeat === 1 ? '' : `, ${config.repeat} runs each`
  const fixedText = fixedOptionsText(config)
  const withText = fixedText ? ` (with ${fixedText})` : ''
  const values = config.values.join(' ')
  stderr.write(`${def.name} sweep: --${config.param} ${values}${times}${withText}; results in ${config.out}\n`)
  let recorded = 0
  let stoppedBecause = ''
  let previous = null
  for (const [index, v] of config.values.entries()) {
    for (let r = 1; r <= config.repeat; r++) {
      const runName = config.repeat > 1 ? `${config.param}-${v}-${r}` : `${config.param}-${v}`
      stderr.write(
        `[${index + 1}/${config.values.length}] --${config.param} ${v}${config.repeat > 1 ? ` (run ${r} ` +
        `of ${config.repeat})` : ''}\n`
      )
      const resultFile = path.join(config.out, 'runs', `${runName}.json`)
      const logFile = path.join(config.out, 'runs', `${runName}.log`)
      const { code, signal } = await run({
        app: def.app,
        args: config.fixed.plus([`--${config.param}`, v, '--json']).toArgv(),
        resultFile,
        logFile,
        signals
      })
      // Stopped at once, before it could take the signal: nothing of this run to record.
      if (signal && signals.interrupted) break
      if (code !== EXIT.OK && code !== EXIT.FAILURES && code !== EXIT.PARTIAL) {
        const before = previous ? clusterLostBefore(previous.resultFile, previous.label) : ''
        stderr.write(
          `${def.script}: error: the benchmark could not run at --${config.param} ${v} (exit ` +
          `code ${code}): ${lastErrorOf(logFile)}${before}\n`
        )
        if (recorded > 0) writeReport(def, config, jsonl, `stopped at ${v}: the benchmark could not run`, stderr)
        // Bad benchmark options stay exit 2; anything else (unreachable, killed) is 3.
        return code === EXIT.USAGE ? EXIT.USAGE : EXIT.CANNOT_RUN
      }
      try {
        recordRun({ file: jsonl, parameter: config.param, value: String(v), exit_code: code, result: resultFile },
          { stderr })
        previous = { resultFile, label: `--${config.param} ${v}` }
      } catch (error) {
        throw new FatalError(`could not record the run at --${config.param} ${v}: ${error.message}`)
      }
      recorded++
      if (signals.interrupted) break
    }
    if (signals.interrupted) {
      stoppedBecause = `interrupted at ${v}`
      break
    }
    if (def.ramp) {
      const reason = saturation(config, jsonl)
      if (reason) {
        stoppedBecause = `saturated: ${reason}`
        stderr.write(`${stoppedBecause}\n`)
        break
      }
    }
  }
  if (recorded === 0 && signals.interrupted) {
    stderr.write(`${def.script}: interrupted before any run finished; no report\n`)
    return EXIT.PARTIAL
  }
  if (writeReport(def, config, jsonl, stoppedBecause, stderr) !== EXIT.OK) {
    throw new FatalError('could not write the report')
  }
  if (signals.interrupted) return EXIT.PARTIAL
  const nothing = nothingClean(pointsOf(jsonl))
  if (nothing) stderr.write(`${def.script}: ${nothing}\n`)
  return nothing ? EXIT.FAILURES : EXIT.OK
}

/** The ramp's stop rule (lib/sweep/sweep.js saturationReason): the reason to stop, or null. */
function saturation (config, jsonl) {
  try {
    return saturationReason(pointsOf(jsonl), {
      minGainPct: config.minGain,
      maxFailurePct: config.maxFailurePct,
      maxP99Ms: config.maxP99Ms,
      maxShortfallPct: config.maxShortfallPct
    })
  } catch (error) {
    throw new FatalError(`the saturation check failed at --${config.param}: ${error.message}`)
  }
}

module.exports = { main, parseArgs, usage }
