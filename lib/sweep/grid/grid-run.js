'use strict'

// A grid run (what `crate-bench sweep grid` runs, and a study's grid): every cell of its configuration (config.js) a
// run of the benchmark as a child process with --json, repeats in rounds over the whole grid or raced; grid.json
// written after every run, so that the same configuration resumes where a stopped one left. Returns the grid's model
// as the report renders it, never a file read back.

const fs = require('node:fs')
const path = require('node:path')
const { EXIT, UsageError } = require('../../base/errors')
const { redact } = require('../../base/secrets')
const { visible } = require('../../base/format')
const { formatMs } = require('../../base/values')
const { runBenchmark, noWarmupNote } = require('../benchmark-run')
const { cellsOf, runsLeft } = require('./plan')
const { cellFigures, asPoint } = require('./analysis')
const { nothingClean } = require('../sweep')
const { CellRun } = require('./cell-run')
const { roundSteps, raceSteps } = require('./steps')
const { gridOf } = require('./model')
const { gridText, gridJson, unitUnnamed } = require('./report')
const { heatmapSvg } = require('./heatmap')
const { gridHtml } = require('./page')
const { relativePaths } = require('../../reports/html/relative-paths')
const { takeLock, readGridFile, otherCluster } = require('./folder')
const { withStudyCluster } = require('../study-cluster')

const NAME = 'crate-bench sweep grid'

/** What makes two grids the same study: a resume must not mix runs of other settings into one grid. */
function headerOf (config) {
  return {
    kind: 'crate-bench grid',
    workload: config.workload,
    vary: config.vary,
    repeat: config.repeat,
    // The benchmark options with any password masked (user:***@host): grid.json keeps no secret, not even a digest.
    fixed_text: redact(visible(config.fixed.toArgv().join(' '))),
    slo_p99_ms: config.sloP99Ms,
    plateau_pct: config.plateauPct,
    // The hosts and protocol the options point at, and the nodes its first run found (a resume must match them).
    cluster: { ...config.target, nodes: null },
    // A race's rule (a resume may give it more budget or another precision: the runs stand either way).
    race: config.race ? { precision_pct: config.race.precisionPct, budget_s: config.race.budgetS,
      min_rounds: config.race.minRounds } : null
  }
}

const SAME_STUDY = ['kind', 'workload', 'vary', 'repeat', 'fixed_text']

/**
 * The runs recorded in DIR/grid.json, by cell, and the cluster the study measured; refuses a grid of other settings
 * or of another cluster. Empty for a new DIR.
 */
function recordedRuns (file, header) {
  const byCell = new Map()
  const saved = readGridFile(file, { repeat: header.repeat })
  if (saved === null) return { byCell, cluster: null, warmupRun: null }
  const differs = SAME_STUDY.find((key) => JSON.stringify(saved[key]) !== JSON.stringify(header[key]))
  if (differs) {
    throw new UsageError(`${file} holds a grid of other settings (its ${differs === 'fixed_text'
      ? 'benchmark options' : differs} differ): give another --out, or the same settings to resume`)
  }
  const other = otherCluster(saved.cluster, header.cluster)
  if (other) throw new UsageError(`${file}: ${other}: a study is one cluster; give another --out`)
  if (Boolean(saved.race) !== Boolean(header.race)) {
    throw new UsageError(`${file} holds a ${saved.race ? 'race' : 'grid of fixed rounds'}: give ${saved.race
      ? '--precision or --budget' : 'neither --precision nor --budget'} to resume it, or another --out`)
  }
  for (const cell of saved.cells || []) byCell.set(cell.id, (cell.runs || []).map(unitUnnamed))
  return { byCell, cluster: saved.cluster || null, warmupRun: saved.warmup_run ?? null }
}

/** Writes grid.json (and, `final`, its heatmap and page); returns what grid.json holds (gridJson). */
function writeGrid (out, grid, { final = false } = {}) {
  const file = path.join(out, 'grid.json')
  const model = gridJson(grid)
  fs.writeFileSync(`${file}.tmp`, `${JSON.stringify(model, null, 1)}\n`)
  // Renamed into place: a run stopped while writing leaves the last whole grid.json.
  fs.renameSync(`${file}.tmp`, file)
  if (final) {
    fs.writeFileSync(path.join(out, 'grid.svg'), heatmapSvg(grid))
    fs.writeFileSync(path.join(out, 'grid.html'), relativePaths(gridHtml(grid), out))
  }
  return model
}


/**
 * The grid of `config` (config.js gridConfig) in its folder, its lock held (and its cluster started, when its options
 * start one): { code, grid }, `grid` the grid's model as grid.json holds it (gridJson) when a run was recorded, else
 * null. What the command runs, and a study.
 */
async function runGrid (config, options) {
  const { stderr, signals, now = Date.now, processAlive } = options
  const run = options.run ?? runBenchmark
  fs.mkdirSync(path.join(config.out, 'runs'), { recursive: true })
  const release = takeLock(config.out, { said: (line) => stderr.write(`${line}\n`), alive: processAlive })
  try {
    return await withStudyCluster(config.cluster, { stderr, signals, run, out: config.out },
      (studyRun) => studyLocked(config, { stderr, signals, now, run: studyRun }))
  } finally {
    release()
  }
}

async function studyLocked (config, { stderr, signals, run, now, random }) {
  const header = headerOf(config)
  const file = path.join(config.out, 'grid.json')
  const { byCell, cluster, warmupRun } = recordedRuns(file, header)
  // The nodes the study's first run found, once known: every later run must find as many.
  header.cluster = { ...header.cluster, nodes: cluster ? cluster.nodes ?? null : null }
  const cells = cellsOf(config.vary)
  const done = new Set([...byCell].flatMap(([id, runs]) => runs.map((r) => `${id}#${r.round}`)))
  const state = { warmup_run: warmupRun, race_stop: null }
  const gridNow = () => gridOf({ ...header, race_stop: state.race_stop }, (id) => byCell.get(id) || [],
    { warmupRun: state.warmup_run })
  const recorded = () => [...byCell.values()].flat()
  const race = config.race
  const steps = race
    ? raceSteps({ cellsNow: () => raceCells(cells, byCell), race, random,
      spentS: () => recorded().reduce((a, r) => a + (r.wall_s || 0), 0),
      walls: () => recorded().map((r) => r.wall_s).filter((w) => w > 0),
      stopped: (stop) => { state.race_stop = stop } })
    : roundSteps(cells, config.repeat, done)
  stderr.write(startLine(config, cells, header))
  const warmup = noWarmupNote(config.fixed)
  if (warmup) stderr.write(`${warmup}\n`)
  if (done.size > 0) {
    const cellsDone = cells.filter((c) => (byCell.get(c.id) || []).length >= config.repeat).length
    stderr.write(`resuming: ${race ? `${done.size} runs done` : `${cellsDone} of ${cells.length} cells done (` +
      `${done.size} of ${cells.length * config.repeat} runs); ${runsLeft(cells, config.repeat, done).length} left`}\n`)
  }
  const cellRun = new CellRun({ config, header, stderr, signals, run, now, cells })
  cellRun.left = race ? 0 : runsLeft(cells, config.repeat, done).length
  let total = done.size
  let first = true
  for (const step of steps) {
    if (first && config.warmupRun) {
      // Its own run, before the first measured one, never one of a cell's: a cold cluster's first minutes (its JIT,
      // its caches, its first segments) fall on no cell, and --repeat 3 is three measured runs.
      const outcome = await cellRun.warmUp(step.cell)
      if (outcome.interrupted) break
      if (outcome.code !== undefined) return stopped(outcome.code)
      state.warmup_run = outcome.warmup
    }
    first = false
    const outcome = await cellRun.measure(step)
    if (outcome.interrupted) break
    if (outcome.code !== undefined) return stopped(outcome.code)
    if (!byCell.has(step.cell.id)) byCell.set(step.cell.id, [])
    byCell.get(step.cell.id).push(outcome.figures)
    total++
    writeGrid(config.out, gridNow())
  }
  if (total === 0) {
    stderr.write(`${NAME}: interrupted before any run finished; nothing to report\n`)
    return { code: EXIT.PARTIAL, grid: null }
  }
  const grid = gridNow()
  const model = writeGrid(config.out, grid, { final: true })
  stderr.write(gridText(grid))
  stderr.write(`wrote ${path.join(config.out, 'grid.json')}, grid.svg, grid.html\n`)
  if (signals.interrupted || !grid.complete) return { code: EXIT.PARTIAL, grid: model }
  // A CI gate must not pass a cluster that stored nothing: every run failed or stored nothing is exit 1.
  const nothing = nothingClean(recorded().map(asPoint))
  if (nothing) stderr.write(`${NAME}: ${nothing}\n`)
  return { code: nothing ? EXIT.FAILURES : EXIT.OK, grid: model }

  /** A run that could not run: the grid of the runs recorded is written whole, the run's exit code returned. */
  function stopped (code) {
    return { code, grid: total > 0 ? writeGrid(config.out, gridNow(), { final: true }) : null }
  }
}

/** The grid's first line: its cells, how each is run, where the results go. */
function startLine (config, cells, header) {
  const shape = config.vary.map((d) => `${d.name} ${d.values.length}`).join(' × ')
  const race = config.race
  const how = race
    ? `racing: every cell once a round in a new order, a cell shown worse than the leader dropped from round ` +
      `${race.minRounds} on, until ${[race.precisionPct !== null ? `the leader's interval is within ±` +
      `${race.precisionPct}%` : null, 'one cell is left', race.budgetS !== null ? `${formatMs(race.budgetS * 1000)} ` +
      'of runs are spent' : null].filter(Boolean).join(', ')}`
    : `${config.repeat} run${config.repeat > 1 ? 's' : ''} a cell${config.repeat > 1 ? ' in rounds' : ''}`
  return `grid: ${cells.length} cells (${shape}), ${how}${config.warmupRun ? ', after a warm-up run' : ''}, ` +
    `${config.workload}${header.fixed_text ? ` with ${header.fixed_text}` : ''}; results in ${config.out}\n`
}

/** The cells as a race reads them: their runs so far and why one can never be best (failures, a saturated client). */
const raceCells = (cells, byCell) => cells.map((cell) => {
  const runs = byCell.get(cell.id) || []
  return { id: cell.id, settings: cell.settings, runs, excluded: runs.length ? cellFigures(cell, runs).excluded : null }
})

module.exports = { runGrid, NAME }
