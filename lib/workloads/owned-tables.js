'use strict'

const { FatalError } = require('../base/errors')
const { parseTableName } = require('../data/schema')
const { REGISTRY_TABLE } = require('../data/tool-tables')
const { grouped } = require('../base/format')

// The tables this tool made, so that it drops only its own: a user's doc.cpu (loaded with TSBS, say) has the very
// columns of the cpu model, so nothing in the table itself tells the two apart. Each row: a table the tool created,
// the run that created or last wrote it, and the rows it held when that run counted it. A table whose count differs
// has been written since by someone else, and is theirs to drop.
const REGISTRY = parseTableName(REGISTRY_TABLE, 'table')

const CREATE_SQL = `CREATE TABLE IF NOT EXISTS ${REGISTRY.sql} ("table_name" TEXT PRIMARY KEY, "run_id" TEXT, ` +
  '"row_count" BIGINT) CLUSTERED INTO 1 SHARDS WITH (number_of_replicas = \'0-1\')'
// A read by the whole primary key: real-time, it sees a row written a moment ago without a REFRESH (captures 52, 69).
const READ_SQL = `SELECT table_name, run_id, row_count FROM ${REGISTRY.sql} WHERE table_name = ?`
const RECORD_SQL = `INSERT INTO ${REGISTRY.sql} (table_name, run_id, row_count) VALUES (?, ?, ?) ` +
  'ON CONFLICT (table_name) DO UPDATE SET run_id = excluded.run_id, row_count = excluded.row_count'
const EXISTS_SQL = 'SELECT number_of_shards, number_of_replicas FROM information_schema.tables ' +
  'WHERE table_schema = ? AND table_name = ?'

/**
 * Whether `table` may be dropped before the run. --drop_table (true) and --no-drop_table (false) are the user's word;
 * by default ('auto') a table that exists is dropped only when this tool made it and nobody wrote to it since,
 * otherwise the run stops before any load with the three ways on. Returns { drop, reason }.
 */
async function dropDecision ({ table, dropTable, sqlOrFail }) {
  if (dropTable === true) return { drop: true, reason: '--drop_table' }
  if (dropTable === false) return { drop: false, reason: '--no-drop_table' }
  const ways = 'give --drop_table to drop it, --no-drop_table to add rows to it, or another --table'
  // An answer of another shape than CrateDB's says nothing about the table: unknown, and kept.
  const unknown = (what, answer) => new FatalError(`whether this tool made table ${table.display} is unknown: the ` +
    `answer to ${what} has an unexpected shape (${JSON.stringify(answer).slice(0, 120)}); it is kept; ${ways}`)
  const exists = await sqlOrFail(EXISTS_SQL, [table.schema, table.table], `cannot look up table ${table.display}`)
  if (!exists || !Array.isArray(exists.rows)) throw unknown('information_schema.tables', exists)
  if (exists.rows.length === 0) return { drop: false, reason: 'absent' }
  await sqlOrFail(CREATE_SQL, undefined, `cannot create ${REGISTRY.display} (the tables this tool made)`)
  const read = await sqlOrFail(READ_SQL, [table.display], `cannot read ${REGISTRY.display}`)
  const owned = read && Array.isArray(read.rows) ? read.rows[0] : undefined
  if (read && Array.isArray(read.rows) && !owned) {
    throw new FatalError(`table ${table.display} exists and this tool did not make it: it is kept; ${ways}`)
  }
  if (!isRegistryRow(owned, table)) throw unknown(REGISTRY.display, read)
  await sqlOrFail(`REFRESH TABLE ${table.sql}`, undefined, `cannot refresh ${table.display}`)
  const countAnswer = await sqlOrFail(`SELECT count(*) FROM ${table.sql}`, undefined, `cannot count ${table.display}`)
  const counted = countAnswer && Array.isArray(countAnswer.rows) && Array.isArray(countAnswer.rows[0])
    ? countAnswer.rows[0][0] : undefined
  if (!Number.isSafeInteger(counted) || counted < 0) throw unknown(`count(*) of ${table.display}`, countAnswer)
  const [, runId, rowCount] = owned
  if (counted !== rowCount) {
    throw new FatalError(
      `table ${table.display} was made by this tool (run ${runId}, ${count(rowCount)}) but holds ${count(counted)}: ` +
      `written since, or that run was cut short; it is kept; ${ways}`
    )
  }
  return { drop: true, reason: `made by this tool in run ${runId}, ${count(rowCount)} since` }
}

/** A row of the registry as this tool writes it: the table's name, a run id, a count. */
function isRegistryRow (row, table) {
  return Array.isArray(row) && row.length === 3 && row[0] === table.display && typeof row[1] === 'string' &&
    Number.isSafeInteger(row[2]) && row[2] >= 0
}

/** Records that this run made or wrote `table` and what it held when counted; a failure costs only a warning. */
async function recordOwned ({ client, table, runId, rowCount, log }) {
  try {
    await client.sql(CREATE_SQL)
    await client.sql(RECORD_SQL, [table.display, runId, rowCount])
  } catch (error) {
    log(`warning: could not record ${table.display} in ${REGISTRY.display}: ${error.message}; the next run will ` +
      'not drop it without --drop_table')
  }
}

/** Whether this tool made `table` (a row in the registry), false where the registry cannot be read. */
async function isOwned (client, table) {
  try {
    return (await client.sql(READ_SQL, [table.display])).rows.length > 0
  } catch {
    return false
  }
}

const count = (n) => `${grouped(Number(n))} row${n === 1 ? '' : 's'}`

module.exports = { dropDecision, recordOwned, isOwned, REGISTRY, EXISTS_SQL }
