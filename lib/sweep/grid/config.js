'use strict'

const path = require('node:path')
const { UsageError, keyedAs } = require('../../base/errors')
const { fmt } = require('../../base/format')
const { parsePercent } = require('../../base/values')
const { checkBenchmarkOptions, AFTER_DASH, APP_OF } = require('../benchmark-run')
const { budgetSeconds } = require('../budget')
const { parseSlo } = require('../slo')
const { parseVary } = require('./plan')
const { DEFAULT_PLATEAU_PCT } = require('./analysis')
const { studyBenchmarkOptions } = require('../study-cluster')
const { BenchmarkOptions } = require('../../cli/benchmark-options')

// A grid as a value: what `crate-bench sweep grid` is asked, from an object (its flags, or a study's grid:), each
// value checked here once, an error naming its key as the caller names it (--repeat on the command line, grid.repeat
// in a study file). The command parses flags into this object; a study builds it; runGrid takes what it returns.

// Runs a grid may plan (cells × repeat), checked before a cell is built: a typo of a value list or of the repeat
// would otherwise fill the memory before the first run.
const MAX_RUNS = 10_000
// The grid's own options: given among the benchmark's they would reach it, which takes none of them.
const OWN = ['vary', 'workload', 'repeat', 'slo', 'plateau_pct', 'out', 'precision', 'budget', 'warmup_run']
// A race's rounds before its first drop, unless the repeat says otherwise: three runs a cell give a first interval.
const RACE_MIN_ROUNDS = 3

/**
 * @typedef {object} GridSpec what a grid is asked (every key optional but vary)
 * @property {(string|{name: string, values: string[]})[]} vary NAME=V1,V2,… (or { name, values }) two or more times
 * @property {string} [workload] ingest (default) or query
 * @property {string|number} [repeat] runs a cell (a race: the rounds before a drop)
 * @property {string} [slo] p99=DURATION
 * @property {string|number} [plateauPct]
 * @property {string} [out] the grid's folder
 * @property {string|number} [prefill] rows filled once, before the first cell
 * @property {string} [precision] a race's precision (5%)
 * @property {string} [budget] a race's budget (30m)
 * @property {boolean} [warmupRun] a warm-up run before the first (default: with repeats or a race)
 * @property {string[]|BenchmarkOptions} [benchmark] the benchmark's options, given to every run
 */

/**
 * The grid of `spec`, checked: { vary, workload, repeat, target, sloP99Ms, plateauPct, out, fixed, cluster, race,
 * warmupRun }. `keyOf(name)` names a key in an error ('--repeat', 'grid.repeat'); `benchmarkKey` the benchmark's
 * options, and `ownPlace` where a grid's own option goes.
 */
function gridConfig (spec, { keyOf = (name) => `--${name}`, benchmarkKey = AFTER_DASH,
  ownPlace = () => "put it before '--'" } = {}) {
  const keyed = (name, check) => keyedAs(name, keyOf, check)
  const { options: given, cluster } = studyBenchmarkOptions(spec.benchmark ?? [])
  const vary = keyed('vary', () => parseVary(spec.vary ?? []))
  const workload = spec.workload ?? 'ingest'
  if (!['ingest', 'query'].includes(workload)) {
    throw new UsageError(`${keyOf('workload')} must be ingest or query (got '${workload}')`)
  }
  if (spec.repeat !== undefined && !/^[1-9][0-9]*$/.test(String(spec.repeat))) {
    throw new UsageError(`${keyOf('repeat')} must be a whole number of at least 1, not '${spec.repeat}'`)
  }
  const plateauPct = spec.plateauPct === undefined ? DEFAULT_PLATEAU_PCT : Number(spec.plateauPct)
  if (!(plateauPct >= 0 && plateauPct < 100)) {
    throw new UsageError(`${keyOf('plateau_pct')} must be a percentage from 0 to below 100 (got '${spec.plateauPct}')`)
  }
  for (const name of given.names) {
    if (name === 'json') throw new UsageError('--json is added by the grid; leave it out')
    const own = OWN.find((o) => name === o)
    if (own) throw new UsageError(`--${own} is a grid option: ${ownPlace(own)}`)
    const varied = vary.find((d) => name === d.name)
    if (varied) {
      throw new UsageError(`--${varied.name} is a dimension of the grid: give its values with ${keyOf('vary')}`)
    }
  }
  if (spec.out !== undefined && String(spec.out).trim() === '') {
    throw new UsageError(`${keyOf('out')} must name a folder for the study (got '')`)
  }
  const race = raceOf(spec, keyed)
  const repeat = spec.repeat === undefined ? (race ? RACE_MIN_ROUNDS : 1) : Number(spec.repeat)
  if (race) race.minRounds = repeat
  const cellCount = vary.reduce((n, d) => n * d.values.length, 1)
  if (cellCount * repeat > MAX_RUNS) {
    throw new UsageError(`a grid of ${fmt(cellCount)} cells × ${fmt(repeat)} run${repeat === 1 ? '' : 's'} is ` +
      `${fmt(cellCount * repeat)} runs, more than the ${fmt(MAX_RUNS)} a study may plan: vary fewer values or ` +
      'repeat less')
  }
  const fixed = given.plus(prefillFlags(spec.prefill, workload, given, keyOf)).withDefaultWarmup()
  const first = Object.fromEntries(vary.map((d) => [d.name, d.values[0]]))
  const { connection } = checkBenchmarkOptions(APP_OF[workload], fixed.plus(BenchmarkOptions.of(first)).toArgv(),
    { named: benchmarkKey })
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\..*/, '').replace('T', '-')
  return {
    vary,
    workload,
    repeat,
    // What the study measures: a resume must point at the same cluster.
    target: { hosts: connection.hosts.map((h) => `${h.protocol}://${h.hostname}:${h.port}`),
      protocol: connection.protocol ?? 'http' },
    sloP99Ms: spec.slo === undefined || spec.slo === null ? null : keyed('slo', () => parseSlo(spec.slo)),
    plateauPct,
    out: spec.out ?? path.join('sweep-results', `grid-${stamp}`),
    fixed,
    cluster,
    race,
    // Runs compared across rounds (or raced) start after a warm-up run; one exploring run a cell does not.
    warmupRun: spec.warmupRun ?? (race !== null || repeat > 1)
  }
}

/** A precision and a budget: a race ({ precisionPct, budgetS, minRounds }), or null for a grid of fixed rounds. */
function raceOf (spec, keyed) {
  const given = (v) => v !== undefined && v !== null
  if (!given(spec.precision) && !given(spec.budget)) return null
  const precisionPct = given(spec.precision) ? keyed('precision', () => parsePercent(spec.precision, 'precision',
    { max: 50 })) : null
  return { precisionPct, budgetS: keyed('budget', () => budgetSeconds(spec.budget ?? undefined)),
    minRounds: RACE_MIN_ROUNDS }
}

/**
 * A prefill of ROWS: the table filled once, by the first run, and every cell run on it: each run is given `--prefill
 * ROWS` (which fills only what is missing) and `--no-drop_table` (a cell never drops the filled table; cells append,
 * and grid.json's table_at_start shows the size each found).
 */
function prefillFlags (rows, workload, given, keyOf) {
  if (rows === undefined || rows === null) return []
  if (workload !== 'ingest') {
    throw new UsageError(`${keyOf('prefill')} fills the ingest's table: it goes with ${keyOf('workload')} ingest`)
  }
  if (['drop_table', 'no-drop_table', 'prefill'].some((flag) => given.has(flag))) {
    throw new UsageError(`${keyOf('prefill')} of the grid sets --prefill and --no-drop_table of every run: leave ` +
      'them out of the benchmark options')
  }
  return ['--prefill', String(rows), '--no-drop_table']
}

module.exports = { gridConfig, RACE_MIN_ROUNDS, OWN }
