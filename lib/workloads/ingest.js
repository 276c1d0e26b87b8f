'use strict'

const { MODELS } = require('../data/models')
const { dropDecision, recordOwned, isOwned } = require('./owned-tables')
const { takeLease, inUseMessage, holderOfRun, LeaseKeeper } = require('./table-lease')
const { FatalError } = require('../base/errors')
const { tableStorage } = require('./table-storage')
const { createTableSql } = require('../data/schema')
const { options, validateOptions } = require('./ingest-options')
const { createSource } = require('./ingest-source')
const { prefillStage } = require('./prefill')
const { extendResult, summaryLines, warningLines, detailTable } = require('./ingest-result')
const { reconcile } = require('../results/reconcile')
const { grouped } = require('../base/format')

// ---- master side -------------------------------------------------------------------------------

/** The header's line about what is written where. */
function describeLoad (options) {
  const tables = tablesOf(options)
  const where = tables.length === 1 ? tables[0].table.display : `${tables.length} tables in ${options.schema}`
  const shape = `(${options.shards} shards, replicas ${options.replicas})`
  const table = options.dropTable === true
    ? `dropped and created ${shape}`
    : options.dropTable === false ? 'kept if it exists' : `created ${shape}, dropped first only if this tool made it`
  return `--model ${options.model} into ${where}, ${table}, batches of ${grouped(options.batchSize)} ` +
    `rows`
}

const tablesOf = (options) => MODELS[options.model || 'cpu'].tables(options)
const setsRefreshInterval = (options) => options.refreshIntervalMs !== null && options.refreshIntervalMs !== undefined

/** Creates the model's tables once, before any worker starts. Workers never run DDL. */
async function prepare ({ client, options, log, sqlOrFail, stopped = () => false }) {
  const leases = new LeaseKeeper({ client, holder: holderOfRun(options.runId), log })
  try {
    return await prepareTables({ client, options, log, sqlOrFail, stopped, leases })
  } catch (error) {
    await leases.stop()
    throw error
  }
}

/**
 * This run's lease of `table` (table-lease.js): taken, or held by another run of this tool, which a run that may drop
 * the table must not go on beside. A registry that cannot be used costs a warning, not the run.
 */
async function leaseTable ({ client, table, options, leases, log }) {
  let lease
  try {
    lease = await takeLease({ client, table, holder: leases.holder, log })
  } catch (error) {
    log(`warning: could not take the lease of ${table.display} (which run of this tool uses it): ${error.message}`)
    return
  }
  if (lease.taken) leases.keep(table)
  else if (options.dropTable !== false) throw new FatalError(inUseMessage(table, lease))
}

async function prepareTables ({ client, options, log, sqlOrFail, stopped, leases }) {
  const created = []
  const kept = []
  let startTime = options.startTime
  for (const spec of tablesOf(options)) {
    const { table } = spec
    await leaseTable({ client, table, options, leases, log })
    const decision = await dropDecision({ table, dropTable: options.dropTable, sqlOrFail })
    if (decision.drop) {
      const drop = `DROP TABLE IF EXISTS ${table.sql}`
      const dropped = await sqlOrFail(drop, undefined, `cannot drop table ${table.display}`)
      if (dropped.rowcount === 1) log(`dropped table ${table.display} (${decision.reason})`)
    }
    const extraSettings = setsRefreshInterval(options) ? { refresh_interval: options.refreshIntervalMs } : {}
    const ddl = createTableSql({
      table,
      columns: spec.columns,
      shards: options.shards,
      replicas: options.replicas,
      extraSettings
    })
    const answer = await sqlOrFail(ddl, undefined, `cannot create table ${table.display}`)
    const createdNow = answer.rowcount === 1
    if (createdNow) {
      created.push(table.display)
      await recordOwned({ client, table, runId: options.runId, rowCount: 0, log })
      const refresh = setsRefreshInterval(options)
        ? `, refresh_interval ${options.refreshIntervalMs} ms until the end of the run`
        : ''
      log(`created table ${table.display} (${options.shards} shards, ${options.replicas} replicas${refresh})`)
    } else {
      const existing = await client
        .sql(
          'SELECT number_of_shards, number_of_replicas FROM information_schema.tables WHERE table_schema = ? AND ' +
          'table_name = ?',
          [table.schema, table.table]
        )
        .catch(() => null)
      const [shards, replicas] = (existing && existing.rows && existing.rows[0]) || []
      log(
        `table ${table.display} exists${shards ? ` (${shards} shards, ${replicas} replicas)` : ''}: --shards, ` +
        `--replicas and --refresh_interval do not apply, rows are added to it`
      )
      if (await isOwned(client, table)) kept.push(table.display)
      if (spec.columns.some((c) => c.startsWith('"ts"'))) {
        // Rows added to a kept table continue after its last timestamp, never repeating an earlier run's.
        const last = await sqlOrFail(
          `SELECT max(ts) FROM ${table.sql}`,
          undefined,
          `cannot read max(ts) of ${table.display}`
        )
        const lastMs = last.rows[0][0]
        if (typeof lastMs === 'number') startTime = new Date(lastMs + options.intervalMs).toISOString()
      }
    }
  }
  let prefill = null
  if (options.prefill > 0) {
    ({ prefill, startTime } = await prefillStage({ client, options, startTime, log, stopped }))
  }
  // The table's size and segments as the load starts: a long ingest's drift sets them beside the end's.
  const storageAtStart = await tableStorage(client, tablesOf(options).map((spec) => spec.table), log)
  const prepared = { created, kept, startTime, storageAtStart, prefill }
  // The master's own: the prepared tables go to every worker as JSON, the lease keeper stays here.
  Object.defineProperty(prepared, 'leases', { value: leases, enumerable: false })
  return prepared
}

/**
 * Resets refresh_interval where this run set it, whatever happened before; then, when
 * `shouldCount()` allows, REFRESH and count every table this run created, so the counts can be
 * checked exactly against the rows acknowledged. A table left with the run's refresh_interval is
 * reported with the statement that resets it.
 */
async function finish ({ client, options, prepared, totals, lostWorkers = [], log, shouldCount = () => true }) {
  const extra = { table_count: null, table_count_matches: null, reconciliation: null,
    ...(prepared.prefill ? { prefill: prepared.prefill } : {}) }
  // What the prefill wrote is in the table too: acknowledged, or in doubt, apart from the run's rows.
  const prefilled = prepared.prefill || {}
  const counts = {}
  const notRestored = []
  for (const { table } of tablesOf(options)) {
    const createdHere = prepared.created.includes(table.display)
    if (createdHere && setsRefreshInterval(options)) {
      const reset = `ALTER TABLE ${table.sql} RESET (refresh_interval)`
      try {
        await client.sql(reset)
      } catch (error) {
        notRestored.push({ table: table.display, statement: reset, error: error.message })
        log(`warning: refresh_interval of ${table.display} is still this run's: ${error.message}; run ${reset}`)
      }
    }
    if (!shouldCount()) continue
    try {
      await client.sql(`REFRESH TABLE ${table.sql}`)
      const keptOwn = (prepared.kept || []).includes(table.display)
      if ((createdHere || keptOwn) && shouldCount()) {
        const rowCount = (await client.sql(`SELECT count(*) FROM ${table.sql}`)).rows[0][0]
        if (createdHere) counts[table.display] = rowCount
        // What the table holds now, so that the next run knows nobody else wrote to it.
        await recordOwned({ client, table, runId: options.runId, rowCount, log })
      }
    } catch (error) {
      log(`warning: could not refresh or count ${table.display}: ${error.message}`)
    }
  }
  const countedTables = Object.keys(counts)
  if (countedTables.length > 0) {
    extra.table_count = countedTables.reduce((sum, name) => sum + counts[name], 0)
    extra.table_count_matches = false
  }
  if (countedTables.length > 1) extra.table_counts = counts
  if (countedTables.length === tablesOf(options).length) {
    // The table holds the warm-up's rows too.
    const inDoubt = totals.unitsSent - totals.all.ok - totals.all.failed - totals.warmup.ok - totals.warmup.failed
    extra.reconciliation = reconcile({
      acknowledged: totals.all.ok + totals.warmup.ok + (prefilled.rows_ok || 0),
      inDoubt: inDoubt + (prefilled.rows_in_doubt || 0),
      counted: extra.table_count,
      unreported: unreportedRows(lostWorkers, options)
    })
    extra.table_count_matches = extra.reconciliation.verdict === 'exact'
  }
  if (notRestored.length > 0) extra.tables_not_restored = notRestored
  if (shouldCount()) {
    extra.table_storage = { start: prepared.storageAtStart ?? null,
      end: await tableStorage(client, tablesOf(options).map((spec) => spec.table), log) }
  }
  // After the count: the next run's drop decision reads what this one recorded.
  if (prepared.leases) {
    await prepared.leases.stop()
    if (prepared.leases.lost.length) extra.leases_lost = prepared.leases.lost
  }
  return extra
}

/**
 * The rows each load generator of a fleet of `generatorCount` wrote into the table since this run's start, from the
 * rows' own keys: a Map of generator index → { rows, distinct } (its rows and their distinct keys; a model with one
 * table whose row index fixes its generator: cpu); null where the rows cannot tell (several tables, random text). The
 * table is refreshed by the caller.
 */
async function countFleetRows ({ client, options, prepared, generatorCount }) {
  const model = MODELS[options.model || 'cpu']
  const tables = tablesOf(options)
  if (!model.fleetRowsSql || tables.length !== 1) return null
  const startMs = Date.parse((prepared && prepared.startTime) || options.startTime)
  const { sql, args } = model.fleetRowsSql(tables[0].table, options, startMs, generatorCount)
  const answer = await client.sql(sql, args)
  if (!answer || !Array.isArray(answer.rows)) return null
  const count = (n) => Number.isSafeInteger(n) && n >= 0
  const counts = new Map()
  for (const row of answer.rows) {
    const [generator, rows, distinct] = Array.isArray(row) ? row : []
    if (!Number.isSafeInteger(generator) || !count(rows) || !count(distinct) || distinct > rows) return null
    counts.set(generator, { rows, distinct })
  }
  return counts
}

// Workers report a delta every second.
const REPORT_INTERVAL_S = 1

/**
 * Dead workers' rows since their last report, at most: for as long as the master heard nothing from them before they
 * ended (a report interval at least: a loaded machine delays reports), each request slot turning over no faster than
 * the quickest answer the worker got, plus a request still in flight in each. Its average pace is no bound: a worker
 * killed early speeds up after its start (CI: 7,700 rows where its pace said 6,914). Neither acknowledged nor in doubt
 * to this run: the table may hold them.
 */
function unreportedRows (lostWorkers, options) {
  if (lostWorkers.length === 0) return null
  const window = options.concurrentRequests * options.batchSize
  const bound = lostWorkers.reduce((sum, w) => {
    const silentS = Math.max(REPORT_INTERVAL_S, w.silentS ?? 0)
    if (w.fastestAnswerMs > 0) return sum + window * (Math.floor(silentS * 1000 / w.fastestAnswerMs) + 1)
    // No answer yet: its pace (nothing, or what it sent unanswered) over the silence.
    const pace = w.seconds > 0 ? w.unitsSent / w.seconds : 0
    return sum + Math.ceil(pace * silentS) + window
  }, 0)
  return { workers: lostWorkers.map((w) => w.index), bound }
}

module.exports = {
  name: 'ingest',
  script: 'appClusterIngest.js',
  unit: 'rows',
  okLabel: 'rows inserted',
  // A small young generation keeps a worker's peak RSS near its request buffers; the answers it
  // parses are small and short-lived, so the extra scavenges cost little CPU. GC on the worker's
  // own thread: with one worker per core, parallel GC helpers only take CPU from the others
  // (10-20% of the whole process tree's CPU on 2 cores). undici parses HTTP with llhttp in
  // WebAssembly; a few hundred large answers never repay V8 recompiling it with TurboFan on
  // background threads, so it stays on the baseline compiler (about 15% of the tree's CPU).
  workerNodeFlags: ['--max-semi-space-size=2', '--single-threaded-gc', '--liftoff-only'],
  usage:
    'Ingest benchmark: bulk INSERTs of generated rows (TSBS cpu or devops, random strings, key-value) into CrateDB, ' +
    'over its HTTP endpoint or its PostgreSQL wire protocol (--protocol pg), from several processes.',
  examples: [
    ['$0', '1,000,000 rows per CPU into doc.cpu on localhost:4200'],
    ['$0 --processes 4 --batch_size 5000 --duration 2m', 'four processes, 5000-row batches, at most two minutes'],
    ['$0 --duration 1m --warmup steady', 'measure a minute once the rate is steady (a fresh node climbs at first)'],
    ['$0 --start_cluster 1 --crate_version 6.4.3 --max_rows 500000',
      'start a CrateDB 6.4.3 node on this machine, ingest into it, stop it (docs/cluster.md)'],
    [
      'CRATE_HOST=n1,n2,n3 $0 --shards 6 --replicas 1 --json > run.json',
      'three nodes round-robin, JSON result on stdout'
    ],
    ['$0 --no-drop_table --max_rows 100000', 'add rows to an existing table'],
    ['$0 --model devops --batch_size 500 --processes 8', 'TSBS devops: nine tables, field values/s per table'],
    ['$0 --model kv --max_rows 1000000 --upsert', 'key-value upserts into doc.kv']
  ],
  epilogue:
    'Exit codes: 0 all rows inserted, 1 some rows failed, 2 bad input, 3 could not run, 4 partial run (interrupted, ' +
    'worker died, server gone), 5 a --threshold missed.\nDocs: docs/ingest.md',
  options,
  validateOptions,
  describeLoad,
  countLimit: (options) => options.maxRows,
  labelsOf: (options) => tablesOf(options).map((spec) => spec.table.display),
  writtenTables: (options) => tablesOf(options).map((spec) => spec.table),
  prepare,
  finish,
  countFleetRows,
  extendResult,
  summaryLines,
  warningLines,
  detailTable,
  createSource
}
