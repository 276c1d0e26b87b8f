'use strict'

// A capacity search run (what find-capacity runs, and a study's mixed capacity): the highest rate of its
// configuration (capacity-config.js) the cluster serves within its SLO, each step one run of the benchmark as a child
// process with --json, exactly as a user would run it. Returns the search's summary as it wrote it, never a file read
// back.

const fs = require('node:fs')
const path = require('node:path')
const { EXIT, UsageError, errorText } = require('../base/errors')
const { fmt } = require('../base/format')
const { judgeStep, searchCapacity } = require('./capacity')
const { render, writeResults } = require('./capacity-report')
const { runBenchmark, checkBenchmarkOptions, APP_OF } = require('./benchmark-run')
const { withStudyCluster } = require('./study-cluster')
const { takeLock } = require('./grid/folder')
const { clusterLostBefore } = require('./runs-command')
const { makeDirectories } = require('../base/files')
const { rateFlags } = require('./capacity-config')

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
      !config.benchmark.has('drop_table') && !config.benchmark.has('no-drop_table')
    const args = [
      ...config.benchmark.toArgv(),
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
      checkBenchmarkOptions(APP_OF[config.workload], args)
    } catch (error) {
      if (!(error instanceof UsageError)) throw error
      return { stop: `no step at --rate ${rate}: ${error.message.replace(/^the benchmark options after '--': /, '')}` }
    }
    // Ctrl-C or SIGTERM to the search stops the run in progress at once; it reports partial.
    const { code } = await run({ app: APP_OF[config.workload], args, resultFile, logFile, signals })
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

/**
 * The search of `config` (capacity-config.js capacityConfig) in its folder, its lock held (and its cluster started,
 * when its options start one): { code, summary }, `summary` what it wrote as capacity.summary.json, null when it
 * wrote none. What the command runs, and a study.
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
    return await searchIn(config, { stderr, signals, run })
  } finally {
    release()
  }
}

/** The search in its folder, the lock held: { code, summary }. */
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
    return { code: error.exitCode ?? EXIT.CANNOT_RUN, summary: null }
  }
}

/** The search and its report: { code, summary }. */
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
  const summary = writeResults(config, found, unit)
  stderr.write(render(config, found, unit))
  const code = signals.interrupted ? EXIT.PARTIAL : stopCode ?? (found.capacity === null ? EXIT.FAILURES : EXIT.OK)
  return { code, summary }
}

module.exports = { runCapacity, stepRunner }
