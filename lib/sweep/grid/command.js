'use strict'

// crate-bench sweep grid (scripts/find-grid.sh): every cell of two or more varied settings, each a run of the benchmark
// as a child process with --json (as the sweeps take a step), repeats in rounds over the whole grid; grid.json written
// after every run, so that the same command resumes where a stopped one left.

const fs = require('node:fs')
const path = require('node:path')
const { EXIT, UsageError } = require('../../base/errors')
const { redact } = require('../../base/secrets')
const { visible, fmt } = require('../../base/format')
const { parsePercent, formatMs } = require('../../base/values')
const { commandParser } = require('../../cli/command-args')
const { runBenchmark, checkBenchmarkOptions, withDefaultWarmup, noWarmupNote, gives } = require('../benchmark-run')
const { runsCommand } = require('../runs-command')
const { parseSlo } = require('../slo')
const { parseVary, cellsOf, runsLeft, flagsOf, DIMENSIONS } = require('./plan')
const { cellFigures, asPoint, DEFAULT_PLATEAU_PCT } = require('./analysis')
const { nothingClean } = require('../sweep')
const { DEFAULT_BUDGET, budgetSeconds } = require('../budget')
const { CellRun, APPS } = require('./cell-run')
const { roundSteps, raceSteps } = require('./steps')
const { gridOf } = require('./model')
const { gridText, gridJson, unitUnnamed } = require('./report')
const { heatmapSvg } = require('./heatmap')
const { gridHtml } = require('./page')
const { relativePaths } = require('../../reports/html/relative-paths')
const { takeLock, readGridFile, otherCluster } = require('./folder')
const { studyBenchmarkArgs, withStudyCluster } = require('../study-cluster')

// Runs a grid may plan (cells × --repeat), checked before a cell is built: a typo of a value list or of --repeat
// would otherwise fill the memory before the first run.
const MAX_RUNS = 10_000

const NAME = 'crate-bench sweep grid'
// The grid's own options: given after '--' they would reach the benchmark, which takes none of them.
const OWN = ['vary', 'workload', 'repeat', 'slo', 'plateau_pct', 'out', 'precision', 'budget', 'warmup_run']
// A race's rounds before its first drop, unless --repeat says otherwise: three runs a cell give a first interval.
const RACE_MIN_ROUNDS = 3

const USAGE = `Usage: crate-bench sweep grid --vary NAME=V1,V2,… --vary NAME=V1,V2,… [options] [-- benchmark options]
   (or: scripts/find-grid.sh …)

Every cell of a grid of settings (Lindorm's batch size × workers table): one run of the benchmark per cell and
repeat, with its own warm-up, the benchmark options after '--' passed to every run. Repeats go in rounds over the
whole grid, so that a cluster that drifts spreads its drift over every cell. An ingest run re-creates its table (the
benchmark's default): every cell starts from the same state; grid.json keeps the table's size and segments at each
cell's start.

Options:
  --vary NAME=V1,V2,…    a dimension, given two or more times; NAME is one of
                         ${Object.keys(DIMENSIONS).join(', ')}
  --workload W           ingest (default) or query (appClusterAnalytical.js: pass --queries_config after '--')
  --repeat N             runs per cell, in rounds (default: 1, an exploration: its recommendation is UNTESTED
                         and sizes nothing; 3 gives each cell a 95% confidence interval: use it to size); in a
                         race, the rounds before a cell may be dropped (default: ${RACE_MIN_ROUNDS})
  --precision P%         race: rounds until the leading cell's 95% interval is within ±P% of its mean; after each
                         round from --repeat on, a cell shown worse than the leader (its runs against the leader's
                         of the same rounds) is dropped and the time goes to the others (budget: ${DEFAULT_BUDGET})
  --budget T             race: the time its runs may take (30m, 2h); with --precision or alone (then: until one
                         cell is left or T is spent)
  --no-warmup_run        no warm-up run: by default a grid of repeated runs (or a race) starts with a run of its
                         own, not measured, so that a cold cluster's first minutes fall on no cell
  --slo p99=DURATION     the latency target the recommended cell must meet (as find-capacity takes it)
  --plateau_pct PCT      the plateau is the cells within PCT percent of the best (default: ${DEFAULT_PLATEAU_PCT}); with
                         --repeat 3 or more, the cells whose 95% interval overlaps the best's
  --out DIR              where the grid goes (default: sweep-results/grid-<time>); the same command with the same
                         DIR resumes: only the runs left are run; one grid at a time a folder (a lock)
  --prefill ROWS         fill the table to ROWS rows once, before the first cell, and run every cell on it (cells
                         append; none drops it): figures on a table of realistic size, not an empty one
  -h, --help             this text

Writes DIR/grid.json after every run (the settings, every cell with its runs, median, spread, 95% interval, field
values/s, p50/p99, failed and in doubt, the busiest node's CPU and write queue, rejections; best, plateau,
recommended with the first neighbour that breaks; sentences), and at the end DIR/grid.svg (a heatmap) and
DIR/grid.html (heatmap, ridge, a chart per dimension); DIR/runs/ keeps each run's result and report. The best cell
is the fastest without failures, in-doubt rows or a saturated load generator; the recommended cell is the cheapest
of the plateau (fewest requests in flight, then smallest batch) within --slo: what to run in production. When the
runs cannot tell the cells apart there is none, and the grid says why (docs/sizing.md, "How much to trust a grid").
Each run of a --duration warms up first (a tenth of it, at least 5 s; --warmup after '--' wins, 0 turns it off).

Examples:
  crate-bench sweep grid --vary batch_size=100,500,2000,5000 --vary concurrent_requests=1,4,16,64 -- --duration 1m
  scripts/find-grid.sh --vary batch_size=1000,5000 --vary concurrent_requests=4,16 --repeat 3 --slo p99=500ms --out g
  crate-bench sweep grid --vary batch_size=1000,5000 --vary concurrent_requests=2,8 --precision 10% --budget 20m \\
    -- --duration 30s
  crate-bench sweep grid --workload query --vary concurrent_requests=1,4,16 --vary processes=1,2 -- \\
    --queries_config queries/cpu-dashboard.yml --duration 30s

Exit codes: 0 the grid finished (cells may have failures: that is data), 2 bad options or a --out holding another
grid, 3 the benchmark could not run, 4 interrupted (grid.json keeps the runs done; run the same command to resume).`

function parseArgs (argv) {
  const dash = argv.indexOf('--')
  const own = dash >= 0 ? argv.slice(0, dash) : argv
  const { args: fixed, cluster } = studyBenchmarkArgs(dash >= 0 ? argv.slice(dash + 1) : [])
  const text = { type: 'string', requiresArg: true }
  const parsed = commandParser(own, { benchmarkAfterDash: true })
    .options({ vary: text, workload: text, repeat: text, slo: text, plateau_pct: text, out: text, prefill: text,
      precision: text, budget: text, warmup_run: { type: 'boolean' } })
    .parseSync()
  if (parsed.help) return { help: true }
  if (parsed._.length > 0) {
    throw new UsageError(`unexpected argument '${parsed._[0]}' (benchmark options go after '--'; see --help)`)
  }
  // Given once or more: yargs gathers a repeated flag into a list (never greedy, as an array option would be).
  const vary = parseVary([parsed.vary ?? []].flat().map(String))
  const workload = parsed.workload ?? 'ingest'
  if (!APPS[workload]) throw new UsageError(`--workload must be ingest or query (got '${workload}')`)
  if (parsed.repeat !== undefined && !/^[1-9][0-9]*$/.test(parsed.repeat)) {
    throw new UsageError(`--repeat must be a whole number of at least 1, not '${parsed.repeat}'`)
  }
  const plateauPct = parsed.plateau_pct === undefined ? DEFAULT_PLATEAU_PCT : Number(parsed.plateau_pct)
  if (!(plateauPct >= 0 && plateauPct < 100)) {
    throw new UsageError(`--plateau_pct must be a percentage from 0 to below 100 (got '${parsed.plateau_pct}')`)
  }
  for (const arg of fixed) {
    const flag = arg.split('=')[0]
    if (flag === '--json') throw new UsageError('--json is added by the grid; leave it out')
    const own = OWN.find((o) => flag === `--${o}`)
    if (own) throw new UsageError(`--${own} is a grid option: put it before '--'`)
    const varied = vary.find((d) => flag === `--${d.name}`)
    if (varied) throw new UsageError(`--${varied.name} is a dimension of the grid: give its values with --vary`)
  }
  if (parsed.out !== undefined && String(parsed.out).trim() === '') {
    throw new UsageError('--out must name a folder for the study (got \'\')')
  }
  const race = raceOf(parsed)
  const repeat = parsed.repeat === undefined ? (race ? RACE_MIN_ROUNDS : 1) : Number(parsed.repeat)
  if (race) race.minRounds = repeat
  const cellCount = vary.reduce((n, d) => n * d.values.length, 1)
  if (cellCount * repeat > MAX_RUNS) {
    throw new UsageError(`a grid of ${fmt(cellCount)} cells × ${fmt(repeat)} run${repeat === 1 ? '' : 's'} is ` +
      `${fmt(cellCount * repeat)} runs, more than the ${fmt(MAX_RUNS)} a study may plan: vary fewer values or ` +
      'repeat less')
  }
  const benchmark = withDefaultWarmup([...fixed, ...prefillFlags(parsed.prefill, workload, fixed)])
  const first = Object.fromEntries(vary.map((d) => [d.name, d.values[0]]))
  const { connection } = checkBenchmarkOptions(APPS[workload], [...benchmark, ...flagsOf(first)])
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\..*/, '').replace('T', '-')
  return {
    vary,
    workload,
    repeat,
    // What the study measures: a resume must point at the same cluster.
    target: { hosts: connection.hosts.map((h) => `${h.protocol}://${h.hostname}:${h.port}`),
      protocol: connection.protocol ?? 'http' },
    sloP99Ms: parsed.slo === undefined ? null : parseSlo(parsed.slo),
    plateauPct,
    out: parsed.out ?? path.join('sweep-results', `grid-${stamp}`),
    fixed: benchmark,
    cluster,
    race,
    // Runs compared across rounds (or raced) start after a warm-up run; one exploring run a cell does not.
    warmupRun: parsed.warmup_run ?? (race !== null || repeat > 1)
  }
}

/** --precision and --budget: a race ({ precisionPct, budgetS }), or null for a grid of fixed rounds. */
function raceOf (parsed) {
  if (parsed.precision === undefined && parsed.budget === undefined) return null
  const precisionPct = parsed.precision === undefined ? null : parsePercent(parsed.precision, 'precision',
    { max: 50 })
  return { precisionPct, budgetS: budgetSeconds(parsed.budget), minRounds: RACE_MIN_ROUNDS }
}

/**
 * --prefill ROWS: the table filled once, by the first run, and every cell run on it: each run is given `--prefill
 * ROWS` (which fills only what is missing) and `--no-drop_table` (a cell never drops the filled table; cells append,
 * and grid.json's table_at_start shows the size each found).
 */
function prefillFlags (rows, workload, fixed) {
  if (rows === undefined) return []
  if (workload !== 'ingest') throw new UsageError('--prefill fills the ingest\'s table: it goes with --workload ingest')
  if (['drop_table', 'no-drop_table', 'prefill'].some((flag) => gives(fixed, flag))) {
    throw new UsageError('--prefill of the grid sets --prefill and --no-drop_table of every run: leave them out of ' +
      'the benchmark options')
  }
  return ['--prefill', String(rows), '--no-drop_table']
}

/** What makes two grids the same study: a resume must not mix runs of other settings into one grid. */
function headerOf (config) {
  return {
    kind: 'crate-bench grid',
    workload: config.workload,
    vary: config.vary,
    repeat: config.repeat,
    // The benchmark options with any password masked (user:***@host): grid.json keeps no secret, not even a digest.
    fixed_text: redact(visible(config.fixed.join(' '))),
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

function writeGrid (out, grid, { final = false } = {}) {
  const file = path.join(out, 'grid.json')
  fs.writeFileSync(`${file}.tmp`, `${JSON.stringify(gridJson(grid), null, 1)}\n`)
  // Renamed into place: a run stopped while writing leaves the last whole grid.json.
  fs.renameSync(`${file}.tmp`, file)
  if (final) {
    fs.writeFileSync(path.join(out, 'grid.svg'), heatmapSvg(grid))
    fs.writeFileSync(path.join(out, 'grid.html'), relativePaths(gridHtml(grid), out))
  }
}

/** Returns the exit code. `signals` emits 'interrupt' on Ctrl-C or SIGTERM (lib/cli/interrupts.js). */
async function main (argv, options = {}) {
  const { stdout = process.stdout, stderr = process.stderr, signals, run = runBenchmark, now = Date.now,
    processAlive } = options
  return runsCommand({ name: NAME, parse: () => parseArgs(argv), usage: () => `${USAGE}\n`, stdout, stderr,
    body: async (config) => (await runGrid(config, { stderr, signals, run, now, processAlive })).code })
}

/**
 * The grid of `config` (parseArgs) in its folder, its lock held (and its cluster started, when its options start one):
 * { code, grid }, `grid` what grid.json holds when a run was recorded, else null. What the command runs, and a study.
 */
async function runGrid (config, options) {
  const { stderr, signals, now = Date.now, processAlive } = options
  const run = options.run ?? runBenchmark
  fs.mkdirSync(path.join(config.out, 'runs'), { recursive: true })
  const release = takeLock(config.out, { said: (line) => stderr.write(`${line}\n`), alive: processAlive })
  try {
    const code = await withStudyCluster(config.cluster, { stderr, signals, run, out: config.out },
      (studyRun) => studyLocked(config, { stderr, signals, now, run: studyRun }))
    let grid = null
    try {
      grid = JSON.parse(fs.readFileSync(path.join(config.out, 'grid.json'), 'utf8'))
    } catch { /* no run recorded */ }
    return { code, grid }
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
    return EXIT.PARTIAL
  }
  const grid = gridNow()
  writeGrid(config.out, grid, { final: true })
  stderr.write(gridText(grid))
  stderr.write(`wrote ${path.join(config.out, 'grid.json')}, grid.svg, grid.html\n`)
  if (signals.interrupted || !grid.complete) return EXIT.PARTIAL
  // A CI gate must not pass a cluster that stored nothing: every run failed or stored nothing is exit 1.
  const nothing = nothingClean(recorded().map(asPoint))
  if (nothing) stderr.write(`${NAME}: ${nothing}\n`)
  return nothing ? EXIT.FAILURES : EXIT.OK

  /** A run that could not run: the grid of the runs recorded is written whole, the run's exit code returned. */
  function stopped (code) {
    if (total > 0) writeGrid(config.out, gridNow(), { final: true })
    return code
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

module.exports = { main, parseArgs, runGrid, USAGE }
