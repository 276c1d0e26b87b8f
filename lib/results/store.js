'use strict'

const os = require('node:os')
const { createTableSql, insertSql } = require('../data/schema')

// --results_table: every run of the tool writes one row with its result into a table on the
// cluster under test, so runs from several load-generator machines can be added up in SQL.

const COLUMNS = [
  ['run_id', 'TEXT'],
  ['load_generator', 'TEXT'],
  ['workload', 'TEXT'],
  ['started_at', 'TIMESTAMP WITH TIME ZONE'],
  ['ended_at', 'TIMESTAMP WITH TIME ZONE'],
  ['seconds', 'DOUBLE PRECISION'],
  ['unit', 'TEXT'],
  ['processes', 'INTEGER'],
  ['sent', 'BIGINT'],
  ['ok', 'BIGINT'],
  ['failed', 'BIGINT'],
  ['unacknowledged', 'BIGINT'],
  ['per_sec', 'DOUBLE PRECISION'],
  ['latency_p50_ms', 'DOUBLE PRECISION'],
  ['latency_p90_ms', 'DOUBLE PRECISION'],
  ['latency_p99_ms', 'DOUBLE PRECISION'],
  ['latency_p999_ms', 'DOUBLE PRECISION'],
  ['latency_max_ms', 'DOUBLE PRECISION'],
  ['partial', 'BOOLEAN'],
  // The options and the whole result as the tool printed them, for anything the columns miss. A result grows with
  // the run (a 40 s ingest about 18 KB): an indexed TEXT refuses any value over 32,766 bytes (Lucene's term limit),
  // so the result goes unindexed and without a column store, where it takes any length and is never filtered on.
  ['options', 'OBJECT(IGNORED)'],
  ['result_json', 'TEXT INDEX OFF STORAGE WITH (columnstore = false)']
]

// Versions before 0.2 stored the result in an indexed TEXT column `result`, which refuses results over 32 KB.
const LEGACY_RESULT_COLUMN = 'result'
const RESULT_COLUMN = 'result_json'

const COLUMNS_SQL = 'SELECT column_name FROM information_schema.columns WHERE table_schema = ? AND table_name = ?'

/**
 * Why an existing results table cannot take this version's rows, as one line with its fix, or null when it can.
 * A table made by an earlier version (an indexed `result`) is refused rather than altered: CrateDB cannot change a
 * column's index, and the table is the user's record of earlier runs, which `crate-bench report` still reads.
 */
function resultsTableProblem (existingNames, table) {
  const existing = new Set(existingNames)
  const missing = COLUMNS.map(([name]) => name).filter((name) => !existing.has(name))
  if (missing.length === 0) return null
  if (missing.length === 1 && missing[0] === RESULT_COLUMN && existing.has(LEGACY_RESULT_COLUMN)) {
    return `the results table ${table.display} was made by an earlier version of this tool: its indexed "result" ` +
      'column refuses a result over 32 KB, as every long run has; keep it for its runs under another name ' +
      `(ALTER TABLE ${table.display} RENAME TO ${table.table}_v1) and the tool creates a new one, ` +
      'or give another --results_table'
  }
  return `the results table ${table.display} exists without the columns ${missing.join(', ')}: it holds something ` +
    'else; give another --results_table'
}

/** The column that holds the results of a table with these columns (tables of earlier versions: `result`). */
function resultColumnOf (existingNames) {
  if (existingNames.includes(RESULT_COLUMN)) return RESULT_COLUMN
  if (existingNames.includes(LEGACY_RESULT_COLUMN)) return LEGACY_RESULT_COLUMN
  return null
}

function createResultsTableSql (table) {
  return createTableSql({
    table,
    columns: COLUMNS.map(([name, type]) => `"${name}" ${type}`),
    shards: 1,
    replicas: '0-1'
  })
}

/** The run's row: what the server acknowledged over the run's window, as in the report. */
function resultRow (result, { runId, loadGenerator = os.hostname(), unit }) {
  const startedMs = result.started_at ? Date.parse(result.started_at) : null
  const l = result.latency_ms || {}
  const values = {
    run_id: runId,
    load_generator: loadGenerator,
    workload: result.workload,
    started_at: startedMs,
    ended_at: startedMs === null ? null : Math.round(startedMs + result.seconds * 1000),
    seconds: result.seconds,
    unit,
    processes: result.options.processes,
    sent: result[`${unit}_sent`],
    ok: result[`${unit}_ok`],
    failed: result[`${unit}_failed`],
    // The column keeps its first name so that results tables made by earlier versions still take rows.
    unacknowledged: result[`${unit}_in_doubt`],
    per_sec: result[`${unit}_per_sec`],
    latency_p50_ms: l.p50 ?? null,
    latency_p90_ms: l.p90 ?? null,
    latency_p99_ms: l.p99 ?? null,
    latency_p999_ms: l.p999 ?? null,
    latency_max_ms: l.max ?? null,
    partial: result.partial,
    options: result.options,
    result_json: JSON.stringify(result)
  }
  return COLUMNS.map(([name]) => values[name])
}

function insertResultSql (table) {
  return insertSql(table, COLUMNS.map(([name]) => name))
}

/**
 * One multi-machine run in one row: every load generator's acknowledged units over the span
 * from the first start to the last end. docs/runs-across-machines.md shows this statement; a test runs it against
 * rows the tool wrote.
 */
function aggregateRunSql (table) {
  return 'SELECT count(*) AS load_generators, sum(ok) AS ok, sum(failed) AS failed, ' +
    'EXTRACT(EPOCH FROM max(ended_at)) - EXTRACT(EPOCH FROM min(started_at)) AS seconds, ' +
    'sum(ok) / (EXTRACT(EPOCH FROM max(ended_at)) - EXTRACT(EPOCH FROM min(started_at))) AS per_sec ' +
    `FROM ${table.sql} WHERE run_id = ?`
}

module.exports = {
  COLUMNS_SQL,
  resultsTableProblem,
  resultColumnOf,
  createResultsTableSql,
  resultRow,
  insertResultSql,
  aggregateRunSql,
  RESULT_COLUMNS: COLUMNS.map(([name]) => name)
}
