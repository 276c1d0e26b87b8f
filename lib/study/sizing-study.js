'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { EXIT } = require('../base/errors')
const { fmtWhole } = require('../base/format')
const { withRecordedCluster, ClusterStartError } = require('../provision/recorded-start')
const { withTarget } = require('./target-session')
const { runGrid } = require('../sweep/grid/grid-run')
const { unitUnnamed } = require('../sweep/grid/report')
const { runCapacity } = require('../sweep/capacity-run')
const { settingsText } = require('./configuration')
const { mixedConfigOf, sustainedArgs, tablesOnTarget } = require('./plan')
const { writeProgress, shapePlanS } = require('./progress')
const { minutes, timeLeftS } = require('../sweep/budget')
const { teeTo, studyRunOf, lostDuring, measured, runLine, partResult } = require('./parts')
const { writeSizing } = require('./report')
const { figureCellOf } = require('../reports/sizing/evidence')
const { shortSustainedNote } = require('../reports/sustained')

// A sizing study conducted: each shape's cluster started fresh in the study's folder, its grid, its mixed capacity and
// its sustained run at one configuration (the cell the grid's figure to plan with stands on: cellOf, with every option
// of the grid's args), each part through the same functions its command calls; only a benchmark run is a child
// process. A part that fails, or a node that dies during it, leaves its shape not done, with why; then the sizing of
// every shape done.

/**
 * A shape's parts, its cluster started (or a target brought up) before them and stopped after: { done } or { failed,
 * why } or { interrupted }.
 */
async function runShape (shape, context) {
  const log = (line) => context.stderr.write(`${line}\n`)
  // A shape half done is measured again from its start (a fresh cluster): nothing of an earlier try's runs is mixed in.
  fs.rmSync(shape.dir, { recursive: true, force: true })
  fs.mkdirSync(shape.dir, { recursive: true })
  const head = `[shape ${shape.index} of ${context.count}: ${shape.target ? shape.name
    : `${shape.nodes} node${shape.nodes === 1 ? '' : 's'}`}]`
  return (shape.target ? runTargetShape : runClusterShape)(shape, { ...context, log, head })
}

/** A shape of a cluster the study starts: started, recorded, its parts, stopped (its nodes' logs kept). */
async function runClusterShape (shape, context) {
  const { out, stderr, signals, run, env, log, head, startCluster = withRecordedCluster } = context
  log(`${head} starting the cluster (its folder and logs: ${shape.cluster.dir})`)
  const stopped = (error) => log(error ? `${head} warning: stopping its cluster: ${error.message}`
    : `${head} its cluster stopped (its nodes' logs kept in ${shape.cluster.dir})`)
  try {
    return await startCluster(shape.cluster, { recordFile: path.join(shape.dir, 'cluster-record.json'),
      log: (line) => log(`  ${line}`), signals, env, keepLogs: true, stopped }, (started) => {
      const studyRun = studyRunOf(run, { out, recordFile: started.recordFile, stderr })
      const lost = (part) => lostDuring(started.target, part, { into: path.join(shape.dir, 'lost-nodes'), log,
        of: `the ${shape.name} shape's cluster` })
      return shapeParts(shape, { ...context, studyRun, lost })
    })
  } catch (error) {
    if (!(error instanceof ClusterStartError)) throw error
    if (signals.interrupted) return { interrupted: true }
    log(`${head} its cluster did not start: ${error.message}`)
    return { failed: true, why: `its cluster did not start: ${error.message}` }
  }
}

/**
 * A target's parts (a cluster of the user's own): its up: command, the wait until it answers with every node, its
 * record from sys.nodes, the parts, then its down: command however the shape ended. A target not reachable, or whose
 * nodes change during a part, is named and not sized.
 */
async function runTargetShape (shape, context) {
  const { out, stderr, signals, run, env, file, log, head } = context
  return withTarget(shape.target, { out, dir: shape.dir, cwd: path.dirname(file), env, signals, log, head,
    tables: tablesOnTarget(context.study, shape, env), keepTables: context.study.keep_tables,
    kept: context.keptTables,
    recordFile: path.join(shape.dir, 'cluster-record.json') }, ({ lost }) =>
    shapeParts(shape, { ...context, studyRun: studyRunOf(run, { out, recordFile: null, stderr }), lost }))
}

async function shapeParts (shape, { study, stderr, signals, env, head, log, studyRun, lost }) {
  const partStream = (part) => teeTo(stderr, path.join(shape.dir, `${part}.log`))
  log(`${head} grid`)
  const grid = await runGrid(shape.grid, { stderr: partStream('grid'), signals, run: studyRun })
  if (signals.interrupted) return { interrupted: true }
  const gridLost = await lost('grid')
  if (gridLost) return { failed: true, why: gridLost }
  if (!measured(grid.code, [EXIT.OK, EXIT.FAILURES])) {
    return { failed: true, why: `its grid could not run (exit ${grid.code})` }
  }
  const cell = cellOf(grid.grid)
  if (!cell && grid.grid && grid.grid.slo_unmet) {
    // Measured, and a finding: no settings meet the study's latency target. The sizing says so (no figure to plan
    // with, the nearest cell); the later parts would measure settings the study rules out.
    log(`${head} no cell of the grid met its SLO (${grid.grid.slo_unmet}): the later parts are not run`)
    return { done: true, settings: null }
  }
  if (!cell) {
    return { failed: true, why: 'its grid found no cell without failures: nothing to run the later parts at' }
  }
  log(`${head} the later parts run at the grid's ${cell.which} cell, with every option of grid.args: ` +
    `${[settingsText(cell.settings), ...study.grid.args].join(' ')}`)
  const settings = { cell: cell.which, ...cell.settings }
  if (study.mixed) {
    const start = mixedStart(study, cell)
    log(`${head} mixed capacity${start.start ? `, from ${fmtWhole(start.start)} rows/s (${start.from})` : ''}`)
    const mixed = await runCapacity(mixedConfigOf(study, shape, cell.settings, env, { start: start.start }),
      { stderr: partStream('mixed'), signals, run: studyRun })
    if (signals.interrupted) return { interrupted: true }
    const mixedLost = await lost('mixed capacity')
    if (mixedLost) return { failed: true, why: mixedLost }
    // No capacity within the SLO (exit 1) is a finding; a search that could not run is not.
    if (!measured(mixed.code, [EXIT.OK, EXIT.FAILURES])) {
      return { failed: true, why: `its mixed capacity search could not run (exit ${mixed.code})` }
    }
  }
  if (study.sustained) {
    log(`${head} sustained run (${study.sustained.duration})`)
    const resultFile = path.join(shape.dir, 'sustained.json')
    const { code, signal } = await studyRun({ app: 'appClusterIngest.js', what: `${shape.name} sustained`,
      args: sustainedArgs(study, shape, cell.settings, env), resultFile, logFile: path.join(shape.dir,
        'sustained.log'), signals })
    if (signals.interrupted) return { interrupted: true }
    const sustainedLost = await lost('sustained run')
    if (sustainedLost) return { failed: true, why: sustainedLost }
    log(`${head} sustained: ${runLine(partResult(resultFile), code ?? signal)}`)
    if (signal || !measured(code, [EXIT.OK, EXIT.FAILURES, EXIT.THRESHOLDS])) {
      return { failed: true, why: `its sustained run could not run (${signal ? `ended by ${signal}` : `exit ${code}`}` +
        `; its report: ${path.join(shape.dir, 'sustained.log')})` }
    }
  }
  return { done: true, settings }
}

/**
 * The cell the later parts run at: the one the grid's figure to plan with stands on, by the rule the sizing reads a
 * grid with (reports/sizing/evidence.js figureCellOf): its recommended cell, else the best-bounded of the cells
 * equivalent within noise, else its fastest within the SLO; never a cell over it. Null when no cell meets it.
 */
function cellOf (grid) {
  if (!grid) return null
  const figure = figureCellOf(grid)
  if (!figure) return null
  // grid.json names a cell's rate by its unit (rows_per_sec): read back as the analysis reads it.
  const found = (grid.cells || []).find((c) => c.id === figure.cell.id)
  const perSec = found ? unitUnnamed(found).per_sec ?? null : null
  const which = {
    recommended: figure.cell.untested ? 'recommended (untested: one run a cell)' : 'recommended',
    'best-bounded equivalent': 'best bounded of the cells equivalent within noise',
    best: grid.slo_p99_ms == null ? 'best (the grid recommended none)'
      : 'fastest within the SLO (the grid recommended none)',
    'fastest within its SLO': 'fastest within the SLO (the grid recommended none)'
  }[figure.which]
  return { settings: figure.cell.settings, per_sec: perSec, which }
}

/**
 * Where the mixed capacity search starts: the study file's `start:`, else a quarter of the write-only rate its cell
 * measured (the ingest beside a query mix holds less than alone: doublings from there reach it in two steps, where
 * doublings from 1,000 rows/s took four of six), else the search's own default.
 */
function mixedStart (study, cell) {
  if (study.mixed.start) return { start: study.mixed.start, from: 'the study file' }
  if (cell.per_sec > 0) {
    return { start: Math.max(1, Math.round(cell.per_sec / 4)), from: `a quarter of the cell's ` +
      `${fmtWhole(cell.per_sec)} rows/s write-only` }
  }
  return { start: null, from: 'the search\'s default' }
}

/** Every shape not done, in turn; then the sizing of the shapes done. Returns the exit code. */
async function runSizingStudy (config, progress, { stderr, signals, run, env, startCluster }) {
  const { study, shapes, out } = config
  const file = path.join(out, 'study.json')
  const left = shapes.filter((s) => !(progress.shapes[s.key] && progress.shapes[s.key].status === 'done'))
  const planS = shapePlanS(study)
  const walls = []
  const nodesText = (s) => `${s.nodes} node${s.nodes === 1 ? '' : 's'}`
  const what = study.targets
    ? `${shapes.map((s) => `${s.name}: ${nodesText(s)}`).join(', ')}) of clusters of your own (targets:)`
    : `${shapes.map(nodesText).join(', ')}) of CrateDB ${study.cluster.version ?? study.cluster.tarball}`
  stderr.write(`study: ${shapes.length} shape${shapes.length === 1 ? '' : 's'} (${what}; ` +
    `${left.length < shapes.length ? `resuming: ${shapes.length - left.length} done, ` : ''}` +
    `${left.length} to run, about ${minutes(planS * left.length)}; results in ${out}\n`)
  // Said before anything starts: a sustained run too short to hold anything is measured all the same.
  const short = study.sustained ? shortSustainedNote(study.sustained.duration) : null
  if (short) stderr.write(`${short}\n`)
  const failed = []
  for (const [i, shape] of left.entries()) {
    if (i > 0) stderr.write(`about ${minutes(timeLeftS(left.length - i, walls, planS))} left\n`)
    const began = Date.now()
    progress.shapes[shape.key] = { status: 'started', started_at: new Date().toISOString() }
    writeProgress(file, progress)
    const outcome = await runShape(shape, { study, out, stderr, signals, run, env, count: shapes.length, startCluster,
      file: config.file, keptTables: config.keptTables })
    if (outcome.interrupted) {
      stderr.write(`interrupted: ${shape.name} is not counted; the same command runs it again, from a fresh ` +
        'cluster\n')
      return EXIT.PARTIAL
    }
    walls.push((Date.now() - began) / 1000)
    progress.shapes[shape.key] = outcome.done
      ? { status: 'done', finished_at: new Date().toISOString(), settings: outcome.settings }
      : { status: 'failed', why: outcome.why }
    if (outcome.failed) failed.push(`${shape.name}: ${outcome.why}`)
    writeProgress(file, progress)
  }
  const done = shapes.filter((s) => progress.shapes[s.key] && progress.shapes[s.key].status === 'done')
  const warnings = failed.map((f) => `shape ${f} (not sized; the same command runs it again)`)
  const sized = done.length ? writeSizing(config, done, { stderr, warnings }) : EXIT.CANNOT_RUN
  if (done.length === 0) {
    for (const w of warnings) stderr.write(`warning: ${w}\n`)
    return EXIT.CANNOT_RUN
  }
  return failed.length ? EXIT.PARTIAL : sized
}

module.exports = { runSizingStudy, runShape, cellOf, mixedStart }
