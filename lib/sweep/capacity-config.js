'use strict'

const path = require('node:path')
const { UsageError, keyedAs } = require('../base/errors')
const { parseDuration } = require('../base/values')
const { checkBenchmarkOptions, AFTER_DASH, APP_OF } = require('./benchmark-run')
const { studyBenchmarkOptions } = require('./study-cluster')
const { parseSlo } = require('./slo')

// A capacity search as a value: what find-capacity is asked, from an object (its flags, or a study's mixed:), each
// value checked here once, an error naming its key as the caller names it (--max_steps on the command line,
// mixed.max_steps in a study file). The command parses flags into this object; a study builds it; runCapacity takes
// what it returns.

// Set by the search in every step: never among the benchmark's options.
const ADDED = ['--rate', '--duration', '--warmup', '--json', '--ingest_rate']
// The first rate of a search, by workload, when none is given.
const DEFAULT_START = { ingest: 10_000, query: 50, mixed: 1000 }
const DEFAULTS = { workload: 'ingest', max_failed: 0, precision: '5%', duration: '30s', warmup: '10s',
  min_achieved_pct: 99, max_steps: 30, edge_repeat: 3, client_check: true }

/**
 * The rate flags of a step at `rate`: the benchmark's --rate (and the fixed --ingest_rate beside a query search), or
 * for a mixed search the fixed --rate of the queries and the searched --ingest_rate beside them.
 */
function rateFlags (workload, rate, ingestRate, queryRate) {
  if (workload === 'mixed') return ['--rate', String(queryRate), '--ingest_rate', String(rate)]
  return ['--rate', String(rate), ...(ingestRate ? ['--ingest_rate', String(ingestRate)] : [])]
}

/**
 * @typedef {object} CapacitySpec what a capacity search is asked, by the names of its flags (all optional but slo)
 * @property {string} slo p99=DURATION
 * @property {string} [workload] ingest, query or mixed
 * @property {number|string} [ingest_rate] [query_rate] [max_failed] [start] [min_achieved_pct] [max_steps]
 *   [edge_repeat]
 * @property {string} [precision] [duration] [warmup] [out]
 * @property {boolean} [client_check]
 * @property {string[]|BenchmarkOptions} [benchmark] the benchmark's options, given to every step (held as a
 *   BenchmarkOptions in the configuration)
 */

/**
 * The search of `spec`, checked. `keyOf(name)` names a key in an error ('--max_steps', 'mixed.max_steps');
 * `benchmarkKey` the benchmark's options.
 */
function capacityConfig (spec, { keyOf = (name) => `--${name}`, benchmarkKey = AFTER_DASH } = {}) {
  const given = Object.entries(spec).filter(([, v]) => v !== undefined && v !== null)
  const s = { ...DEFAULTS, ...Object.fromEntries(given) }
  const k = keyOf
  const rekeyed = (name, check) => keyedAs(name, keyOf, check)
  if (s.slo === undefined) throw new UsageError(`give ${k('slo')} (the latency target: p99=200ms)`)
  const sloP99Ms = rekeyed('slo', () => parseSlo(s.slo))
  if (!APP_OF[s.workload]) throw new UsageError(`${k('workload')} must be ingest, query or mixed (got '${s.workload}')`)
  const precision = /^(\d+(?:\.\d+)?)%?$/.exec(String(s.precision).trim())
  if (!precision || !(Number(precision[1]) > 0)) {
    throw new UsageError(`${k('precision')} must be a percentage such as 5% (got '${s.precision}')`)
  }
  const number = (name) => (s[name] === undefined ? undefined : Number(s[name]))
  const [ingestRate, queryRate, start, maxSteps, maxFailed, minAchievedPct, edgeRepeat] = ['ingest_rate', 'query_rate',
    'start', 'max_steps', 'max_failed', 'min_achieved_pct', 'edge_repeat'].map(number)
  if (ingestRate !== undefined && s.workload !== 'query') {
    throw new UsageError(s.workload === 'mixed' ? `${k('workload')} mixed searches the ingest's rate: give the ` +
      `queries' rate with ${k('query_rate')}, not ${k('ingest_rate')}` : `${k('ingest_rate')} goes with ` +
      `${k('workload')} query`)
  }
  if ((queryRate !== undefined) !== (s.workload === 'mixed')) {
    throw new UsageError(`${k('workload')} mixed and ${k('query_rate')} go together (the queries/s held while the ` +
      'ingest beside them is searched)')
  }
  const { options: benchmark, cluster } = studyBenchmarkOptions(s.benchmark ?? [])
  const added = ADDED.find((flag) => benchmark.has(flag.slice(2)))
  if (added) throw new UsageError(`${added} is set by find-capacity; leave it out of the benchmark options`)
  for (const [name, value] of [['start', start], ['ingest_rate', ingestRate], ['query_rate', queryRate],
    ['max_steps', maxSteps]]) {
    if (value !== undefined && !(value > 0)) throw new UsageError(`${k(name)} must be positive (got '${s[name]}')`)
  }
  if (!(Number.isSafeInteger(maxFailed) && maxFailed >= 0)) {
    throw new UsageError(`${k('max_failed')} must be a whole number >= 0 (got '${s.max_failed}')`)
  }
  if (!(minAchievedPct > 0 && minAchievedPct <= 100)) {
    throw new UsageError(`${k('min_achieved_pct')} must be above 0 and at most 100 (got '${s.min_achieved_pct}')`)
  }
  if (!(Number.isSafeInteger(edgeRepeat) && edgeRepeat >= 1 && edgeRepeat <= 10)) {
    throw new UsageError(`${k('edge_repeat')} must be a whole number from 1 to 10 (got '${s.edge_repeat}')`)
  }
  if (!Number.isSafeInteger(maxSteps)) {
    throw new UsageError(`${k('max_steps')} must be a whole number (got '${s.max_steps}')`)
  }
  // The first step's options, checked before anything is made.
  const first = start ?? DEFAULT_START[s.workload]
  const durationMs = rekeyed('duration', () => parseDuration(s.duration, 'duration'))
  const warmupMs = rekeyed('warmup', () => parseDuration(s.warmup, 'warmup'))
  checkBenchmarkOptions(APP_OF[s.workload], benchmark.plus([...rateFlags(s.workload, first, ingestRate ?? null,
    queryRate ?? null), '--duration', String(s.duration), '--warmup', String(s.warmup)]).toArgv(),
  { named: benchmarkKey })
  return {
    sloP99Ms,
    workload: s.workload,
    ingestRate: ingestRate ?? null,
    queryRate: queryRate ?? null,
    maxFailed,
    start: first,
    precisionPct: Number(precision[1]),
    durationMs,
    warmupMs,
    minAchievedPct,
    maxSteps,
    edgeRepeat,
    clientCheck: s.client_check !== false,
    out: s.out ?? path.join('capacity-results', new Date().toISOString().replace(/[-:]/g, '').replace(/\..*/, '')),
    benchmark,
    cluster
  }
}

module.exports = { capacityConfig, rateFlags, DEFAULTS, DEFAULT_START }
