'use strict'

const { createTableSql } = require('../data/schema')

// The fleet table: one row per generator of a run, keyed by (run_id, generator), and three rows of the run itself
// under negative generator numbers. Every choice of one winner is an INSERT … ON CONFLICT DO NOTHING (rowcount 1 for
// the winner, 0 for the others: captures 67, 68); every read a generator must not miss is by the whole primary key,
// which is real-time (69); the one search (all generators of a run) follows a REFRESH (70–72).

const PREPARE_ROW = -1
const START_ROW = -2
const RECONCILED_ROW = -3
// The finish taken over from a finisher that died, one row per dead finisher: the claim's one winner finishes.
const takeoverRow = (deadFinisher) => -100 - deadFinisher

const COLUMNS = ['run_id', 'generator', 'state', 'host', 'at', 'detail']

function createFleetTableSql (table) {
  return createTableSql({
    table,
    columns: [
      '"run_id" TEXT',
      '"generator" INTEGER',
      '"state" TEXT',
      '"host" TEXT',
      '"at" TIMESTAMP WITH TIME ZONE',
      // JSON: what each row needs beyond its state (options, counts, the start instant, the reconciliation).
      '"detail" TEXT',
      'PRIMARY KEY ("run_id", "generator")'
    ],
    shards: 3,
    replicas: '0-1'
  })
}

/** Claims a row: rowcount 1 for the one writer that created it, 0 for every other. */
function claimSql (table) {
  return `INSERT INTO ${table.sql} ("run_id", "generator", "state", "host", "at", "detail") ` +
    'VALUES (?, ?, ?, ?, CURRENT_TIMESTAMP, ?) ON CONFLICT DO NOTHING'
}

function readRowSql (table) {
  return `SELECT "state", "host", "at", "detail" FROM ${table.sql} WHERE "run_id" = ? AND "generator" = ?`
}

function updateRowSql (table) {
  return `UPDATE ${table.sql} SET "state" = ?, "host" = ?, "at" = CURRENT_TIMESTAMP, "detail" = ? ` +
    'WHERE "run_id" = ? AND "generator" = ?'
}

function runRowsSql (table) {
  return `SELECT "generator", "state", "host", "at", "detail" FROM ${table.sql} WHERE "run_id" = ? ` +
    'ORDER BY "generator"'
}

const CURRENT_TIMESTAMP_SQL = 'SELECT CURRENT_TIMESTAMP AS now'

module.exports = {
  PREPARE_ROW,
  START_ROW,
  RECONCILED_ROW,
  takeoverRow,
  COLUMNS,
  createFleetTableSql,
  claimSql,
  readRowSql,
  updateRowSql,
  runRowsSql,
  CURRENT_TIMESTAMP_SQL
}
