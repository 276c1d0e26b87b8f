'use strict'

const path = require('node:path')
const { parseTableName } = require('../data/schema')
const { requirePositiveInteger, requireConcurrency, parseDuration, countLimit } = require('../base/values')
const { parseRateText } = require('../data/load-profile')
const { parseReplicas } = require('../data/schema')
const { UsageError, FatalError } = require('../base/errors')
const { prefillRows } = require('./prefill')
const { loadQueryConfig, bindTable, foreignTableWarnings } = require('../data/query-config')
const { compileArgs } = require('../data/generators/query-args')
const { WeightedSchedule } = require('../data/schedule')
const { Random } = require('../base/random')
const { perSecond, grouped } = require('../base/format')

const options = {
  queries_config: { type: 'string', group: 'Queries:',
    describe: 'YAML list of {name, query, weight, args} (required)' },
  max_queries: {
    type: 'number',
    group: 'Load:',
    describe: 'queries per process (default: 1000; none with --duration)'
  },
  table: {
    type: 'string',
    default: 'doc.cpu',
    group: 'Data:',
    describe: 'the table of the mix: {table} in the query file, max(ts) for timestamp args, the --ingest_rate target'
  },
  data_end: {
    type: 'string',
    group: 'Data:',
    describe: 'end of the data for timestamp args (ISO 8601; default: max(ts) of --table)'
  },
  scale: {
    type: 'number',
    default: 4000,
    group: 'Data:',
    describe: 'simulated hosts of the data, for hostname args (TSBS scale)'
  },
  kv_keys: {
    type: 'number',
    group: 'Data:',
    describe: 'keys the kv ingest model wrote, for kv_key args (default: count(*) of --table)'
  },
  ingest_rate: {
    type: 'string',
    group: 'Ingest next to the queries:',
    describe: 'also insert this many rows/s into --table while the queries run (a constant-rate ingest, reported apart)'
  },
  ingest_processes: {
    type: 'number',
    default: 1,
    group: 'Ingest next to the queries:',
    describe: 'processes of that ingest'
  },
  ingest_concurrent_requests: {
    type: 'number',
    default: 10,
    group: 'Ingest next to the queries:',
    describe: 'INSERT requests in flight per ingest process'
  },
  ingest_batch_size: {
    type: 'number',
    default: 1000,
    group: 'Ingest next to the queries:',
    describe: 'rows per INSERT of that ingest'
  },
  ingest_interval: {
    type: 'string',
    default: '10s',
    group: 'Ingest next to the queries:',
    describe: 'time between two rows of one host in the ingested data'
  },
  ingest_prefill: {
    type: 'string',
    group: 'Ingest next to the queries:',
    describe: 'before the load, fill the table the queries read to ROWS rows (the ingest\'s --prefill): queries ' +
      'and the ingest beside them on a table of realistic size'
  },
  shards: {
    type: 'number',
    default: 12,
    group: 'Ingest next to the queries:',
    describe: 'shards, when the ingest creates --table'
  },
  replicas: {
    type: 'string',
    default: '0',
    group: 'Ingest next to the queries:',
    describe: 'number_of_replicas, when the ingest creates --table'
  }
}

function validateOptions (args) {
  if (!args.queries_config) {
    throw new UsageError('--queries_config is required (e.g. --queries_config queries/cpu-dashboard.yml)')
  }
  const scale = requirePositiveInteger(args.scale, 'scale')
  const ctx = { scale, needsDataEnd: false, needsKvKeys: false }
  const queries = loadQueryConfig(args.queries_config, ctx)
  let dataEnd = null
  if (args.data_end !== undefined) {
    const ms = Date.parse(args.data_end)
    if (!Number.isFinite(ms)) throw new UsageError(`--data_end must be an ISO 8601 time (got '${args.data_end}')`)
    dataEnd = new Date(ms).toISOString()
  }
  let ingest = null
  if (args.ingest_prefill !== undefined && args.ingest_rate === undefined) {
    throw new UsageError('--ingest_prefill fills the table for the ingest beside the queries: it goes with ' +
      '--ingest_rate (a table for the queries alone: node appClusterIngest.js --prefill ROWS first)')
  }
  if (args.ingest_rate !== undefined) {
    ingest = {
      rate: parseRateText(args.ingest_rate, 'ingest_rate', 'rows'),
      processes: requirePositiveInteger(args.ingest_processes, 'ingest_processes'),
      concurrentRequests: requireConcurrency(args.ingest_concurrent_requests, 'ingest_concurrent_requests'),
      batchSize: requirePositiveInteger(args.ingest_batch_size, 'ingest_batch_size'),
      intervalMs: parseDuration(args.ingest_interval, 'ingest_interval'),
      prefill: prefillRows(args.ingest_prefill, 'cpu', '--ingest_prefill'),
      shards: requirePositiveInteger(args.shards, 'shards'),
      replicas: parseReplicas(args.replicas)
    }
  }
  const table = parseTableName(args.table)
  const bound = bindTable(queries, table)
  return {
    queriesConfig: path.resolve(args.queries_config),
    ingest,
    queries: bound,
    tableWarnings: foreignTableWarnings(bound, table),
    weightsNote: queries.normalised ?? null,
    maxQueries: countLimit(args.max_queries, 'max_queries', args.duration ?? args.stages, 1000),
    table,
    dataEnd,
    needsDataEnd: ctx.needsDataEnd,
    needsKvKeys: ctx.needsKvKeys,
    kvKeys: args.kv_keys === undefined ? null : requirePositiveInteger(args.kv_keys, 'kv_keys'),
    scale
  }
}

// ---- master side -------------------------------------------------------------------------------

/** The header's line about the query mix (and the ingest beside it). */
function describeLoad (options) {
  const ingest = options.ingest
    ? `; beside it ${grouped(options.ingest.rate)} rows/s into ${options.table.display}`
    : ''
  return `${options.queries.length} quer${options.queries.length === 1 ? 'y' : 'ies'} ` +
    `from ${options.queriesConfig}${ingest}`
}

/** Finds the end of the data when timestamp args need it, then runs every query once. */
async function prepare ({ client, options, log }) {
  if (options.weightsNote) log(`query mix: ${options.weightsNote}`)
  for (const warning of options.tableWarnings ?? []) log(warning)
  let dataEndMs = options.dataEnd ? Date.parse(options.dataEnd) : null
  if (options.needsDataEnd && dataEndMs === null) {
    const answer = await client.sql(`SELECT max(ts) FROM ${options.table.sql}`).catch((error) => {
      throw new FatalError(
        `timestamp args need the end of the data: max(ts) of ${options.table.display} failed: ${error.message} (or ` +
        `give --data_end)`
      )
    })
    dataEndMs = answer.rows[0][0]
    if (typeof dataEndMs !== 'number') {
      throw new FatalError(
        `timestamp args need the end of the data, but ${options.table.display} is empty (ingest first, or give ` +
        `--data_end)`
      )
    }
    log(`timestamp args end at ${new Date(dataEndMs).toISOString()} (max(ts) of ${options.table.display})`)
  }
  let kvKeys = options.kvKeys
  if (options.needsKvKeys && kvKeys === null) {
    // The kv ingest model writes the keys of 0 .. N-1, so N rows mean those N keys exist.
    const answer = await client.sql(`SELECT count(*) FROM ${options.table.sql}`).catch((error) => {
      throw new FatalError(
        `kv_key args need the number of keys: count(*) of ${options.table.display} failed: ${error.message} (or ` +
        `give --kv_keys)`
      )
    })
    kvKeys = answer.rows[0][0]
    if (!(kvKeys > 0)) {
      throw new FatalError(
        `kv_key args need keys, but ${options.table.display} is empty (run the ingest with --model kv first, or ` +
        `give --kv_keys)`
      )
    }
    log(`kv_key args draw from ${grouped(kvKeys)} keys (count(*) of ${options.table.display})`)
  }
  const random = new Random(options.seed, 'validation')
  for (const q of options.queries) {
    const args = compileArgs(q.args, { scale: options.scale, dataEndMs, kvKeys }, q.name)(random)
    try {
      await client.sql(q.query, args)
    } catch (error) {
      throw new FatalError(`query '${q.name}' failed validation: ${error.message}`)
    }
  }
  log(`validated ${options.queries.length} queries from ${options.queriesConfig}`)
  return { dataEndMs, kvKeys }
}

async function finish () {
  return {}
}

function extendResult (result, totals, runOptions) {
  result.queries = runOptions.queries.map((q) => {
    const series = totals.series.get(q.name)
    const latency = series ? series.latencySummary() : null
    const server = series ? series.serverSummary() : null
    return {
      name: q.name,
      ratio: q.ratio,
      count: series ? series.requests : 0,
      failed: series ? series.failed : 0,
      queries_per_sec: series ? perSecond(series.ok, result.seconds) : 0,
      latency_ms: latency,
      server_ms: { mean: server ? server.mean : null, p99: server ? server.p99 : null }
    }
  })
  return result
}

// The per-query table fits 120 columns (wider on a wider terminal); p90, p95, p99.9 and the server's figures are in
// --json.
const QUERY_NAME_WIDTH = 34
// What the table's other columns take.
const OTHER_COLUMNS_WIDTH = 86
// A mix of thousands of queries shows its busiest; --json has every query.
const QUERY_ROWS_SHOWN = 50

function detailTable (result, table, fmt) {
  const t = table(['query', 'ratio', 'count', 'failed', 'queries/s', 'p50 ms', 'p99 ms', 'max ms', 'mean ms'])
  const width = Math.max(QUERY_NAME_WIDTH, (process.stderr.columns || 0) - OTHER_COLUMNS_WIDTH)
  const short = (name) => (name.length > width ? `${name.slice(0, width - 1)}…` : name)
  const row = (name, ratio, count, failed, perSec, latency) => {
    const l = latency || {}
    t.push([
      short(name),
      fmt(ratio),
      fmt(count),
      fmt(failed),
      fmt(perSec),
      fmt(l.p50),
      fmt(l.p99),
      fmt(l.max),
      fmt(l.mean)
    ])
  }
  const busiest = [...result.queries].sort((a, b) => b.count - a.count).slice(0, QUERY_ROWS_SHOWN)
  const shown = result.queries.filter((q) => busiest.includes(q))
  for (const q of shown) row(q.name, q.ratio, q.count, q.failed, q.queries_per_sec, q.latency_ms)
  if (shown.length < result.queries.length) {
    const rest = result.queries.filter((q) => !busiest.includes(q))
    const count = rest.reduce((sum, q) => sum + q.count, 0)
    row(`… ${rest.length} more queries (--json)`, null, count, rest.reduce((sum, q) => sum + q.failed, 0), null, null)
  }
  row('total', 1, result.requests, result.queries_failed, result.queries_per_sec, result.latency_ms)
  return t.toString()
}

// ---- worker side -------------------------------------------------------------------------------

/** The weighted mix, one query per request, parameters drawn fresh for each execution. */
class QuerySource {
  constructor (options, { workerIndex }, prepared) {
    const ctx = { scale: options.scale, dataEndMs: prepared.dataEndMs, kvKeys: prepared.kvKeys }
    this.queries = options.queries.map((q) => ({
      name: q.name,
      stmtJson: `{"stmt":${JSON.stringify(q.query)}`,
      makeArgs: compileArgs(q.args, ctx, q.name)
    }))
    this.schedule = new WeightedSchedule(options.queries.map((q) => q.ratio), workerIndex)
    this.random = new Random(options.seed, 'args', workerIndex)
    this.remaining = options.maxQueries
    this.unitsPerRequest = 1
  }

  next () {
    if (this.remaining === 0) return null
    this.remaining--
    const q = this.queries[this.schedule.next()]
    const args = q.makeArgs(this.random)
    const body = args === undefined ? `${q.stmtJson}}` : `${q.stmtJson},"args":${JSON.stringify(args)}}`
    return { body, units: 1, label: q.name }
  }

  account (_request, answer) {
    if (answer === null || typeof answer !== 'object' || Array.isArray(answer)) throw new Error('not a JSON object')
    return { ok: 1, failed: 0, requestFailed: false, failures: [], serverMillis: answer.duration }
  }
}

/**
 * --ingest_rate: the ingest workload runs next to the query mix, on its own processes, at a
 * constant rate into the table the queries read, for as long as the queries run. It never drops
 * the table, and its rows continue after the table's last timestamp.
 */
function companion (options) {
  if (!options.ingest) return null
  const ingestWorkload = require('./ingest')
  const i = options.ingest
  return {
    workload: ingestWorkload,
    options: {
      connection: options.connection,
      processes: i.processes,
      concurrentRequests: i.concurrentRequests,
      durationMs: options.durationMs,
      gracefulStopMs: options.gracefulStopMs,
      warmupMs: options.warmupMs,
      rate: i.rate,
      seed: options.seed,
      json: false,
      progress: false,
      monitorIntervalMs: 0,
      resultsTable: null,
      runId: options.runId,
      generator: options.generator,
      startAt: null,
      table: options.table,
      shards: i.shards,
      replicas: i.replicas,
      dropTable: false,
      batchSize: i.batchSize,
      // Ends when the queries end; the limit is only there because the source counts down.
      maxRows: Number.MAX_SAFE_INTEGER,
      scale: options.scale,
      extraTagsLength: 0,
      startTime: '2016-01-01T00:00:00.000Z',
      intervalMs: i.intervalMs,
      prefill: i.prefill
    }
  }
}

function createSource (runOptions, worker, prepared) {
  return new QuerySource(runOptions, worker, prepared)
}

module.exports = {
  name: 'analytical',
  script: 'appClusterAnalytical.js',
  unit: 'queries',
  okLabel: 'queries ok',
  // Each query allocates its request and answer objects; a larger young generation scavenges
  // them less often (about 10% less client CPU per query than 2 MB). GC on the worker's own
  // thread, as for the ingest workers.
  workerNodeFlags: ['--max-semi-space-size=16', '--single-threaded-gc'],
  defaultProcesses: 1,
  usage:
    'Analytical benchmark: a weighted mix of SQL queries from a YAML file against CrateDB, over its HTTP endpoint or ' +
    'its PostgreSQL wire protocol (--protocol pg), from several processes.',
  examples: [
    ['$0 --queries_config queries/cpu-dashboard.yml', 'the dashboard mix, 1000 queries, 4 in flight'],
    [
      '$0 --queries_config queries/tsbs-cpu.yml --processes 2 --duration 1m --json',
      'TSBS query types for a minute, JSON on stdout'
    ],
    [
      '$0 --queries_config queries/select1.yml --max_queries 100000',
      'SELECT 1: what the client and the HTTP path can do'
    ]
  ],
  epilogue:
    'Exit codes: 0 all queries succeeded, 1 some failed, 2 bad input, 3 could not run (unreachable, a query failed ' +
    'validation), 4 partial run, 5 a --threshold missed.\nDocs: docs/queries.md',
  options,
  validateOptions,
  describeLoad,
  countLimit: (options) => options.maxQueries,
  // The queries, and with --ingest_rate the ingest beside them: as a whole ("ingest") and by its table.
  labelsOf: (options) => [
    ...options.queries.map((q) => q.name),
    ...(options.ingest ? ['ingest', options.table.display] : [])
  ],
  describeExclude: ['queries', 'needsDataEnd', 'needsKvKeys'],
  prepare,
  finish,
  extendResult,
  detailTable,
  createSource,
  companion,
  // --ingest_rate writes into --table
  writtenTables: (options) => (options.ingest ? [options.table] : [])
}
