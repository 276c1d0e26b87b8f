'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { UsageError } = require('../base/errors')
const { fileSha256 } = require('../base/files')
const { startRecorded, stopRecorded } = require('../provision/recorded-start')
const { contenderArgs, tablesOnTarget } = require('./plan')
const { APP_OF } = require('../sweep/benchmark-run')
const { studyRunOf, lostDuring, runLine, partResult } = require('./parts')
const { shuffled } = require('../sweep/grid/racing')
const { withTarget } = require('./target-session')
const { BenchmarkOptions } = require('../cli/benchmark-options')
const { steadyCapOf } = require('../cli/warmup-options')

// A fork of a comparison: its contenders' clusters started fresh, the same benchmark run on each, their clusters
// stopped. One after another in the order drawn for the fork (paired), or all at once (a duet: the same machine's
// moment for each, so that what it does to one it does to the other). Each contender's outcome: { done, code } |
// { failed, why } | { interrupted }, a cluster that cannot start { failed, fatal, why }.

const forkKey = (fork, contender) => `${fork}-${contender.name}`

// How a fork starts and stops a contender's cluster: recorded (provision/recorded-start.js); a test conducts a
// comparison in-process with its own.
const RECORDED = { start: startRecorded, stop: stopRecorded }

/** A contender's result of a fork, read as a study part's is (partResult), or null when there is none. */
function forkResult (dir, fork, name) {
  const result = partResult(forkFile(dir, fork, name))
  return result && result.workload ? result : null
}

// A comparison's forks folder, named here once: DIR/forks/<fork>-<name><what> for each contender's run in a fork (its
// result .json, its report .log, its cluster's folder -cluster and record -cluster-record.json, the logs of its nodes
// that died -lost-nodes), <fork>-warm-up where a duet's runs meet.
const FORKS = 'forks'
/** The folder of a comparison's forks in `dir`. */
const forksDir = (dir) => path.join(dir, FORKS)
/** A file or folder of a contender's run (`key`: forkKey) in a fork: `what` after its key ('.json', '-cluster'). */
const forkPath = (dir, key, what) => path.join(dir, FORKS, `${key}${what}`)
/** The result file of a contender's run in a fork: DIR/forks/<fork>-<name>.json. */
const forkFile = (dir, fork, name) => forkPath(dir, `${fork}-${name}`, '.json')

/**
 * Before a comparison resumes: each fork done whose result file is no longer the one its fork wrote (its SHA-256 in
 * study.json) is refused in one line: a fork's result is the comparison's evidence, never read once edited.
 */
function checkForkResults (dir, forks) {
  for (const [key, state] of Object.entries(forks)) {
    if (state.status !== 'done' || !state.sha256) continue
    const file = forkPath(dir, key, '.json')
    if (fileSha256(file) !== state.sha256) {
      throw new UsageError(`${file} is not the result its fork wrote (its SHA-256 in study.json differs): restore ` +
        'it, or run the study into a new --out')
    }
  }
}

/**
 * The forks where every one of `names` has a result (a fork that failed for one is no pair): fork numbers. `forks`:
 * their states in study.json (only those done count), or null to take every result in `dir`/forks. Once a
 * comparison's runs were lengthened (study/run-length.js: a state's `duration`), only the forks at that length pair:
 * the first fork's short windows were its pilot, and their spread would widen every interval.
 */
function pairedForks (dir, names, forks) {
  const numbers = new Set()
  const lengthened = Object.values(forks ?? {}).some((f) => f.duration)
  for (const [key, state] of Object.entries(forks ?? {})) {
    if (!lengthened || state.duration) numbers.add(Number(key.split('-')[0]))
  }
  if (!forks) {
    for (const f of fs.existsSync(forksDir(dir)) ? fs.readdirSync(forksDir(dir)) : []) {
      const m = /^(\d+)-.+\.json$/.exec(f)
      if (m) numbers.add(Number(m[1]))
    }
  }
  return [...numbers].filter(Number.isSafeInteger).sort((a, b) => a - b).filter((fork) => names.every((name) =>
    (!forks || (forks[`${fork}-${name}`] || {}).status === 'done') && forkResult(dir, fork, name)))
}

/** The contender's cluster, started in `dir`/forks (its record written for its run), or an outcome that ends it. */
async function startContender (fork, contender, { dir, signals, env, log, clusters = RECORDED }) {
  const key = forkKey(fork, contender)
  const clusterDir = forkPath(dir, key, '-cluster')
  fs.rmSync(clusterDir, { recursive: true, force: true })
  try {
    return await clusters.start({ ...contender, dir: clusterDir }, { recordFile: forkPath(dir, key,
      '-cluster-record.json'), log: (line) => log(`  ${line}`), signals, env })
  } catch (error) {
    if (signals.interrupted) return { outcome: { interrupted: true } }
    return { outcome: { failed: true, fatal: true, why: `its cluster did not start: ${error.message}` } }
  }
}

/**
 * The benchmark on a contender that is up: its exit and whether a node left during it (`lost`: a started cluster's
 * node that died, a target's that no longer answers in its cluster). `recordFile`: what was started, given to the run
 * (none for a target, whose runs read it from sys.nodes).
 */
async function runOn (fork, contender, { recordFile, lost, together = [] }, { dir, config, stderr, signals, run,
  env, duration = null }) {
  const key = forkKey(fork, contender)
  const studyRun = studyRunOf(run, { out: config.out, recordFile, stderr })
  const resultFile = forkPath(dir, key, '.json')
  const outcome = await studyRun({ app: APP_OF[config.study.run.workload], what: `fork ${fork} of ${contender.name}`,
    args: [...contenderArgs(config.study, contender, env, { duration }), ...together], resultFile,
    logFile: forkPath(dir, key, '.log'), signals })
  return { outcome, lost: await lost('run'), resultFile }
}

/** A started cluster's `lost` for runOn: its nodes that died, named with their last log lines, their logs kept. */
const diedIn = (started, fork, contender, { dir, log }) => (part) => lostDuring(started.target, part,
  { into: forkPath(dir, forkKey(fork, contender), '-lost-nodes'), log, of: `${contender.name}'s cluster` })

/** What a contender's run came to, said on its line: done, or failed (a node died: kept out, run again). */
function judged (ran, { head, log, signals }) {
  if (signals.interrupted) return { interrupted: true }
  log(`${head} ${runLine(partResult(ran.resultFile), ran.outcome.code ?? ran.outcome.signal)}`)
  if (ran.lost) {
    log(`${head} ${ran.lost}: its result is partial and kept out of the comparison; the same command runs this fork ` +
      'again')
    return { failed: true, why: ran.lost }
  }
  return { done: true, code: ran.outcome.code }
}

async function stopQuietly (started, head, { log, clusters = RECORDED }) {
  const error = await clusters.stop(started, { keepLogs: true })
  if (error) log(`${head} warning: stopping its cluster: ${error.message}`)
}

/**
 * One contender of a paired fork: its cluster started, its run, its cluster stopped; a target (a cluster of the
 * user's own): its up:, the wait for its nodes, its record, its run, its down:. A target that does not come up ends
 * the comparison as a cluster that does not start does.
 */
async function runFork (fork, contender, context) {
  const { log, head, signals, dir, env, config } = context
  if (contender.target) {
    const outcome = await withTarget(contender.target, { out: config.out, dir: forksDir(dir),
      cwd: path.dirname(config.file),
      recordFile: forkPath(dir, forkKey(fork, contender), '-cluster-record.json'), env, signals, log,
      head, tables: tablesOnTarget(config.study, contender, env), keepTables: config.study.keep_tables,
      kept: config.keptTables },
    async ({ lost }) => judged(await runOn(fork, contender, { recordFile: null, lost }, context),
      { head, log, signals }))
    return outcome.unavailable ? { ...outcome, fatal: true } : outcome
  }
  const started = await startContender(fork, contender, context)
  if (started.outcome) return started.outcome
  let ran
  try {
    ran = await runOn(fork, contender, { recordFile: started.recordFile, lost: diedIn(started, fork, contender,
      context) }, context)
  } finally {
    await stopQuietly(started, head, context)
  }
  return judged(ran, { head, log, signals })
}

/**
 * A duet's runs with a steady warm-up end it together (lib/run/warmup-rendezvous.js): the options that say so, with a
 * fresh folder of this fork's for them to meet in; none when the runs warm up otherwise.
 */
function warmupTogether (fork, contenders, { dir, config, env }) {
  const warmup = BenchmarkOptions.parse(contenderArgs(config.study, contenders[0], env)).get('warmup')
  if (steadyCapOf(warmup) === null) return []
  const meet = forkPath(dir, fork, '-warm-up')
  fs.rmSync(meet, { recursive: true, force: true })
  fs.mkdirSync(meet, { recursive: true })
  return ['--warmup_together', meet, '--warmup_peers', String(contenders.length)]
}

/**
 * Who starts first in a duet (its cluster, then its load): the contender that started first the fewest times over the
 * duets compared so far (pairedForks: a lengthened comparison's pilot is none of them), a tie drawn, the others in a
 * drawn order. With two contenders each two duets compared hold both orders, so a position the machine favours falls
 * on each alike and cancels in their mean ratio; drawn afresh for each duet, it had fallen 7 times in 10 on one.
 * { order, why }: why says how the first was chosen.
 */
function duetOrder (contenders, { dir, forks, random }) {
  const compared = pairedForks(dir, contenders.map((c) => c.name), forks)
  const firsts = new Map(contenders.map((c) => [c, compared.filter((f) =>
    (forks[forkKey(f, c)] || {}).position === 1).length]))
  const drawn = random ? shuffled(contenders, random) : contenders
  const fewest = Math.min(...firsts.values())
  const first = drawn.find((c) => firsts.get(c) === fewest)
  const tied = contenders.every((c) => firsts.get(c) === fewest)
  const counts = contenders.map((c) => `${c.name} ${firsts.get(c)}`).join(', ')
  const over = `over the ${compared.length === 1 ? 'duet' : `${compared.length} duets`} compared (${counts})`
  return { order: [first, ...drawn.filter((c) => c !== first)],
    why: compared.length === 0 ? 'drawn for this first duet'
      : tied ? `drawn: each started first as often ${over}` : `${first.name} started first the fewest times ${over}` }
}

/**
 * A duet: every contender's cluster started, then their runs at once, each with its own load generator and the same
 * options; then every cluster stopped. Outcomes by contender name. `forks`: the comparison's states so far, whose
 * positions decide who starts first (duetOrder).
 */
async function runDuet (fork, contenders, context) {
  const { log, signals, random, forks = {}, dir } = context
  const started = []
  const outcomes = {}
  const { order, why } = duetOrder(contenders, { dir, forks, random })
  try {
    // Side by side from the start: their clusters start at once (on a busy machine a start takes a quarter minute).
    log(`[fork ${fork}: duet] starting ${order.map((c) => c.name).join(' and ')}'s clusters at once (in that ` +
      `order: ${why})`)
    const starts = await Promise.all(order.map((contender) => startContender(fork, contender,
      { ...context, log: (line) => log(line.replace(/^ {2}/, `  [${contender.name}] `)) })
      .then((one) => ({ contender, ...one }))))
    for (const one of starts) if (!one.outcome) started.push(one)
    const failed = starts.find((one) => one.outcome)
    if (failed) {
      for (const c of contenders) outcomes[c.name] = failed.outcome
      return outcomes
    }
    log(`[fork ${fork}: duet] ${order.map((c) => c.name).join(' and ')} run at once, each with its own load ` +
      'generator')
    const together = warmupTogether(fork, contenders, context)
    const runs = await Promise.all(started.map((s) => runOn(fork, s.contender, { recordFile: s.recordFile,
      lost: diedIn(s, fork, s.contender, context), together }, context)))
    runs.forEach((ran, i) => {
      const { contender } = started[i]
      outcomes[contender.name] = { ...judged(ran, { head: context.headOf(contender), log, signals }),
        position: order.indexOf(contender) + 1 }
    })
    return outcomes
  } finally {
    for (const s of started) await stopQuietly(s, context.headOf(s.contender), context)
  }
}

module.exports = { runFork, runDuet, duetOrder, forkKey, forkResult, forkFile, forksDir, forkPath, checkForkResults,
  pairedForks, warmupTogether }
