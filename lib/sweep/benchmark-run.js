'use strict'

// One run of a benchmark as a child process, the way every sweep and find-capacity take a step.

const fs = require('node:fs')
const path = require('node:path')
const { spawn } = require('node:child_process')

const { UsageError } = require('../base/errors')
const { parseDuration, formatMs } = require('../base/values')
const { holderForChildren, HOLDER_ENV } = require('../workloads/table-lease')

const ROOT = path.join(__dirname, '..', '..')
const WORKLOADS = { 'appClusterIngest.js': 'ingest', 'appClusterAnalytical.js': 'analytical' }

/**
 * The benchmark options of a study checked as the benchmark will check them, before the study makes its folder or
 * runs anything: a typo after `--` is one line at once, not an error at the first cell. Returns the options as the
 * benchmark will read them.
 */
function checkBenchmarkOptions (app, args) {
  // Loaded here: the option parser (yargs) only where a study starts.
  const { parseOptions } = require('../cli/options')
  const { loadWorkload } = require('../workloads')
  try {
    return parseOptions(loadWorkload(WORKLOADS[app]), [...args, '--json'], process.env, { name: app })
  } catch (error) {
    if (error instanceof UsageError) throw new UsageError(`the benchmark options after '--': ${error.message}`)
    throw error
  }
}

// What a study is, for a run that finds its table in use: `grid`, `find-capacity`, `study`, ….
const studyName = () => (/^[a-z-]+$/.test(process.argv[2] || '') ? process.argv[2] : 'study')

/**
 * `node app args`, stdout (the --json result) and stderr (its report) to files. It gets a process
 * group of its own, so that Ctrl-C in a terminal reaches it once, from the caller, and not twice
 * (which the benchmark takes as "abandon the requests in flight").
 */
function runBenchmark ({ app, args, resultFile, logFile, signals }) {
  return new Promise((resolve) => {
    const stdout = fs.openSync(resultFile, 'w')
    const stderr = fs.openSync(logFile, 'w')
    // Its stdin is a pipe this process holds: if the study dies (SIGKILL included), the pipe ends and the run stops
    // as on Ctrl-C (lib/cli/interrupts.js), instead of loading the cluster beside the resumed study.
    const child = spawn(process.execPath, [path.join(ROOT, app), ...args], {
      stdio: ['pipe', stdout, stderr],
      // Its tables' leases are the study's: the study's next run may drop them, nobody else's.
      env: { ...process.env, CRATE_BENCH_STOP_WITH_PARENT: '1',
        [HOLDER_ENV]: holderForChildren(`crate-bench ${studyName()}`) },
      detached: true
    })
    child.stdin.on('error', () => {})
    const stop = () => child.kill('SIGINT')
    signals.on('interrupt', stop)
    if (signals.interrupted) stop()
    child.on('exit', (code, signal) => {
      signals.off('interrupt', stop)
      fs.closeSync(stdout)
      fs.closeSync(stderr)
      resolve({ code, signal })
    })
  })
}

// A study's runs each start on a cluster another run just left (or cold): the first seconds are not what it serves.
// Each run of a --duration warms up for a tenth of it, at least 5 s, unless the benchmark options give --warmup. A
// run that ends at a count (--max_rows, --max_queries) could end inside a warm-up and measure nothing: it gets none,
// and the study says so (noWarmupNote).
const WARMUP_SHARE = 0.1
const MIN_WARMUP_MS = 5000

/** Whether the benchmark options give `--flag` (as `--flag value` or `--flag=value`). */
const gives = (args, flag) => args.some((a) => a === `--${flag}` || a.startsWith(`--${flag}=`))

/** The benchmark options with the study's default --warmup added to a run of a --duration (--warmup 0: none). */
function withDefaultWarmup (args) {
  if (gives(args, 'warmup') || !gives(args, 'duration')) return args
  const at = args.findIndex((a) => a === '--duration' || a.startsWith('--duration='))
  const text = args[at].includes('=') ? args[at].slice(args[at].indexOf('=') + 1) : args[at + 1]
  let durationMs = null
  try {
    durationMs = parseDuration(text, 'duration')
  } catch {
    // The benchmark names a bad --duration itself (checkBenchmarkOptions).
  }
  const warmupMs = Math.max(MIN_WARMUP_MS, Math.round((durationMs ?? 0) * WARMUP_SHARE))
  return [...args, '--warmup', formatMs(warmupMs)]
}

/** The line a study prints when its runs get no warm-up, or null. */
function noWarmupNote (args) {
  if (gives(args, 'warmup')) return null
  return 'note: no warm-up: the runs end at a count, not after --duration; their first seconds (a cold or busy ' +
    'cluster) count in every figure. Give --duration (each run then warms up a tenth of it, at least 5 s) or --warmup'
}

module.exports = { runBenchmark, checkBenchmarkOptions, withDefaultWarmup, noWarmupNote, gives, MIN_WARMUP_MS }
