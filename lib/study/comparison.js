'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { EXIT } = require('../base/errors')
const { fmt } = require('../base/format')
const { Target } = require('../provision/target')
const { replaceFile } = require('../provision/owned-paths')
const { compareRuns } = require('../reports/compare')
const { renderCompareHtml } = require('../reports/compare/html')
const { busyText } = require('../reports/compare/wording')
const { contenderArgs, APPS } = require('./plan')
const { writeProgress, minutes } = require('./progress')
const { studyRunOf, lostDuring, runLine, partResult } = require('./parts')
const { measuredHeader, measuredLines } = require('./report')

// A comparison conducted: each fork starts each contender fresh, in alternating order (a, b; b, a; …) so that a drift
// of the machine falls on both, and runs the same benchmark on it; a run during which a node died is kept out (its
// fork not done: the same command runs it again). Then compare's figures of the first contender against each other,
// the page headed by what was measured and what differs between the contenders, every warning on both.

const forkKey = (fork, contender) => `${fork}-${contender.name}`

/** One fork of one contender: its cluster started, its run, its cluster stopped. { done, code } | { failed, why }. */
async function runFork (fork, contender, { config, stderr, signals, run, env, head }) {
  const log = (line) => stderr.write(`${line}\n`)
  const dir = path.join(config.out, 'forks')
  const key = forkKey(fork, contender)
  const clusterDir = path.join(dir, `${key}-cluster`)
  fs.rmSync(clusterDir, { recursive: true, force: true })
  let target
  try {
    target = await Target.start({ ...contender, dir: clusterDir }, { log: (line) => log(`  ${line}`), signals, env })
  } catch (error) {
    if (signals.interrupted) return { interrupted: true }
    return { failed: true, fatal: true, why: `its cluster did not start: ${error.message}` }
  }
  const recordFile = path.join(dir, `${key}-cluster-record.json`)
  replaceFile(recordFile, `${JSON.stringify(target.record('the study'), null, 1)}\n`)
  const studyRun = studyRunOf(run, { out: config.out, recordFile, stderr })
  const resultFile = path.join(dir, `${key}.json`)
  let outcome
  let lost = null
  try {
    outcome = await studyRun({ app: APPS[config.study.run.workload], what: `fork ${fork} of ${contender.name}`,
      args: contenderArgs(config.study, contender, env), resultFile, logFile: path.join(dir, `${key}.log`), signals })
    lost = lostDuring(target, 'run', { into: path.join(dir, `${key}-lost-nodes`), log,
      of: `${contender.name}'s cluster` })
  } finally {
    await target.stop({ keepLogs: true }).catch((error) => log(`${head} warning: stopping its cluster: ` +
      error.message))
  }
  if (signals.interrupted) return { interrupted: true }
  log(`${head} ${runLine(partResult(resultFile), outcome.code ?? outcome.signal)}`)
  if (lost) {
    log(`${head} a node died during the run: its result is partial and kept out of the comparison; the same command ` +
      'runs this fork again')
    return { failed: true, why: lost }
  }
  return { done: true, code: outcome.code }
}

/** Every fork not done, in turn; then the comparison of what is done. Returns the exit code. */
async function runComparison (config, progress, { stderr, signals, run, env }) {
  const { contenders, forks } = config.study
  const log = (line) => stderr.write(`${line}\n`)
  const file = path.join(config.out, 'study.json')
  fs.mkdirSync(path.join(config.out, 'forks'), { recursive: true })
  const runs = forks * contenders.length
  const walls = []
  const failed = []
  const done = () => Object.values(progress.forks).filter((f) => f.status === 'done').length
  log(`study: ${contenders.map((c) => c.name).join(' against ')}, ${forks} fork${forks === 1 ? '' : 's'} (each ` +
    `contender started fresh in each, in alternating order), ${config.study.run.workload}; ${done() ? `resuming: ` +
    `${done()} of ${runs} runs done; ` : ''}results in ${config.out}`)
  for (let fork = 1; fork <= forks; fork++) {
    const order = fork % 2 === 1 ? config.contenders : [...config.contenders].reverse()
    for (const contender of order) {
      const key = forkKey(fork, contender)
      if (progress.forks[key] && progress.forks[key].status === 'done') continue
      const head = `[fork ${fork} of ${forks}: ${contender.name}]`
      // The time left from the runs this command did: each one a cluster's start, its run and its stop.
      const left = walls.length ? ` (${done()} of ${runs} runs done, about ${minutes((walls.reduce((a, b) => a + b, 0) /
        walls.length) * (runs - done()))} left)` : done() ? ` (${done()} of ${runs} runs done)` : ''
      log(`${head} starting the cluster${left}`)
      const began = Date.now()
      progress.forks[key] = { status: 'started' }
      writeProgress(file, progress)
      const outcome = await runFork(fork, contender, { config, stderr, signals, run, env, head })
      if (outcome.interrupted) {
        log(`interrupted: fork ${fork} of ${contender.name} is not counted; the same command runs it again`)
        return EXIT.PARTIAL
      }
      if (outcome.fatal) {
        throw Object.assign(new Error(`${head} ${outcome.why}`), { exitCode: EXIT.CANNOT_RUN })
      }
      walls.push((Date.now() - began) / 1000)
      progress.forks[key] = outcome.done ? { status: 'done', exit_code: outcome.code }
        : { status: 'failed', why: outcome.why }
      if (outcome.failed) failed.push(`fork ${fork} of ${contender.name}: ${outcome.why}: not compared`)
      writeProgress(file, progress)
    }
  }
  const code = compareContenders(config, { stderr, progress, warnings: failed })
  return failed.length ? EXIT.PARTIAL : code
}

/** What differs between the contenders as they were started: "version: a 6.4.2, b 6.4.3", one line a key. */
function differencesOf (contenders, records) {
  const valueOf = {
    version: (c) => (records[c.name] && records[c.name].version) ?? c.version ?? c.tarball,
    build: (c) => (records[c.name] && records[c.name].build_hash) ?? null,
    distribution: (c) => (records[c.name] && records[c.name].distribution && records[c.name].distribution.sha256) ??
      c.tarball ?? c.version,
    nodes: (c) => c.nodes,
    heap: (c) => c.heap,
    settings: (c) => (c.settings && c.settings.length ? c.settings.join(', ') : 'none')
  }
  const lines = []
  for (const [name, value] of Object.entries(valueOf)) {
    const values = contenders.map((c) => String(value(c)))
    if (new Set(values).size > 1) {
      lines.push(`${name}: ${contenders.map((c, i) => `${c.name} ${values[i]}`).join(', ')}`)
    }
  }
  return lines.length ? lines : ['nothing: the contenders are the same cluster (an A/A study)']
}

/**
 * compare's figures of the first contender against each of the others, from the result of every fork done (with
 * `progress`: a fork that failed, a node of it dead, is left out). DIR/comparison.json and comparison.html (one page a
 * pair beyond the first: comparison-<name>.html), each headed by what was measured and what differs; every warning of
 * the page on the terminal too.
 */
function compareContenders (config, { stderr, progress = null, warnings = [] }) {
  const { contenders, forks } = config.study
  const resultsOf = (name) => Array.from({ length: forks }, (_, i) => i + 1)
    .filter((fork) => !progress || (progress.forks[`${fork}-${name}`] || {}).status === 'done')
    .map((fork) => ({ fork, result: partResult(path.join(config.out, 'forks', `${fork}-${name}.json`)) }))
    .filter((r) => r.result && r.result.workload)
  const records = Object.fromEntries(contenders.map((c) => [c.name,
    partResult(path.join(config.out, 'forks', `1-${c.name}-cluster-record.json`))]))
  const measured = config.file ? measuredHeader(config, Object.values(records)) : null
  const differences = differencesOf(contenders, records)
  const [base, ...others] = contenders
  const baseRuns = resultsOf(base.name)
  const comparisons = others.map((other) => {
    const otherRuns = resultsOf(other.name)
    const comparison = compareRuns(baseRuns.map((r) => r.result), otherRuns.map((r) => r.result), {
      baseNames: baseRuns.map((r) => `${base.name} fork ${r.fork}`),
      newNames: otherRuns.map((r) => `${other.name} fork ${r.fork}`) })
    return { base: base.name, new: other.name, ...comparison }
  })
  const partial = [...baseRuns, ...contenders.slice(1).flatMap((c) => resultsOf(c.name))]
    .filter((r) => r.result.partial)
  const notes = [...warnings, ...partial.map((r) => `a partial run is compared: ${r.result.options && r.result.options
    .run_id ? r.result.options.run_id : 'a fork'} ended early (${(r.result.partial_reasons || []).join('; ') ||
    'partial'})`), ...comparisons.filter((c) => c.busy).map((c) => busyText(c.busy).trim())]
  replaceFile(path.join(config.out, 'comparison.json'), `${JSON.stringify({ measured, differences, contenders, forks,
    comparisons, warnings: notes }, null, 1)}\n`)
  const headerLines = [...(measured ? measuredLines(measured) : []), ...differences.map((d) => `differs: ${d}`)]
  comparisons.forEach((c, i) => replaceFile(path.join(config.out, i === 0 ? 'comparison.html'
    : `comparison-${c.new}.html`), renderCompareHtml(c, { title: `${c.new} against ${c.base}`, headerLines, notes })))
  if (measured) for (const line of measuredLines(measured)) stderr.write(`${line}\n`)
  for (const d of differences) stderr.write(`differs: ${d}\n`)
  for (const c of comparisons) {
    stderr.write(`${c.new} against ${c.base} (${c.base_runs} and ${c.new_runs} runs; ${c.judged ? c.method
      : 'fewer than 3 runs a side: not judged'}):\n`)
    for (const f of c.figures.filter((x) => x.of !== 'client')) {
      stderr.write(`  ${f.figure}: ${fmt(f.base)} -> ${fmt(f.new)} (${f.change_pct === null ? 'no change in %'
        : `${f.change_pct > 0 ? '+' : ''}${fmt(f.change_pct)}%`}${f.ci_pct ? `, 95% interval ${fmt(f.ci_pct[0])}% .. ` +
        `${fmt(f.ci_pct[1])}%` : ''}): ${f.verdict}\n`)
    }
  }
  for (const note of notes) stderr.write(`warning: ${note.replace(/^warning: /, '')}\n`)
  stderr.write(`wrote ${path.join(config.out, 'comparison.json')} and comparison.html\n`)
  return EXIT.OK
}

module.exports = { runComparison, compareContenders, differencesOf }
