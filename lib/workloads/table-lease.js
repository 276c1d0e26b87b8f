'use strict'

const os = require('node:os')
const { parseTableName, createTableSql } = require('../data/schema')
const { LEASES_TABLE } = require('../data/tool-tables')
const { EXISTS_SQL } = require('./owned-tables')
const { toolProcessRuns } = require('../base/processes')
const { grouped } = require('../base/format')

// Which run of this tool uses a table now: a lease per table, renewed while a run writes it. A table this tool made
// and nobody else wrote may be dropped by the next run (owned-tables.js), but not from under a grid, a capacity search
// or a study between its runs, nor from under a run that only reads it (issue 57: a second run dropped the table a
// running grid used). The children of one study hold its lease (CRATE_BENCH_TABLE_HOLDER), so that its next run
// drops its own table. A lease nobody renews lapses after TTL_MS; one of a process of this machine that is gone, at
// once. Every choice of one winner is an INSERT … ON CONFLICT DO NOTHING or an UPDATE on the row's _seq_no, and every
// read is by the whole primary key (real-time), as the fleet table's (captures 67–74). A lease never lives longer than
// its TTL from when it is read (one renewed in the future, or of a longer TTL, is cut back: no forged row blocks a
// table for ever). A leases table dropped while runs hold leases: each holder claims its lease again at its next
// renewal (or says it lost it), and a run that finds the table just made waits one renewal before it decides.
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
// How far ahead of the server's clock a lease's time may be (a holder's renewal crossing the read): more is forged.
const CLOCK_ALLOWANCE_MS = 5000
// Holders of a lease lost with a dropped leases table claim it again within a renewal: waited for, with a margin.
const RECLAIM_WAIT_MS = RENEW_MS + 5000
const CUT_BACK_SQL = `UPDATE ${LEASES.sql} SET "at" = CURRENT_TIMESTAMP, "ttl_ms" = ? ` +
  'WHERE "table_name" = ? AND "_seq_no" = ? AND "_primary_term" = ?'

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

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
async function takeLease ({ client, table, holder, alive = toolProcessRuns, hostname = os.hostname(),
  wait = sleep, log = () => {} }) {
  const shapeError = (what, answer) => new Error(`the answer to ${what} has an unexpected shape ` +
    `(${JSON.stringify(answer).slice(0, 120)})`)
  const made = await client.sql(CREATE_SQL)
  if (made && made.rowcount === 1 && await tableExists(client, table)) {
    // The leases table was just made while the table exists: it was dropped, and with it the leases of runs that may
    // still use the table. They claim theirs again at their next renewal: wait for it before deciding.
    log(`the leases table ${LEASES.display} was just made while ${table.display} exists: waiting ` +
      `${RECLAIM_WAIT_MS / 1000} s for a run that uses it to claim its lease again`)
    await wait(RECLAIM_WAIT_MS)
  }
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
    const lapsed = !held || renewedAgoMs === null || !(ttlMs > 0) || renewedAgoMs >= ttlMs || gone
    if (!sameHolder(held, holder) && !lapsed) {
      // A lease renewed in the future, or of a TTL longer than a holder of this tool gives, is cut back to the TTL
      // from now: it lapses then unless its holder really renews it.
      if (at - now > CLOCK_ALLOWANCE_MS || ttlMs > TTL_MS) {
        const cut = await client.sql(CUT_BACK_SQL, [TTL_MS, table.display, seqNo, primaryTerm])
        if (!cut || cut.rowcount !== 1) continue
        return { heldBy: held, renewedAgoMs: 0 }
      }
      return { heldBy: held, renewedAgoMs }
    }
    const taken = await client.sql(TAKE_OVER_SQL, [holderText(holder), TTL_MS, table.display, seqNo, primaryTerm])
    if (taken && taken.rowcount === 1) return { taken: true }
    // Another took it over between the read and the update: read again.
  }
  // Three others took it in turn while this run read it: one of them holds it now.
  return { heldBy: null, renewedAgoMs: null }
}

async function tableExists (client, table) {
  const answer = await client.sql(EXISTS_SQL, [table.schema, table.table])
  return Boolean(answer && Array.isArray(answer.rows) && answer.rows.length > 0)
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
 * study's lease is its own to let lapse: its next run follows). A renewal that finds its lease gone (the leases table
 * dropped, its row deleted) claims it again; one another holder took meanwhile is lost: said at once, and in `lost`
 * for the result. Other renewal failures cost a warning.
 */
class LeaseKeeper {
  constructor ({ client, holder, log, timers = { setInterval, clearInterval }, now = () => new Date() }) {
    this.client = client
    this.holder = holder
    this.log = log
    this.timers = timers
    this.now = now
    this.tables = []
    this.lost = []
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
    for (const table of [...this.tables]) {
      try {
        const renewed = await this.client.sql(RENEW_SQL, [table.display, holderText(this.holder)])
        if (!renewed || renewed.rowcount !== 1) await this.claimAgain(table)
      } catch (error) {
        if (error.code === 4041) {
          await this.claimAgain(table).catch((e) => this.warn(table, e))
        } else {
          this.warn(table, error)
        }
      }
    }
  }

  /** The lease of `table` gone: claimed again, or, where another holds it now, lost (said, and kept for the result). */
  async claimAgain (table) {
    await this.client.sql(CREATE_SQL)
    const claimed = await this.client.sql(CLAIM_SQL, [table.display, holderText(this.holder), TTL_MS])
    if (claimed && claimed.rowcount === 1) {
      this.log(`note: the lease of ${table.display} was gone (its leases table dropped, or its row deleted): claimed ` +
        'again')
      return
    }
    this.tables.splice(this.tables.indexOf(table), 1)
    const read = await this.client.sql(READ_SQL, [table.display]).catch(() => null)
    const by = read && Array.isArray(read.rows) && read.rows[0] ? parseHolder(read.rows[0][0]) : null
    this.lost.push({ table: table.display, at: this.now().toISOString(), by: by ? `${by.what} (pid ${by.pid} on ` +
      `${by.host})` : null })
    this.log(`warning: this run lost the lease of ${table.display}${by ? ` to ${by.what} (pid ${by.pid} on ` +
      `${by.host})` : ''}: its leases table was dropped or its row taken; another run may drop the table while this ` +
      'one writes it')
  }

  warn (table, error) {
    if (!this.warned) this.log(`warning: could not renew the lease of ${table.display}: ${error.message}`)
    this.warned = true
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
  RECLAIM_WAIT_MS, HOLDER_ENV }
