'use strict'

const os = require('node:os')
const { FatalError } = require('../base/errors')
const { dropDecision, REGISTRY, EXISTS_SQL } = require('../workloads/owned-tables')
const { LEASES } = require('../workloads/table-lease')
const { checkBenchmarkOptions, WORKLOADS } = require('./benchmark-run')

// The tables a study writes in a cluster of the user's own (a target), so that it leaves the cluster as it found it:
// each checked right after the cluster is recorded, before any load (a table of the user's that a run would refuse is
// found then, not after a grid's warm-up), and dropped when the study's part on it ends, however it ends, when the
// study made it; the tool's bookkeeping tables (the registry of the tables it made, the leases) too, when the study
// made them and no other run holds a lease. `keep`: the tables stay, each named with the statement that drops it.

const LEASES_SQL = `SELECT "holder", "at", "ttl_ms", CURRENT_TIMESTAMP FROM ${LEASES.sql}`
const FORGET_SQL = `DELETE FROM ${REGISTRY.sql} WHERE table_name = ?`

/** The tables a benchmark run of `app` with `args` writes (never the results table): [{ schema, table, sql, … }]. */
function tablesWritten (app, args) {
  const { loadWorkload } = require('../workloads')
  const workload = loadWorkload(WORKLOADS[app])
  const options = checkBenchmarkOptions(app, args)
  const written = workload.writtenTables ? workload.writtenTables(options) : []
  return written.map((table) => ({ ...table, dropTable: options.dropTable }))
}

async function exists (sql, table) {
  const answer = await sql(EXISTS_SQL, [table.schema, table.table])
  return answer.rows.length > 0
}

/**
 * Before any load on a target: each table a run would write, as the run will judge it (owned-tables.js dropDecision),
 * without dropping anything. The plan of what to drop at the end: { made: [tables the study makes or remakes],
 * bookkeeping: [the tool's tables it makes], refused }: `refused`, why a run would refuse a table (one of the user's),
 * or null. A statement that fails throws.
 */
async function checkTargetTables (tables, sql) {
  const sqlOrFail = async (stmt, args, what) => {
    try {
      return await sql(stmt, args)
    } catch (error) {
      throw new FatalError(`${what}: ${error.message}`)
    }
  }
  const bookkeeping = []
  for (const table of [REGISTRY, LEASES]) if (!await exists(sql, table)) bookkeeping.push(table)
  const made = []
  for (const table of tables) {
    let decision
    try {
      decision = await dropDecision({ table, dropTable: table.dropTable, sqlOrFail })
    } catch (error) {
      return { made, bookkeeping, refused: error.message }
    }
    // Absent, or dropped by the runs and made again (the tool's own and unchanged, or --drop_table): the study's to
    // drop at its end. A table of the user's that the runs add rows to (--no-drop_table) stays theirs.
    if (decision.drop || !await exists(sql, table)) made.push(table)
  }
  // dropDecision makes the registry to read it: it counts as the study's when it was not there before.
  return { made, bookkeeping, refused: null }
}

/** Whether a run other than this process's (and its children's: they hold its leases) holds a lease now. */
async function othersHoldLeases (sql, { hostname = os.hostname(), pid = process.pid } = {}) {
  const answer = await sql(LEASES_SQL)
  return answer.rows.some(([holder, at, ttlMs, now]) => {
    let held = null
    try {
      held = JSON.parse(holder)
    } catch { /* a holder of another form: someone else's */ }
    const ours = held && held.host === hostname && held.pid === pid
    return !ours && Number(at) + Number(ttlMs) > Number(now)
  })
}

/**
 * At the end of a study's part on a target: the tables it made dropped (and forgotten in the registry), then the
 * bookkeeping tables it made, unless another run holds a lease. With `keep`, nothing is dropped and each table is
 * named with its DROP statement. Returns the lines to say; a statement that fails is said, never thrown.
 */
async function leaveAsFound ({ made, bookkeeping }, sql, { keep = false, where, hostname, pid } = {}) {
  const present = []
  for (const table of [...made, ...bookkeeping]) {
    try {
      if (await exists(sql, table)) present.push(table)
    } catch (error) {
      return [`warning: could not look at the tables this study made in ${where}: ${error.message}; they may be ` +
        `there: ${[...made, ...bookkeeping].map((t) => `DROP TABLE IF EXISTS ${t.sql};`).join(' ')}`]
    }
  }
  if (present.length === 0) return []
  if (keep) {
    return [`kept in ${where} (keep_tables: true): ${present.map((t) => `${t.display} (DROP TABLE ${t.sql};)`)
      .join(', ')}`]
  }
  const lines = []
  const dropped = []
  const drop = async (table) => {
    try {
      await sql(`DROP TABLE IF EXISTS ${table.sql}`)
      dropped.push(table.display)
    } catch (error) {
      lines.push(`warning: could not drop ${table.display} in ${where}: ${error.message} (DROP TABLE ${table.sql};)`)
    }
  }
  for (const table of present.filter((t) => made.includes(t))) {
    await drop(table)
    await sql(FORGET_SQL, [table.display]).catch(() => {})
  }
  const tools = present.filter((t) => bookkeeping.includes(t))
  if (tools.length) {
    let held = true
    try {
      held = await othersHoldLeases(sql, { hostname, pid })
    } catch {
      held = !bookkeeping.includes(LEASES)
    }
    if (held) {
      lines.push(`kept in ${where}: ${tools.map((t) => t.display).join(', ')} (another run holds a lease on a ` +
        'table of this tool there)')
    } else {
      for (const table of tools) await drop(table)
    }
  }
  if (dropped.length) lines.unshift(`dropped in ${where} what this study made there: ${dropped.join(', ')}`)
  return lines
}

module.exports = { tablesWritten, checkTargetTables, leaveAsFound, othersHoldLeases }
