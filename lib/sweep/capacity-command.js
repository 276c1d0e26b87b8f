'use strict'

// find-capacity (scripts/find-capacity.sh, crate-bench sweep capacity): the highest --rate the
// cluster serves within its SLO. Each step is one run of the benchmark as a child process with
// --json, exactly as a user would run it.

const fs = require('node:fs')
const path = require('node:path')
const { EXIT, UsageError, errorText } = require('../base/errors')
const { parseDuration } = require('../base/values')
const { fmt } = require('../base/format')
const { judgeStep, searchCapacity } = require('./capacity')
const { render, writeResults } = require('./capacity-report')
const { runBenchmark, checkBenchmarkOptions, gives } = require('./benchmark-run')
const { studyBenchmarkArgs, withStudyCluster } = require('./study-cluster')
const { takeLock } = require('./grid/folder')
const { clusterLostBefore } = require('./runs-command')
const { makeDirectories } = require('../base/files')
const { commandParser } = require('../cli/command-args')
const { parseSlo } = require('./slo')

const APPS = { ingest: 'appClusterIngest.js', query: 'appClusterAnalytical.js', mixed: 'appClusterAnalytical.js' }
const ADDED = ['--rate', '--duration', '--warmup', '--json', '--ingest_rate']

/**
 * The rate flags of a step at `rate`: the benchmark's --rate (and the fixed --ingest_rate beside a query search), or
 * for a mixed search the fixed --rate of the queries and the searched --ingest_rate beside them.
 */
function rateFlags (workload, rate, ingestRate, queryRate) {
  if (workload === 'mixed') return ['--rate', String(queryRate), '--ingest_rate', String(rate)]
  return ['--rate', String(rate), ...(ingestRate ? ['--ingest_rate', String(ingestRate)] : [])]
}

// Options whose value may start with a minus: "--precision -5%" is a bad percentage to name, not an option "-5".
const SIGNED_VALUES = new Set(['--precision', '--start', '--max_failed', '--min_achieved_pct', '--max_steps',
  '--edge_repeat'])

/** "--precision -5%" as "--precision=-5%", so that the value is checked (and refused) as a value. */
function valuesThatLookLikeFlags (args) {
  const out = []
  for (let i = 0; i < args.length; i++) {
    if (SIGNED_VALUES.has(args[i]) && i + 1 < args.length && /^-[0-9.]/.test(args[i + 1])) {
      out.push(`${args[i]}=${args[++i]}`)
    } else out.push(args[i])
  }
  return out
}

function parseArgs (argv) {
  const dash = argv.indexOf('--')
  const own = valuesThatLookLikeFlags(dash >= 0 ? argv.slice(0, dash) : argv)
  const { args: benchmark, cluster } = studyBenchmarkArgs(dash >= 0 ? argv.slice(dash + 1) : [])
  const parser = commandParser(own, { benchmarkAfterDash: true })
    .scriptName('find-capacity.sh')
    .usage(
      'Usage: scripts/find-capacity.sh --slo p99=200ms [options] -- <benchmark options>\n\nThe highest --rate the ' +
      'cluster serves with p99 within the SLO, nothing failed, no thread-pool rejections and an unsaturated load ' +
      'generator: doubling from --start until a step misses, then bisecting to --precision. Each step runs the ' +
      'benchmark for --duration after --warmup.'
    )
    .options({
      slo: { type: 'string', demandOption: true, describe: 'the latency target: p99=200ms' },
      workload: {
        choices: ['ingest', 'query', 'mixed'],
        default: 'ingest',
        describe: 'ingest (rows/s), query (queries/s of --queries_config), or mixed (the rows/s ingested beside ' +
          'the query mix at --query_rate while the queries meet the SLO)'
      },
      ingest_rate: {
        type: 'number',
        describe: 'with --workload query: rows/s ingested beside the queries, in every step'
      },
      query_rate: {
        type: 'number',
        describe: 'with --workload mixed: the queries/s of the mix in every step, the ingest beside it searched'
      },
      max_failed: { type: 'number', default: 0, describe: 'units failed or in doubt a step may have' },
      start: { type: 'number', describe: 'the first rate (default: 10000 rows/s, or 50 queries/s)' },
      precision: {
        type: 'string',
        default: '5%',
        describe: 'stop bisecting when the last pass and the first miss are this close'
      },
      duration: { type: 'string', default: '30s', describe: "each step's measured time" },
      warmup: { type: 'string', default: '10s', describe: "each step's warm-up, kept out of its figures" },
      min_achieved_pct: { type: 'number', default: 99, describe: 'percent of the target rate a step must achieve' },
      max_steps: { type: 'number', default: 30, describe: 'steps at most' },
      edge_repeat: {
        type: 'number',
        default: 3,
        describe: 'runs of the last passing and the first missing rate once the search has found them: the ' +
          'capacity is a range only where every run agreed (1: no repeat)'
      },
      client_check: {
        type: 'boolean',
        default: true,
        describe: 'a saturated load generator fails a step (--no-client_check: one shared with other work, ' +
          'whose CPU and event-loop delay say nothing about the cluster)'
      },
      out: { type: 'string', describe: 'directory of the results (default: capacity-results/<time>)' }
    })
    .example('scripts/find-capacity.sh --slo p99=200ms -- --processes 4 --batch_size 1000', 'ingest capacity')
    .example(
      'scripts/find-capacity.sh --slo p99=250ms --workload query --ingest_rate 20000 -- --queries_config ' +
      'queries/cpu-dashboard.yml',
      'queries/s of a mix within 250 ms while ingesting 20,000 rows/s'
    )
    .epilogue(
      'Exit codes: 0 capacity found, 1 the start rate already misses or the edge\'s runs disagree (no capacity the ' +
      'runs carry), 2 bad input, 3 the benchmark could not run, 4 interrupted.'
    )
    .wrap(Math.min(120, process.stdout.columns || 100))
  if (own.includes('--help') || own.includes('-h')) {
    // Before parsing: the help must not wait for the required --slo.
    let help = ''
    parser.showHelp((text) => { help = text })
    return { help }
  }
  const args = parser.parseSync()
  const sloP99Ms = parseSlo(args.slo)
  const precision = /^(\d+(?:\.\d+)?)%?$/.exec(String(args.precision).trim())
  if (!precision || !(Number(precision[1]) > 0)) {
    throw new UsageError(`--precision must be a percentage such as 5% (got '${args.precision}')`)
  }
  if (args.ingest_rate !== undefined && args.workload !== 'query') {
    throw new UsageError(args.workload === 'mixed' ? '--workload mixed searches the ingest\'s rate: give the ' +
      'queries\' rate with --query_rate, not --ingest_rate' : '--ingest_rate goes with --workload query')
  }
  if ((args.query_rate !== undefined) !== (args.workload === 'mixed')) {
    throw new UsageError('--workload mixed and --query_rate go together (the queries/s held while the ingest beside ' +
      'them is searched)')
  }
  for (const flag of benchmark) {
    if (ADDED.includes(flag.split('=')[0])) {
      throw new UsageError(`${flag.split('=')[0]} is set by find-capacity; leave it out of the benchmark options`)
    }
  }
  for (const [name, value] of [
    ['start', args.start],
    ['ingest_rate', args.ingest_rate],
    ['query_rate', args.query_rate],
    ['max_steps', args.max_steps]
  ]) {
    if (value !== undefined && !(value > 0)) throw new UsageError(`--${name} must be positive (got '${value}')`)
  }
  if (!(Number.isSafeInteger(args.max_failed) && args.max_failed >= 0)) {
    throw new UsageError(`--max_failed must be a whole number >= 0 (got '${args.max_failed}')`)
  }
  if (!(args.min_achieved_pct > 0 && args.min_achieved_pct <= 100)) {
    throw new UsageError(`--min_achieved_pct must be above 0 and at most 100 (got '${args.min_achieved_pct}')`)
  }
  if (!(Number.isSafeInteger(args.edge_repeat) && args.edge_repeat >= 1 && args.edge_repeat <= 10)) {
    throw new UsageError(`--edge_repeat must be a whole number from 1 to 10 (got '${args.edge_repeat}')`)
  }
  if (!Number.isSafeInteger(args.max_steps)) {
    throw new UsageError(`--max_steps must be a whole number (got '${args.max_steps}')`)
  }
  // The first step's options, checked before anything is made.
  const start = args.start ?? ({ ingest: 10_000, query: 50, mixed: 1000 })[args.workload]
  checkBenchmarkOptions(APPS[args.workload], [...benchmark, ...rateFlags(args.workload, start,
    args.ingest_rate ?? null, args.query_rate ?? null), '--duration', args.duration, '--warmup', args.warmup])
  return {
    sloP99Ms,
    workload: args.workload,
    ingestRate: args.ingest_rate ?? null,
    queryRate: args.query_rate ?? null,
    maxFailed: args.max_failed,
    start,
    precisionPct: Number(precision[1]),
    durationMs: parseDuration(args.duration, 'duration'),
    warmupMs: parseDuration(args.warmup, 'warmup'),
    minAchievedPct: args.min_achieved_pct,
    maxSteps: args.max_steps,
    edgeRepeat: args.edge_repeat,
    clientCheck: args.client_check,
    out: args.out ?? path.join('capacity-results', new Date().toISOString().replace(/[-:]/g, '').replace(/\..*/, '')),
    benchmark,
    cluster
  }
}

/** One step: the benchmark at `rate`, its JSON result, or why the search must stop. */
function stepRunner (config, { stderr, signals, run = runBenchmark }) {
  let steps = 0
  let previous = null
  const runsOf = new Map()
  return async (rate) => {
    runsOf.set(rate, (runsOf.get(rate) || 0) + 1)
    const name = `rate-${rate}${runsOf.get(rate) > 1 ? `-r${runsOf.get(rate)}` : ''}`
    // The first step prepares the table as the benchmark options say; the later ones keep it, so that no step
    // spends its warm-up waiting for a table to be dropped and created on a busy cluster.
    const keepTable = ++steps > 1 && config.workload === 'ingest' &&
      !gives(config.benchmark, 'drop_table') && !gives(config.benchmark, 'no-drop_table')
    const args = [
      ...config.benchmark,
      ...(keepTable ? ['--no-drop_table'] : []),
      ...rateFlags(config.workload, rate, config.ingestRate, config.queryRate),
      '--duration',
      `${config.durationMs}ms`,
      '--warmup',
      `${config.warmupMs}ms`,
      '--json'
    ]
    const resultFile = path.join(config.out, 'runs', `${name}.json`)
    const logFile = path.join(config.out, 'runs', `${name}.log`)
    stderr.write(`step ${fmt(rate)}/s ... `)
    // A search that comes down to a rate its --duration cannot hold (two requests at least) ends there, with what
    // it found: no run of the benchmark would measure that step.
    try {
      checkBenchmarkOptions(APPS[config.workload], args)
    } catch (error) {
      if (!(error instanceof UsageError)) throw error
      return { stop: `no step at --rate ${rate}: ${error.message.replace(/^the benchmark options after '--': /, '')}` }
    }
    // Ctrl-C or SIGTERM to the search stops the run in progress at once; it reports partial.
    const { code } = await run({ app: APPS[config.workload], args, resultFile, logFile, signals })
    if (signals.interrupted) return { stop: 'interrupted' }
    if (code === EXIT.USAGE || code === EXIT.CANNOT_RUN) {
      const line = fs
        .readFileSync(logFile, 'utf8')
        .trim()
        .split('\n')
        .filter((l) => / error: /.test(l))
        .pop()
      // A step the cluster did not survive stops the search at the next one: say which load brought it down.
      const before = previous ? clusterLostBefore(previous.resultFile, previous.label) : ''
      return {
        stop: `the benchmark could not run at --rate ${rate} (exit code ${code})${line ? `: ${line}` : ''}${before}`,
        exitCode: code
      }
    }
    previous = { resultFile, label: `--rate ${rate}` }
    try {
      const result = JSON.parse(fs.readFileSync(resultFile, 'utf8'))
      fs.appendFileSync(
        path.join(config.out, 'capacity.jsonl'),
        `${JSON.stringify({ rate, exit_code: code, result })}\n`
      )
      return { result }
    } catch {
      return {
        stop: `the benchmark printed no result at --rate ${rate} (exit code ${code})`,
        exitCode: EXIT.CANNOT_RUN
      }
    }
  }
}

/** Returns the exit code. `signals` emits 'interrupt' on Ctrl-C or SIGTERM (lib/cli/interrupts.js). */
async function main (argv, { stdout = process.stdout, stderr = process.stderr, signals, run = runBenchmark } = {}) {
  let config
  try {
    config = parseArgs(argv)
    if (config.help) {
      stdout.write(`${config.help}\n`)
      return EXIT.OK
    }
  } catch (error) {
    stderr.write(errorText('find-capacity.sh', error.message))
    return error.exitCode ?? EXIT.USAGE
  }
  return (await runCapacity(config, { stderr, signals, run })).code
}

/**
 * The search of `config` (parseArgs) in its folder, its lock held (and its cluster started, when its options start
 * one): { code, summary }, `summary` what capacity.summary.json holds, null when the search wrote none. What the
 * command runs, and a study.
 */
async function runCapacity (config, { stderr, signals, run = runBenchmark }) {
  let release
  try {
    makeDirectories(path.join(config.out, 'runs'))
    // One search a folder: two on one --out would write the same step files and report each other's errors.
    release = takeLock(config.out, { name: 'capacity.lock', what: 'capacity search',
      said: (line) => stderr.write(`${line}\n`) })
  } catch (error) {
    stderr.write(errorText('find-capacity.sh', error.message))
    return { code: error.exitCode ?? EXIT.USAGE, summary: null }
  }
  try {
    const code = await searchIn(config, { stderr, signals, run })
    let summary = null
    try {
      summary = JSON.parse(fs.readFileSync(path.join(config.out, 'capacity.summary.json'), 'utf8'))
    } catch { /* the search wrote none */ }
    return { code, summary }
  } finally {
    release()
  }
}

/** The search in its folder, the lock held. Returns the exit code. */
async function searchIn (config, { stderr, signals, run }) {
  const unit = config.workload === 'query' ? 'queries' : 'rows'
  const mixed = config.workload === 'mixed' ? ` (the ingest beside the query mix at ${fmt(config.queryRate)} ` +
    'queries/s, whose p99 the SLO judges)' : ''
  stderr.write(
    `find-capacity: ${config.workload}${mixed}, SLO p99 <= ${config.sloP99Ms} ms, from ${fmt(config.start)} ` +
    `${unit}/s, ` +
    `precision ${config.precisionPct}%, ${config.durationMs / 1000} s a step after ${config.warmupMs / 1000} s ` +
    `warm-up; results in ${config.out}\n`
  )
  try {
    return await withStudyCluster(config.cluster, { out: config.out, stderr, signals, run },
      (studyRun) => search(config, unit, { stderr, signals, run: studyRun }))
  } catch (error) {
    stderr.write(errorText('find-capacity.sh', error.message))
    return error.exitCode ?? EXIT.CANNOT_RUN
  }
}

/** The search and its report: the exit code. */
async function search (config, unit, { stderr, signals, run }) {
  let stopCode = null
  const runner = stepRunner(config, { stderr, signals, run })
  const found = await searchCapacity({
    start: config.start,
    precisionPct: config.precisionPct,
    maxSteps: config.maxSteps,
    edgeRepeat: config.edgeRepeat,
    runStep: async (rate) => {
      const outcome = await runner(rate)
      if (outcome.exitCode) stopCode = outcome.exitCode
      if (outcome.result) {
        const v = judgeStep(outcome.result, config)
        stderr.write(`${v.passed ? 'pass' : `miss: ${v.reason}`}\n`)
      } else stderr.write(`${outcome.stop}\n`)
      return outcome
    },
    judge: (result) => judgeStep(result, config)
  })
  writeResults(config, found, unit)
  stderr.write(render(config, found, unit))
  if (signals.interrupted) return EXIT.PARTIAL
  if (stopCode) return stopCode
  return found.capacity === null ? EXIT.FAILURES : EXIT.OK
}

module.exports = { main, parseArgs, runCapacity, render, stepRunner }
