'use strict'

// One run of a benchmark as a child process, the way every sweep and find-capacity take a step.

const fs = require('node:fs')
const path = require('node:path')
const { spawn } = require('node:child_process')

const { UsageError } = require('../base/errors')
const { holderForChildren, HOLDER_ENV } = require('../workloads/table-lease')

const ROOT = path.join(__dirname, '..', '..')
const WORKLOADS = { 'appClusterIngest.js': 'ingest', 'appClusterAnalytical.js': 'analytical' }
/** The benchmark script that runs each workload a sweep, a grid, a capacity search or a study names. */
const APP_OF = Object.freeze({ ingest: 'appClusterIngest.js', query: 'appClusterAnalytical.js',
  mixed: 'appClusterAnalytical.js' })

// How a command names the benchmark's options it passes on.
const AFTER_DASH = "the benchmark options after '--'"

/**
 * The benchmark options of a study checked as the benchmark will check them, before the study makes its folder or
 * runs anything: a typo after `--` is one line at once, not an error at the first cell, its error led by how the
 * caller names these options (`named`: grid.args in a study file). Returns the options as the benchmark will read them.
 */
function checkBenchmarkOptions (app, args, { named = AFTER_DASH } = {}) {
  // Loaded here: the option parser (yargs) only where a study starts.
  const { parseOptions } = require('../cli/options')
  const { loadWorkload } = require('../workloads')
  try {
    return parseOptions(loadWorkload(WORKLOADS[app]), [...args, '--json'], process.env, { name: app })
  } catch (error) {
    if (error instanceof UsageError) throw new UsageError(`${named}: ${error.message}`)
    throw error
  }
}

// What a study is, for a run that finds its table in use: `grid`, `find-capacity`, `study`, ….
const studyName = () => (/^[a-z-]+$/.test(process.argv[2] || '') ? process.argv[2] : 'study')

// The runs this process started that still run. A process that ends while one runs (its own study gone, and the grace
// for what held it past: lib/cli/interrupts.js) ends them with it: nobody is left to read them, and they would load a
// cluster that a resumed study starts on the same ports.
const running = new Set()
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL')
})

/**
 * `node app args`, stdout (the --json result) and stderr (its report) to files. It gets a process
 * group of its own, so that Ctrl-C in a terminal reaches it once, from the caller, and not twice
 * (which the benchmark takes as "abandon the requests in flight").
 */
function runBenchmark ({ app, args, resultFile, logFile, signals, onSpawn = () => {}, onLine = null }) {
  return new Promise((resolve) => {
    const stdout = fs.openSync(resultFile, 'w')
    const stderr = fs.openSync(logFile, 'w')
    // Its stdin is a pipe this process holds: if the study dies (SIGKILL included), the pipe ends and the run stops
    // as on Ctrl-C (lib/cli/interrupts.js), instead of loading the cluster beside the resumed study.
    const child = spawn(process.execPath, [path.join(ROOT, app), ...args], {
      // With `onLine` its report passes through this process on its way to the log: each line is seen as it comes.
      stdio: ['pipe', stdout, onLine ? 'pipe' : stderr],
      // Its tables' leases are the study's: the study's next run may drop them, nobody else's.
      env: { ...process.env, CRATE_BENCH_STOP_WITH_PARENT: '1',
        [HOLDER_ENV]: holderForChildren(`crate-bench ${studyName()}`),
        // A run of a cluster the study started sends it no password meant for another cluster (.env's included).
        ...(args.includes('--started_by_study') ? { CRATE_PASSWORD: '' } : {}) },
      detached: true
    })
    child.stdin.on('error', () => {})
    if (onLine) passLines(child.stderr, stderr, onLine)
    running.add(child)
    onSpawn(child)
    // Ctrl-C once: the run stops and waits for what is in flight; twice (or this study's own study gone): it
    // abandons that too. Two signals closer than the run's 100 ms are one to it: the second waits a little.
    let later = null
    const stop = ({ count = 1 } = {}) => {
      child.kill('SIGINT')
      if (count >= 2) later = setTimeout(() => child.kill('SIGINT'), 250)
    }
    signals.on('interrupt', stop)
    if (signals.interrupted) stop({ count: signals.count })
    // 'close', not 'exit': a report passing through this process is in its log before the log is closed.
    child.on('close', (code, signal) => {
      running.delete(child)
      clearTimeout(later)
      signals.off('interrupt', stop)
      fs.closeSync(stdout)
      fs.closeSync(stderr)
      resolve({ code, signal })
    })
  })
}

/** Each chunk of `stream` written to the file `fd`, each whole line of it given to `onLine`. */
function passLines (stream, fd, onLine) {
  let partial = ''
  stream.on('data', (chunk) => {
    fs.writeSync(fd, chunk)
    const lines = (partial + chunk.toString('utf8')).split(/\r|\n/)
    partial = lines.pop()
    for (const line of lines) if (line) onLine(line)
  })
  stream.on('error', () => {})
}

// A study's runs each start on a cluster another run just left (or cold): the first seconds are not what it serves.
// Each run of a --duration warms up for a tenth of it, at least 5 s, unless the benchmark options give --warmup
// (BenchmarkOptions.withDefaultWarmup); a comparison's, until its rate is steady, at most two minutes
// (withSteadyWarmup: two fresh nodes of a duet beside a busy core were still climbing at a minute in 13 of 20 runs,
// and steady by 76 s in all 18 with two, docs/study.md). A run that ends at a count (--max_rows, --max_queries) could
// end inside a warm-up and measure nothing: it gets none, and the study says so (noWarmupNote).

/** The line a study prints when its runs (`options`: BenchmarkOptions) get no warm-up, or null. */
function noWarmupNote (options) {
  if (options.has('warmup')) return null
  return 'note: no warm-up: the runs end at a count, not after --duration; their first seconds (a cold or busy ' +
    'cluster) count in every figure. Give --duration (each run then warms up a tenth of it, at least 5 s) or --warmup'
}

// An ingest run's rows a request when its options give no --batch_size.
const INGEST_BATCH_SIZE = require('../workloads/ingest-options').options.batch_size.default

module.exports = { runBenchmark, checkBenchmarkOptions, APP_OF, WORKLOADS, AFTER_DASH, noWarmupNote, INGEST_BATCH_SIZE }
