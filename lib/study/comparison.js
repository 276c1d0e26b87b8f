'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { randomInt } = require('node:crypto')
const { EXIT } = require('../base/errors')
const { fmt, round } = require('../base/format')
const { replaceFile } = require('../provision/owned-paths')
const { compareRuns } = require('../reports/compare')
const { renderCompareHtml } = require('../reports/compare/html')
const { relativePaths } = require('../reports/html/relative-paths')
const { busyText, verdictText, coarseCpuNote, rangeText } = require('../reports/compare/wording')
const { shuffled } = require('../sweep/grid/racing')
const { writeProgress } = require('./progress')
const { minutes, timeLeftS } = require('../sweep/budget')
const { planContenders } = require('./plan')
const { partResult } = require('./parts')
const { measuredHeader, measuredLines } = require('./report')
const { runFork, runDuet, forkKey, forkResult: resultOf, pairedForks, forkFile, checkForkResults, forksDir,
  forkPath } = require('./forks')
const { fileSha256 } = require('../base/files')
const { forksDecision, duetNotes, calibrationLine, ratiosOf, positionOf, stoppingOf,
  unsteadyWarmupLine } = require('./precision')
const { runDesignLine, runLengthAfter, durationFor } = require('./run-length')
const { halfWidthPct } = require('../reports/compare/paired')

// A comparison conducted. Each fork starts every contender fresh, in an order drawn anew for the fork (paired: a
// drift of the machine falls on each contender alike over the forks), or all of them at once (a duet). The verdict is
// on each fork's ratio of a contender to the first (paired), never on two pooled means. With a precision or a budget,
// forks are added until the throughput ratio's interval is that narrow or the time is spent; with calibrate, an A/A
// study of the first contender against itself first says the smallest change this machine lets the study see. A run
// during which a node died is kept out (its fork not done: the same command runs it again).

/** Every fork not done, in turn; then the comparison of what is done. Returns the exit code. */
async function runComparison (config, progress, { stderr, signals, run, env, random = randomInt, clusters,
  now = Date.now }) {
  const log = (line) => stderr.write(`${line}\n`)
  let calibration = null
  if (config.study.calibrate) {
    // The first contender against itself: what the machine alone does to the ratio (a duet's on ports of its own).
    const [base, again] = planContenders({ ...config.study, contenders: [config.contenders[0],
      { ...config.contenders[0], name: `${config.contenders[0].name}-again` }] })
    progress.calibration = progress.calibration || { forks: {} }
    log(`calibration: ${base.name} against itself (an A/A study), as the comparison will run: what this machine ` +
      'lets the study see')
    const dir = path.join(config.out, 'calibration')
    const outcome = await conduct(config, { dir, contenders: [base, again], forks: progress.calibration.forks,
      progress, stderr, signals, run, env, random, clusters, now, phase: 'calibration' })
    if (outcome.code !== EXIT.OK) return outcome.code
    calibration = compareContenders(config, { dir, contenders: [base, again], forks: progress.calibration.forks,
      stderr, warnings: outcome.warnings, calibrationOf: true, runLength: progress.run_length })
  }
  const outcome = await conduct(config, { dir: config.out, contenders: config.contenders, forks: progress.forks,
    progress, stderr, signals, run, env, random, clusters, now, phase: 'comparison' })
  if (outcome.code !== EXIT.OK) return outcome.code
  compareContenders(config, { dir: config.out, contenders: config.contenders, forks: progress.forks, stderr,
    warnings: outcome.warnings, calibration, stop: outcome.stop, runLength: progress.run_length })
  return outcome.warnings.length ? EXIT.PARTIAL : EXIT.OK
}

/**
 * The forks of `contenders` into `dir`, their states in `forks` (within `progress`, written after each): fixed forks,
 * or added until forksDecision stops them. Runs too short for the precision asked are lengthened after the first fork
 * (progress.run_length; a comparison after its calibration runs at the calibration's length from its first fork).
 * { code, warnings }: code not OK when interrupted or a cluster cannot start.
 */
async function conduct (config, { dir, contenders, forks, progress, stderr, signals, run, env, random, clusters, now,
  phase }) {
  const study = config.study
  const log = (line) => stderr.write(`${line}\n`)
  const file = path.join(config.out, 'study.json')
  fs.mkdirSync(forksDir(dir), { recursive: true })
  checkForkResults(dir, forks)
  const sequential = Boolean(study.precision || study.budget)
  const done = () => Object.values(forks).filter((f) => f.status === 'done').length
  log(`study: ${contenders.map((c) => c.name).join(' against ')}, ${sequential ? `forks added from ${study.forks} ` +
    `until ${[[study.precision ? `the throughput ratio's interval is within ±${study.precision}` : null,
      study.cpu_precision ? `the CPU per row ratio's within ±${study.cpu_precision}` : null].filter(Boolean)
      .join(' and '), study.budget ? `${study.budget} is spent` : null].filter(Boolean).join(', or ')}`
    : `${study.forks} fork${study.forks === 1 ? '' : 's'}`} (${study.duet ? 'a duet: the contenders run at once, ' +
    'each with its own load generator' : 'each contender started fresh in each, in a random order'}), ` +
    `${study.run.workload}; ${done() ? `resuming: ${done()} runs done; ` : ''}results in ${dir}`)
  // The calibration decided the runs' length: this comparison measures as it did, from its first fork.
  const inherited = phase === 'comparison' && Boolean(progress.run_length && progress.run_length.in === 'calibration')
  log(`study: ${runDesignLine(study)}`)
  const decided = progress.run_length
  if (decided && decided.duration) {
    log(`study: ${inherited ? 'every fork\'s' : `from fork ${decided.from_fork} on, the`} runs measure ` +
      `${decided.duration} instead of ${decided.given}, as decided after ` +
      `${decided.in === 'calibration' ? 'the calibration\'s' : 'the'} fork ${decided.from_fork - 1}`)
  }
  const walls = []
  const warnings = []
  let stop = null
  let shortfallSaid = false
  for (let fork = 1; ; fork++) {
    if (fork > study.forks) {
      if (!sequential) break
      const decision = forksDecision({ study, contenders, forks, dir, fork })
      if (decision.stop) {
        log(`forks: ${decision.text}`)
        stop = decision
        break
      }
      // Said once, as soon as the forks show it: a precision the options cannot reach in the budget, or a figure
      // asked a precision of that these runs do not give.
      const shortfall = decision.unmeasured ?? (decision.reachable && decision.reachable.text)
      if (shortfall && !shortfallSaid) {
        log(`forks: ${shortfall}`)
        shortfallSaid = true
      }
    }
    const left = contenders.filter((c) => (forks[forkKey(fork, c)] || {}).status !== 'done')
    if (left.length === 0) continue
    const head = (c) => `[fork ${fork}${sequential ? '' : ` of ${study.forks}`}: ${c.name}]`
    const estimate = walls.length && !sequential ? ` (about ${minutes(timeLeftS(study.forks - fork + 1, walls))} left)`
      : ''
    const began = now()
    const duration = durationFor(fork, progress.run_length, { inherited })
    const context = { dir, config, stderr, signals, run, env, log, headOf: head, duration, clusters }
    const mark = (c, status) => {
      forks[forkKey(fork, c)] = status
      writeProgress(file, progress)
    }
    let outcomes
    if (study.duet) {
      // A duet is one measurement: its contenders run again together, never one alone.
      for (const c of contenders) mark(c, { status: 'started' })
      if (estimate) log(`[fork ${fork}: duet]${estimate}`)
      outcomes = await runDuet(fork, contenders, { ...context, random, forks })
    } else {
      outcomes = {}
      for (const c of shuffled(left, random)) {
        log(`${head(c)} ${c.target ? 'its turn (a cluster of your own)' : 'starting the cluster'}${estimate}`)
        mark(c, { status: 'started' })
        outcomes[c.name] = await runFork(fork, c, { ...context, head: head(c) })
        if (outcomes[c.name].interrupted || outcomes[c.name].fatal) break
      }
    }
    const wallS = (now() - began) / 1000
    for (const c of contenders.filter((x) => outcomes[x.name])) {
      const o = outcomes[c.name]
      if (o.interrupted) {
        log(`interrupted: fork ${fork} of ${c.name} is not counted; the same command runs it again`)
        return { code: EXIT.PARTIAL, warnings }
      }
      if (o.fatal) {
        throw Object.assign(new Error(`${head(c)} ${o.why}`), { exitCode: EXIT.CANNOT_RUN })
      }
      mark(c, { ...forkState(o, wallS, Object.keys(outcomes).length, duration),
        ...(o.done ? { sha256: fileSha256(forkFile(dir, fork, c.name)) } : {}) })
      if (o.failed) warnings.push(`fork ${fork} of ${c.name}: ${o.why}: not compared`)
    }
    walls.push(wallS)
    // The throughput ratio's interval as the forks go: a user sees it narrow (or not) towards the precision.
    for (const line of ratioLines({ contenders, forks, dir, study })) log(`[fork ${fork}] ${line}`)
    // After the first fork: runs too short for the precision asked measure longer from the next one on, or are said.
    const length = fork === 1 && !progress.run_length ? runLengthAfter({ study, contenders, dir, fork, wallS,
      spentS: wallS }) : null
    if (length) log(`forks: ${length.line}`)
    if (length && length.duration) {
      progress.run_length = { ...length, in: phase }
      writeProgress(file, progress)
    }
    const unsteady = fork === 1 ? unsteadyWarmupLine({ contenders, dir, fork }) : null
    if (unsteady) log(`forks: ${unsteady}`)
  }
  return { code: EXIT.OK, warnings, stop }
}

/**
 * Each contender's throughput against the first so far: "b against a: rows/s −57.7% (95% interval −60.5% .. −54.7%,
 * ±2.9 points; ±3% asked) over 4 forks"; nothing before two forks are paired.
 */
function ratioLines ({ contenders, forks, dir, study }) {
  return ratiosOf({ contenders, forks, dir }).filter((r) => r.ratio).map((r) => `${r.name} against ` +
    `${contenders[0].name}: throughput ${signed(r.ratio.change_pct)}% (95% interval ` +
    `${rangeText([round(r.ratio.low_pct, 1), round(r.ratio.high_pct, 1)])}, ±${fmt(round(halfWidthPct(r.ratio), 1))} ` +
    'points' +
    `${study.precision ? `; ±${study.precision} asked` : ''}) over ${r.forks} forks`)
}

const signed = (x) => `${x > 0 ? '+' : ''}${fmt(round(x, 1))}`

/**
 * A contender's state in study.json after a fork of `wallS` seconds that ran `ran` contenders (one after another, or
 * at once in a duet): its share of the fork's time, so that the budget counts each fork's time once.
 */
const forkState = (outcome, wallS, ran, duration = null) => (outcome.done
  ? { status: 'done', exit_code: outcome.code, wall_s: Math.round(wallS / ran),
      ...(outcome.position ? { position: outcome.position } : {}), ...(duration ? { duration } : {}) }
  : { status: 'failed', why: outcome.why })

/** A target's heap per node as it said of itself: "1 GB" (each node alike), "1 GB, 2 GB" (not), or unknown. */
function heapOf (record) {
  const heaps = record && record.node_list ? [...new Set(record.node_list.map((n) => n.heap_max_bytes))] : []
  if (heaps.length === 0 || heaps.some((h) => !(h > 0))) return 'unknown'
  return heaps.map((h) => `${fmt(round(h / 1024 ** 3, 2))} GB`).join(', ')
}

/** What differs between the contenders as they were started: "version: a 6.4.2, b 6.4.3", one line a key. */
function differencesOf (contenders, records) {
  const valueOf = {
    version: (c) => (records[c.name] && records[c.name].version) ?? c.version ?? c.tarball,
    build: (c) => (records[c.name] && records[c.name].build_hash) ?? null,
    distribution: (c) => (records[c.name] && records[c.name].distribution && records[c.name].distribution.sha256) ??
      c.tarball ?? c.version,
    hosts: (c) => (c.target ? c.target.hosts.join(' ') : 'this machine'),
    nodes: (c) => (records[c.name] && records[c.name].kind === 'target' ? records[c.name].nodes : c.nodes),
    heap: (c) => (c.target ? heapOf(records[c.name]) : c.heap),
    settings: (c) => (c.settings && c.settings.length ? c.settings.join(', ') : c.target ? 'as the cluster has them'
      : 'none')
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
 * compare's figures of the first contender against each of the others, paired by fork (the forks where both have a
 * result; `forks`: their states, a fork that failed left out). DIR/comparison.json and comparison.html (one page a
 * pair beyond the first: comparison-<name>.html), each headed by what was measured, what differs, the calibration;
 * every warning on the terminal too. Returns the comparisons (the calibration's own when `calibrationOf`).
 */
function compareContenders (config, { dir = config.out, contenders = config.study.contenders, forks = null, stderr,
  warnings = [], calibration = null, calibrationOf = false, stop = null, runLength = null }) {
  const records = Object.fromEntries(contenders.map((c) => [c.name,
    partResult(forkPath(dir, `1-${c.name}`, '-cluster-record.json'))]))
  const measured = config.file ? measuredHeader(config, Object.values(records)) : null
  const differences = differencesOf(contenders, records)
  const [base, ...others] = contenders
  const comparisons = others.map((other) => {
    const paired = pairedForks(dir, [base.name, other.name], forks)
    const comparison = compareRuns(paired.map((f) => resultOf(dir, f, base.name)),
      paired.map((f) => resultOf(dir, f, other.name)), { paired: true, baseNames: paired.map((f) =>
        `${base.name} fork ${f}`), newNames: paired.map((f) => `${other.name} fork ${f}`) })
    return { base: base.name, new: other.name, forks: paired, ...comparison }
  })
  const results = contenders.flatMap((c) => pairedForks(dir, [c.name], forks).map((f) => resultOf(dir, f, c.name)))
  const partial = results.filter((r) => r.partial)
  const notes = [...warnings, ...partial.map((r) => `a partial run is compared: ${r.options && r.options.run_id
    ? r.options.run_id : 'a fork'} ended early (${(r.partial_reasons || []).join('; ') || 'partial'})`),
  ...comparisons.filter((c) => c.busy).map((c) => busyText(c.busy).trim()),
  ...(config.study.duet ? duetNotes(dir, contenders, results, pairedForks(dir, contenders.map((c) => c.name), forks))
    : [])]
  const coarse = coarseCpuNote(results)
  if (coarse) notes.push(coarse)
  const calibrated = calibration ? calibrationLine(calibration, config.study) : null
  const stopping = stoppingOf(config.study, forks, stop)
  const position = config.study.duet ? positionOf(dir, contenders, forks) : null
  if (position && position.warning) notes.push(position.warning)
  replaceFile(path.join(dir, 'comparison.json'), `${JSON.stringify({ measured, differences, contenders,
    forks: comparisons.length ? comparisons[0].forks.length : 0, mode: config.study.duet ? 'duet' : 'paired',
    stopping, ...(position ? { position } : {}), ...(runLength ? { run_length: runLength } : {}),
    calibration: calibration ? { comparisons: calibration, line: calibrated } : null, comparisons, warnings: notes },
  null, 1)}\n`)
  const headerLines = [...(measured ? measuredLines(measured) : []), ...differences.map((d) => `differs: ${d}`),
    ...(calibrated ? [calibrated] : []), stopping.line, ...(runLength ? [`runs: ${runLength.line}`] : []),
    ...(position ? [position.line] : [])]
  // Forwarded: files named from the page's own folder, never by this machine's paths.
  comparisons.forEach((c, i) => replaceFile(path.join(dir, i === 0 ? 'comparison.html'
    : `comparison-${c.new}.html`), relativePaths(renderCompareHtml(c, { title: `${c.new} against ${c.base}` +
    `${calibrationOf ? ' (calibration: the same cluster twice)' : ''}`, headerLines, notes }), dir,
  { files: [config.file] })))
  if (measured && !calibrationOf) for (const line of measuredLines(measured)) stderr.write(`${line}\n`)
  if (!calibrationOf) for (const d of differences) stderr.write(`differs: ${d}\n`)
  if (calibrated) stderr.write(`${calibrated}\n`)
  stderr.write(`${stopping.line}\n`)
  if (position) stderr.write(`${position.line}\n`)
  for (const c of comparisons) {
    stderr.write(`${c.new} against ${c.base} (${c.forks.length} fork${c.forks.length === 1 ? '' : 's'}; ` +
      `${c.judged ? c.method : 'fewer than 3 forks: not judged'}):\n`)
    for (const f of c.figures.filter((x) => x.of !== 'client')) {
      const change = f.change_pct === null ? 'no change in %' : `${f.change_pct > 0 ? '+' : ''}${fmt(f.change_pct)}%`
      stderr.write(`  ${f.figure}: ${fmt(f.base)} -> ${fmt(f.new)} (${change}${f.ci_pct ? `, 95% interval ` +
        `${rangeText(f.ci_pct)}` : ''}): ${verdictText(f)}\n`)
    }
  }
  for (const note of notes) stderr.write(`warning: ${note.replace(/^warning: /, '')}\n`)
  stderr.write(`wrote ${path.join(dir, 'comparison.json')} and comparison.html\n`)
  return comparisons
}

module.exports = { runComparison, compareContenders, differencesOf, forkState }
