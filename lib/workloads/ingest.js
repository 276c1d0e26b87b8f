'use strict'

const { CpuRowGenerator, INSERT_COLUMNS, METRICS_PER_ROW, columnDefinitions } = require('../generators/cpu')
const { parseTableName, parseReplicas, createTableSql, insertSql } = require('../schema')
const { parseDuration, requirePositiveInteger, parseBooleanText } = require('../options')
const { UsageError } = require('../errors')
const { BulkBodyPool } = require('../bulk-body')
const { round } = require('../format')

const LABEL = 'insert'

const options = {
  table: { type: 'string', default: 'doc.cpu', group: 'Table:', describe: 'target table, [schema.]name' },
  shards: { type: 'number', default: 12, group: 'Table:', describe: 'CLUSTERED INTO <shards> SHARDS when the table is created' },
  replicas: { type: 'string', default: '0', group: 'Table:', describe: "number_of_replicas: a number or a range such as '0-1'" },
  drop_table: { type: 'boolean', default: true, group: 'Table:', describe: 'drop the table before the run (--no-drop_table or --drop_table false to keep it)' },
  batch_size: { type: 'number', default: 10000, group: 'Load:', describe: 'rows per INSERT request (bulk_args)' },
  max_rows: { type: 'number', default: 1_000_000, group: 'Load:', describe: 'rows per process; the last batch is smaller when needed' },
  scale: { type: 'number', default: 4000, group: 'Data:', describe: 'simulated hosts (TSBS scale)' },
  extra_tags_length: { type: 'number', default: 0, group: 'Data:', describe: 'add tags tag_0 .. tag_{N-1} to every row' },
  start_time: { type: 'string', default: '2016-01-01T00:00:00Z', group: 'Data:', describe: 'timestamp of the first interval (ISO 8601)' },
  interval: { type: 'string', default: '10s', group: 'Data:', describe: 'time between two rows of the same host' }
}

function validateOptions (args) {
  const startMs = Date.parse(args.start_time)
  if (!Number.isFinite(startMs)) throw new UsageError(`--start_time must be an ISO 8601 time such as 2016-01-01T00:00:00Z (got '${args.start_time}')`)
  return {
    table: parseTableName(args.table),
    shards: requirePositiveInteger(args.shards, 'shards'),
    replicas: parseReplicas(args.replicas),
    dropTable: parseBooleanText(args.drop_table, '--drop_table'),
    batchSize: requirePositiveInteger(args.batch_size, 'batch_size'),
    maxRows: requirePositiveInteger(args.max_rows, 'max_rows'),
    scale: requirePositiveInteger(args.scale, 'scale'),
    extraTagsLength: requirePositiveInteger(args.extra_tags_length, 'extra_tags_length', { allowZero: true }),
    startTime: new Date(startMs).toISOString(),
    intervalMs: parseDuration(args.interval, 'interval')
  }
}

// ---- master side -------------------------------------------------------------------------------

/** Creates the table once, before any worker starts. Workers never run DDL. */
async function prepare ({ client, options, log, sqlOrFail }) {
  const { table } = options
  if (options.dropTable) {
    await sqlOrFail(`DROP TABLE IF EXISTS ${table.sql}`, undefined, `cannot drop table ${table.display}`)
  }
  const ddl = createTableSql({ table, columns: columnDefinitions(), shards: options.shards, replicas: options.replicas })
  const created = await sqlOrFail(ddl, undefined, `cannot create table ${table.display}`)
  const createdNow = created.rowcount === 1
  let startTime = options.startTime
  if (options.startAfterExisting && !createdNow) {
    // New rows continue after the table's last timestamp, so they never repeat an earlier run's.
    const last = await sqlOrFail(`SELECT max(ts) FROM ${table.sql}`, undefined, `cannot read max(ts) of ${table.display}`)
    const lastMs = last.rows[0][0]
    if (typeof lastMs === 'number') startTime = new Date(lastMs + options.intervalMs).toISOString()
  }
  if (createdNow) {
    log(`created table ${table.display} (${options.shards} shards, ${options.replicas} replicas)`)
  } else {
    const existing = await client.sql(
      'SELECT number_of_shards, number_of_replicas FROM information_schema.tables WHERE table_schema = ? AND table_name = ?',
      [table.schema, table.table]
    ).catch(() => null)
    const [shards, replicas] = (existing && existing.rows && existing.rows[0]) || []
    log(`table ${table.display} exists${shards ? ` (${shards} shards, ${replicas} replicas)` : ''}: --shards and --replicas do not apply, rows are added to it`)
  }
  return { createdNow, startTime }
}

/** REFRESH, then count the table when this run created it, so the count can be checked exactly. */
async function finish ({ client, options, prepared, totals, log }) {
  const { table } = options
  const extra = { table_count: null, table_count_matches: null }
  try {
    await client.sql(`REFRESH TABLE ${table.sql}`)
    if (prepared.createdNow) {
      const answer = await client.sql(`SELECT count(*) FROM ${table.sql}`)
      extra.table_count = answer.rows[0][0]
      extra.table_count_matches = extra.table_count === totals.all.ok
    }
  } catch (error) {
    log(`warning: could not refresh and count ${table.display}: ${error.message}`)
  }
  return extra
}

function extendResult (result) {
  result.metrics_per_sec = round(result.rows_per_sec * METRICS_PER_ROW)
  return result
}

function summaryLines (result, fmt) {
  const lines = [['metrics/s (rows x 10)', fmt(result.metrics_per_sec)]]
  if (result.table_count !== null) {
    const verdict = result.table_count_matches ? 'matches rows inserted' : `DOES NOT MATCH rows inserted (${fmt(result.rows_ok)})`
    lines.push(['rows in table after refresh', `${fmt(result.table_count)} (${verdict})`])
  }
  return lines
}

// ---- worker side -------------------------------------------------------------------------------

/**
 * Produces INSERT requests of fresh rows until this worker's max_rows are sent. Each request
 * owns a buffer until its answer arrives; buffers are reused afterwards, so memory stays at
 * (requests in flight) x (batch size) x (row size).
 */
class IngestSource {
  constructor (options, { workerIndex, workerCount }) {
    const generator = new CpuRowGenerator({
      seed: options.seed,
      scale: options.scale,
      workerIndex,
      workerCount,
      startMs: Date.parse(options.startTime),
      intervalMs: options.intervalMs,
      extraTagsLength: options.extraTagsLength
    })
    this.bodies = new BulkBodyPool({
      stmt: insertSql(options.table, INSERT_COLUMNS),
      rowWriter: generator,
      initialBytesPerRow: generator.typicalRowBytes
    })
    this.batchSize = options.batchSize
    this.unitsPerRequest = options.batchSize
    this.remaining = options.maxRows
  }

  next () {
    if (this.remaining === 0) return null
    const rows = Math.min(this.batchSize, this.remaining)
    this.remaining -= rows
    const { body, buffer } = this.bodies.take(rows)
    return { body, units: rows, label: LABEL, buffer }
  }

  release (request) {
    this.bodies.release(request.buffer)
  }

  parse (text) {
    return parseBulkAnswer(text)
  }

  account (request, answer) {
    return accountBulkAnswer(request.units, answer)
  }
}

const ALL_OK_ENTRY = '{"rowcount":1}'
const RESULTS_KEY = '"results":['

/**
 * The answer to a bulk INSERT is one {"rowcount":1} per row when all went well. Checking that
 * text entry by entry costs far less than building 10,000 objects; anything else (a rejected
 * row, another layout) falls back to JSON.parse and is accounted row by row.
 */
function parseBulkAnswer (text) {
  const start = text.indexOf(RESULTS_KEY)
  if (start >= 0) {
    let pos = start + RESULTS_KEY.length
    let rows = 0
    while (text.startsWith(ALL_OK_ENTRY, pos)) {
      rows++
      pos += ALL_OK_ENTRY.length
      if (text.charCodeAt(pos) === 0x2c) pos++
    }
    if (text.startsWith(']}', pos) && text.indexOf(RESULTS_KEY, pos) < 0) {
      const duration = /"duration":(-?[\d.eE+-]+)/.exec(text.slice(0, start))
      return { allRowsOk: rows, duration: duration ? Number(duration[1]) : undefined }
    }
  }
  return JSON.parse(text)
}

/**
 * A row counts as inserted only when its own result says rowcount 1. CrateDB answers HTTP 200
 * with rowcount -2 (and, since 5.x, an error object) for each row it rejected.
 */
function accountBulkAnswer (rowsSent, answer) {
  if (answer && answer.allRowsOk === rowsSent) {
    return { ok: rowsSent, failed: 0, requestFailed: false, failures: [], serverMillis: answer.duration }
  }
  if (answer && answer.allRowsOk !== undefined) {
    // Every result said rowcount 1, but not one result per row: account it the slow way.
    answer = { results: new Array(answer.allRowsOk).fill({ rowcount: 1 }), duration: answer.duration }
  }
  const results = answer && Array.isArray(answer.results) ? answer.results : null
  if (!results) {
    return {
      ok: 0,
      failed: rowsSent,
      requestFailed: true,
      failures: [{ code: 'ENORESULTS', status: 200, message: 'answer to a bulk request has no per-row results', count: rowsSent }],
      serverMillis: answer && answer.duration
    }
  }
  let ok = 0
  const failures = []
  const seen = Math.min(results.length, rowsSent)
  for (let i = 0; i < seen; i++) {
    const result = results[i]
    if (result.rowcount === 1) {
      ok++
    } else {
      const error = result.error || { code: null, message: `rowcount ${result.rowcount} without error details` }
      failures.push({ code: error.code ?? null, status: 200, message: error.message, count: 1 })
    }
  }
  if (results.length < rowsSent) {
    failures.push({ code: 'ENORESULTS', status: 200, message: `answer has ${results.length} results for ${rowsSent} rows`, count: rowsSent - results.length })
  }
  return { ok, failed: rowsSent - ok, requestFailed: false, failures, serverMillis: answer.duration }
}

function createSource (options, worker, prepared = {}) {
  return new IngestSource({ ...options, startTime: prepared.startTime || options.startTime }, worker)
}


module.exports = {
  name: 'ingest',
  script: 'appClusterIngest.js',
  unit: 'rows',
  okLabel: 'rows inserted',
  // A small young generation keeps a worker's peak RSS near its request buffers; the answers it
  // parses are small and short-lived, so the extra scavenges cost little CPU.
  workerNodeFlags: ['--max-semi-space-size=2'],
  usage: 'Ingest benchmark: bulk INSERTs of TSBS cpu rows into CrateDB over HTTP, from several processes.',
  examples: [
    ['$0', '1,000,000 rows per CPU into doc.cpu on localhost:4200'],
    ['$0 --processes 4 --batch_size 5000 --duration 2m', 'four processes, 5000-row batches, at most two minutes'],
    ['CRATE_HOST=n1,n2,n3 $0 --shards 6 --replicas 1 --json > run.json', 'three nodes round-robin, JSON result on stdout'],
    ['$0 --no-drop_table --max_rows 100000', 'add rows to an existing table']
  ],
  epilogue: 'Exit codes: 0 all rows inserted, 1 some rows failed, 2 bad input, 3 could not run, 4 partial run (interrupted, worker died, server gone).\nDocs: README.md',
  options,
  validateOptions,
  prepare,
  finish,
  extendResult,
  summaryLines,
  createSource,
  accountBulkAnswer,
  parseBulkAnswer
}
