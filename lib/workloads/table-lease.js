'use strict'

const os = require('node:os')
const { parseTableName, createTableSql } = require('../data/schema')
const { LEASES_TABLE } = require('../data/tool-tables')
const { toolProcessRuns } = require('../base/processes')
const { grouped } = require('../base/format')

// Which run of this tool uses a table now: a lease per table, renewed while a run writes it. A table this tool made
// and nobody else wrote may be dropped by the next run (owned-tables.js), but not from under a grid, a capacity search
// or a study between its runs, nor from under a run that only reads it (issue 57: a second run dropped the table a
// running grid used). The children of one study hold its lease (CRATE_BENCH_TABLE_HOLDER), so that its next run
// drops its own table. A lease nobody renews lapses after TTL_MS; one of a process of this machine that is gone, at
// once. Every choice of one winner is an INSERT … ON CONFLICT DO NOTHING or an UPDATE on the row's _seq_no, and every
// read is by the whole primary key (real-time), as the fleet table's (captures 67–74).
const LEASES = parseTableName(LEASES_TABLE, 'table')
const TTL_MS = 60_000
const RENEW_MS = 15_000
const HOLDER_ENV = 'CRATE_BENCH_TABLE_HOLDER'

const CREATE_SQL = createTableSql({
  table: LEASES,
  columns: ['"table_name" TEXT', '"holder" TEXT', '"at" TIMESTAMP WITH TIME ZONE', '"ttl_ms" BIGINT',
    'PRIMARY KEY ("table_name")'],
  shards: 1,
  replicas: '0-1'
})
const CLAIM_SQL = `INSERT INTO ${LEASES.sql} ("table_name", "holder", "at", "ttl_ms") ` +
  'VALUES (?, ?, CURRENT_TIMESTAMP, ?) ON CONFLICT DO NOTHING'
const READ_SQL = `SELECT "holder", "at", "ttl_ms", "_seq_no", "_primary_term" FROM ${LEASES.sql} WHERE "table_name" = ?`
const TAKE_OVER_SQL = `UPDATE ${LEASES.sql} SET "holder" = ?, "at" = CURRENT_TIMESTAMP, "ttl_ms" = ? ` +
  'WHERE "table_name" = ? AND "_seq_no" = ? AND "_primary_term" = ?'
const RENEW_SQL = `UPDATE ${LEASES.sql} SET "at" = CURRENT_TIMESTAMP WHERE "table_name" = ? AND "holder" = ?`
const RELEASE_SQL = `UPDATE ${LEASES.sql} SET "ttl_ms" = ? WHERE "table_name" = ? AND "holder" = ?`
const NOW_SQL = 'SELECT CURRENT_TIMESTAMP AS now'

/**
 * Who holds this run's leases: the study that started it (its environment's holder), else this process.
 * { host, pid, what, inherited }.
 */
function holderOfRun (runId, env = process.env) {
  const given = parseHolder(env[HOLDER_ENV])
  return given ? { ...given, inherited: true } : { ...ownHolder(`run ${runId}`), inherited: false }
}

/** The holder a study hands its runs: itself, or the study that started it. */
function holderForChildren (what, env = process.env) {
  return parseHolder(env[HOLDER_ENV]) ? env[HOLDER_ENV] : holderText(ownHolder(what))
}

const ownHolder = (what) => ({ host: os.hostname(), pid: process.pid, what })

function parseHolder (text) {
  if (typeof text !== 'string' || text.length > 1000) return null
  try {
    const h = JSON.parse(text)
    const ok = h && typeof h.host === 'string' && Number.isSafeInteger(h.pid) && h.pid > 0 && typeof h.what === 'string'
    return ok ? { host: h.host, pid: h.pid, what: h.what } : null
  } catch {
    return null
  }
}

const holderText = (h) => JSON.stringify({ host: h.host, pid: h.pid, what: h.what })
const sameHolder = (a, b) => Boolean(a) && a.host === b.host && a.pid === b.pid

/**
 * Takes `table`'s lease for `holder`, or says who has it: { taken: true } or { heldBy, renewedAgoMs }. A lease lapses
 * when nobody renewed it for its TTL, or at once when its holder is a process of this machine that no longer runs.
 */
async function takeLease ({ client, table, holder, alive = toolProcessRuns, hostname = os.hostname() }) {
  const shapeError = (what, answer) => new Error(`the answer to ${what} has an unexpected shape ` +
    `(${JSON.stringify(answer).slice(0, 120)})`)
  await client.sql(CREATE_SQL)
  for (let attempt = 0; attempt < 3; attempt++) {
    const claimed = await client.sql(CLAIM_SQL, [table.display, holderText(holder), TTL_MS])
    if (claimed && claimed.rowcount === 1) return { taken: true }
    if (!claimed || claimed.rowcount !== 0) throw shapeError(`the claim of ${LEASES.display}`, claimed)
    const read = await client.sql(READ_SQL, [table.display])
    if (!read || !Array.isArray(read.rows)) throw shapeError(`the read of ${LEASES.display}`, read)
    const row = read.rows[0]
    // Deleted between the claim and the read (by hand: a lapsed row is kept): claim again.
    if (row === undefined) continue
    if (!Array.isArray(row) || row.length !== 5) throw shapeError(`the read of ${LEASES.display}`, read)
    const [text, at, ttlMs, seqNo, primaryTerm] = row
    const held = parseHolder(text)
    const now = await serverNow(client)
    const renewedAgoMs = Number.isFinite(at) && Number.isFinite(now) ? Math.max(0, now - at) : null
    const gone = held && held.host === hostname && !alive(held.pid)
    const lapsed = !held || renewedAgoMs === null || renewedAgoMs >= ttlMs || gone
    if (!sameHolder(held, holder) && !lapsed) return { heldBy: held, renewedAgoMs }
    const taken = await client.sql(TAKE_OVER_SQL, [holderText(holder), TTL_MS, table.display, seqNo, primaryTerm])
    if (taken && taken.rowcount === 1) return { taken: true }
    // Another took it over between the read and the update: read again.
  }
  // Three others took it in turn while this run read it: one of them holds it now.
  return { heldBy: null, renewedAgoMs: null }
}

async function serverNow (client) {
  const answer = await client.sql(NOW_SQL)
  return answer && Array.isArray(answer.rows) && Array.isArray(answer.rows[0]) ? Number(answer.rows[0][0]) : NaN
}

/** The one line a run that would drop a table in use prints. */
function inUseMessage (table, { heldBy, renewedAgoMs }) {
  const who = heldBy
    ? `${heldBy.what} of this tool (pid ${heldBy.pid} on ${heldBy.host}` +
      `${renewedAgoMs === null ? '' : `, its lease renewed ${grouped(Math.round(renewedAgoMs / 1000))} s ago`})`
    : 'another run of this tool (its lease changed hands while this run read it)'
  return `table ${table.display} is in use by ${who}: it is kept; wait for that run to end (a lease nobody renews ` +
    `lapses after ${TTL_MS / 1000} s), give another --table, or --no-drop_table to add rows beside it`
}

/**
 * The leases a run took, renewed every RENEW_MS until stop(); stop() also releases those this process holds (a
 * study's lease is its own to let lapse: its next run follows). Renewal failures cost a warning.
 */
class LeaseKeeper {
  constructor ({ client, holder, log, timers = { setInterval, clearInterval } }) {
    this.client = client
    this.holder = holder
    this.log = log
    this.timers = timers
    this.tables = []
    this.timer = null
    this.warned = false
  }

  keep (table) {
    this.tables.push(table)
    if (this.timer) return
    this.timer = this.timers.setInterval(() => this.renew(), RENEW_MS)
    if (this.timer.unref) this.timer.unref()
  }

  async renew () {
    for (const table of this.tables) {
      try {
        await this.client.sql(RENEW_SQL, [table.display, holderText(this.holder)])
      } catch (error) {
        if (!this.warned) this.log(`warning: could not renew the lease of ${table.display}: ${error.message}`)
        this.warned = true
      }
    }
  }

  async stop () {
    if (this.timer) this.timers.clearInterval(this.timer)
    this.timer = null
    if (this.holder.inherited) return
    for (const table of this.tables.splice(0)) {
      await this.client.sql(RELEASE_SQL, [0, table.display, holderText(this.holder)]).catch(() => {})
    }
  }
}

module.exports = { takeLease, inUseMessage, holderOfRun, holderForChildren, LeaseKeeper, LEASES, TTL_MS, RENEW_MS,
  HOLDER_ENV }
