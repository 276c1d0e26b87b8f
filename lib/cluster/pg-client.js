'use strict'

const { EventEmitter } = require('node:events')
const { PgConnection } = require('./pg-connection')
const { PgError, PgConnectionError } = require('./pg-errors')
const { CrateHttpError, TransportError } = require('./http-errors')
const { now: preciseNow } = require('../base/clock')
const { bulkOf, frameBulk } = require('./pg-bulk-frame')
const { withDollars } = require('../base/placeholders')
const { arrayTypeOf, arrayText } = require('./pg-arrays')

// What a row CrateDB could not write answers over the PostgreSQL protocol: INSERT 0 -3, and nothing else (05, 14).
const NO_REASON = 'rejected by the server, no reason given over the PostgreSQL protocol'
const ROW_OK = Object.freeze({ rowcount: 1 })
const ROW_REJECTED = Object.freeze({ rowcount: -2,
  error: Object.freeze({ code: null, status: null, message: NO_REASON }) })
// SQLSTATEs of the answers the run acts on, as CrateDB's HTTP codes: the engine stops a run whose table is gone
// (4041) or whose password is wrong (401), whichever transport told it.
const CRATE_CODE_OF = { '42P01': 4041, '3F000': 4045, 23505: 4091, '42P07': 4093, 42601: 4000, XX000: 5000 }
const STATUS_OF = { 28000: 401, '28P01': 401 }

/**
 * The Transport over CrateDB's PostgreSQL wire protocol (lib/cluster/transport.js): a workload's request, written
 * for the HTTP endpoint ({"stmt", "args"} or {"stmt", "bulk_args"}), is sent as the extended protocol sends it —
 * a query with its parameters, a bulk as a JDBC batch (the statement parsed once per connection, Bind and Execute
 * per row, one Sync) — and its answer handed back in the HTTP endpoint's shape, so the workloads settle it as they
 * settle HTTP's: { results: [{ rowcount: 1 }, { rowcount: -2, error }] } per row, { cols, rows, rowcount }. A pool
 * of at most `maxSockets` connections over the hosts in turn; one cycle at a time on each.
 */
// A host whose session failed is tried after the others for this long; a session's share of the time left is never
// below this (or the time left, when less).
const PAUSE_MS = 5000
const MIN_SESSION_MS = 2000
// A session's opening that ran out of its time (as against one refused or reset).
const OUT_OF_TIME = new Set(['ETIMEDOUT', 'ECONNECTTIMEOUT'])

class PgClient extends EventEmitter {
  constructor ({ hosts, pgPorts = hosts.map(() => 5432), user, password, insecure = false, timeoutMs = 60_000,
    maxAnswerBytes, maxSockets = 4, pgInsert = 'batch' }) {
    super()
    // A batch's rows written as the protocol's messages by the row generators that can (lib/data/bulk-body.js).
    this.bulkEncoding = pgInsert === 'batch' ? 'pg-batch' : 'json'
    // TLS where the host's HTTP endpoint has it (--ssl, https://): the same promise on both ports.
    this.targets = hosts.map((h, i) => ({ hostname: h.hostname, port: pgPorts[i], ssl: h.protocol === 'https' }))
    this.hosts = this.targets.map((t) => ({ base: this.baseOf(t) }))
    this.settings = { user, password, insecure, maxAnswerBytes }
    this.insertShape = pgInsert
    this.timeoutMs = timeoutMs
    this.maxSockets = maxSockets
    this.idle = []
    this.open = new Set()
    this.waiting = []
    this.next = 0
    this.names = new Map()
    // A host whose session failed is tried last for a while (its own pause); since when every host has failed.
    this.pausedUntil = new Map()
    this.failingSince = null
  }

  /**
   * One request of a workload; `parse` is HTTP's (text to object) and not needed here; `units`, a batch's rows when
   * the caller knows them (else they are counted).
   */
  async post (body, { timeoutMs = this.timeoutMs, units = null } = {}) {
    if (Buffer.isBuffer(body) && body[0] === PARSE) return this.send({ batch: batchOf(body, units) }, timeoutMs)
    // A JDBC-style batch in the HTTP endpoint's JSON is framed from the body's bytes, never parsed
    // (lib/cluster/pg-bulk-frame.js).
    const bytes = Buffer.isBuffer(body) ? body : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body))
    const bulk = this.insertShape === 'batch' ? bulkOf(bytes) : null
    if (bulk) {
      const text = withDollars(bulk.stmt)
      const name = this.nameOf(text)
      const { bytes: framed, parseLength, rows } = frameBulk(bytes, bulk.rowsAt, name, text)
      return this.send({ batch: { name, body: framed, parseLength, rows } }, timeoutMs)
    }
    return this.send(JSON.parse(bytes), timeoutMs)
  }

  sql (stmt, args = [], { timeoutMs = this.timeoutMs } = {}) {
    return this.send({ stmt, args, prepared: false }, timeoutMs)
  }

  /** A request, from waiting for a session to its answer, within `timeoutMs` (--timeout): no wait is longer. */
  async send (request, timeoutMs) {
    // Every deadline of the pg path on one clock, to the fraction of a millisecond: one on Date.now()'s whole
    // milliseconds could end a request early.
    const deadline = preciseNow() + timeoutMs
    const connection = await this.acquire(deadline, timeoutMs)
    try {
      const batch = request.batch
      if (batch) {
        const { ok, counts } = await connection.batch(batch.name, batch.body, batch.parseLength, batch.rows,
          deadline)
        // Every row stored: the shorthand an all-ok HTTP answer is read into (lib/workloads/bulk-answer.js).
        if (counts === null) return { allRowsOk: ok }
        return { results: counts.map(rowResult) }
      }
      const text = withDollars(request.stmt)
      // --pg_insert values|unnest (a batch is framed above).
      if (Array.isArray(request.bulk_args)) {
        const stored = await this.insertWhole(connection, text, request.bulk_args, deadline)
        return { results: totalOnly(stored, request.bulk_args.length) }
      }
      // A workload's queries are prepared once per connection; the master's statements are not worth it.
      const name = request.prepared === false ? '' : this.nameOf(text)
      const answer = await connection.query(text, request.args || [], name, deadline)
      // As the HTTP endpoint answers: a statement without columns (DDL, an INSERT) has one empty row.
      return { cols: answer.cols, rows: answer.cols.length ? answer.rows : [[]], rowcount: answer.rowcount }
    } catch (error) {
      if (connection.abandoned) {
        throw new TransportError({ code: 'ABORTED', message: `request to ${connection.base} abandoned before its ` +
          'answer arrived', host: connection.base, sent: true })
      }
      throw asTransportError(error, connection)
    } finally {
      this.release(connection)
    }
  }

  /**
   * --pg_insert values|unnest: the rows as one statement (values: as many VALUES groups as 32,767 parameters allow,
   * several statements if need be; unnest: one array per column), each answering only how many rows it stored.
   */
  async insertWhole (connection, text, rows, deadline) {
    const shape = /^(INSERT INTO .+\)) VALUES \((.*)\)$/s.exec(text)
    if (!shape) throw new Error(`--pg_insert ${this.insertShape} takes an INSERT … VALUES statement (got ${text})`)
    const [, head] = shape
    const width = rows[0] ? rows[0].length : 0
    if (this.insertShape === 'unnest') {
      const types = (rows[0] || []).map(arrayTypeOf)
      const unnest = `${head} (SELECT * FROM UNNEST(${types.map((t, i) => `$${i + 1}::array(${t})`).join(', ')}))`
      const columns = types.map((t, i) => arrayText(rows.map((row) => row[i])))
      return (await connection.query(unnest, columns, this.nameOf(unnest), deadline)).rowcount
    }
    let stored = 0
    const perStatement = Math.max(1, Math.floor(MAX_PARAMETERS / Math.max(1, width)))
    for (let from = 0; from < rows.length; from += perStatement) {
      const chunk = rows.slice(from, from + perStatement)
      const groups = chunk.map((row, r) => `(${row.map((_, c) => `$${r * width + c + 1}`).join(', ')})`)
      const values = `${head} VALUES ${groups.join(', ')}`
      stored += (await connection.query(values, chunk.flat(), this.nameOf(values), deadline)).rowcount
    }
    return stored
  }

  /** A prepared statement's name per text: parsed once per connection, bound for every batch after. */
  nameOf (text) {
    let name = this.names.get(text)
    if (!name) {
      name = `crate_bench_${this.names.size + 1}`
      this.names.set(text, name)
    }
    return name
  }

  /**
   * A session for a request: an idle one, a new one while fewer than maxSockets are open, else the next one released.
   * Not ready by `deadline`: the request fails, nothing of it sent.
   */
  acquire (deadline, timeoutMs) {
    while (this.idle.length > 0) {
      const ready = this.idle.pop()
      if (!ready.closed) return Promise.resolve(ready)
      this.open.delete(ready)
    }
    if (this.open.size < this.maxSockets) return this.connect(deadline, deadline - timeoutMs)
    return new Promise((resolve, reject) => {
      const waiter = { resolve, reject, deadline, began: deadline - timeoutMs }
      waiter.timer = setTimeout(() => {
        this.waiting.splice(this.waiting.indexOf(waiter), 1)
        reject(new TransportError({ code: 'ETIMEDOUT', message: `no PostgreSQL session free within ${timeoutMs} ms ` +
          `(--timeout; ${this.open.size} open, each busy): request not sent`, host: null, sent: false }))
      }, Math.max(0, deadline - preciseNow()))
      this.waiting.push(waiter)
    })
  }

  /**
   * A new session on the next host that takes one, by `deadline`; a host that refuses or stays silent is passed
   * over (nothing was sent), and tried last for PAUSE_MS after. Each host gets its share of the time left, so that
   * one gone silent (a host cut off: its connection hangs, nothing refuses it) never takes the request's whole time
   * from the others. When none takes one: ENOHOST (the server gone: the run stops) when every host refused, or when
   * hosts have failed every session for longer than --timeout; else ECONNECT, this request's rows failed and the run
   * going on (a cluster that reconfigures after losing a node answers no new session for a while). `began`: when the
   * request began.
   */
  async connect (deadline, began) {
    const failures = []
    const now = preciseNow()
    const start = this.next++
    const order = this.targets.map((_, i) => this.targets[(start + i) % this.targets.length])
    const paused = (t) => (this.pausedUntil.get(this.baseOf(t)) ?? 0) > now
    order.sort((a, b) => paused(a) - paused(b))
    for (let tried = 0; tried < order.length; tried++) {
      const left = deadline - preciseNow()
      if (left <= 0) break
      const share = Math.max(Math.min(left, MIN_SESSION_MS), left / (order.length - tried))
      // Shared when hosts after this one get the rest; the last one tried has what is left of the request's time.
      const connection = this.session(order[tried], preciseNow() + share, { shared: share < left })
      this.open.add(connection)
      try {
        const opened = await connection.open()
        this.pausedUntil.delete(connection.base)
        this.failingSince = null
        return opened
      } catch (error) {
        this.open.delete(connection)
        const fatal = openingFailure(error, connection)
        if (fatal) throw fatal
        failures.push(error)
        this.pausedUntil.set(connection.base, preciseNow() + PAUSE_MS)
        this.emit('host-down', { host: connection.base, detail: error.message, at: Date.now() })
      }
    }
    // Failing since the first request whose every attempt failed: that one request is never the server gone. A
    // request begun after it that failed, over --timeout past it or by running out of its own time, is: judged on
    // the order of the two, never on whether a timer of exactly --timeout fired a hair before the precise clock.
    const failedAt = preciseNow()
    if (this.failingSince === null) this.failingSince = failedAt
    const ranOut = failures.length === 0 || OUT_OF_TIME.has(failures.at(-1).code)
    const refusedAll = failures.length === this.targets.length && failures.every((f) => f.code === 'ECONNREFUSED')
    const gone = refusedAll || (began >= this.failingSince &&
      (ranOut || failedAt - this.failingSince >= this.timeoutMs))
    throw new TransportError({ code: gone ? 'ENOHOST' : 'ECONNECT', message: `no host takes a connection` +
      `${gone || failures.length === 0 ? '' : ' within the request\'s time'}: ${failures.length ? failures.map((f) =>
        f.message).join('; ') : 'no time left to try one'}`, host: null, sent: false })
  }

  baseOf (target) {
    return `postgres://${target.hostname}:${target.port}`
  }

  /**
   * A session to `target`, opened within the time left to `deadline`; `shared`: that time is its share of the
   * request's across the hosts, and it says so when it runs out.
   */
  session (target, deadline = preciseNow() + this.timeoutMs, { shared = false } = {}) {
    const timeoutMs = Math.max(1, deadline - preciseNow())
    const connection = new PgConnection({ host: target.hostname, port: target.port, ssl: target.ssl,
      ...this.settings, timeoutMs, limitMs: this.timeoutMs })
    connection.base = this.baseOf(target)
    if (shared) {
      connection.limitText = `${Math.round(timeoutMs / 100) / 10} s (its share of --timeout across the hosts)`
    }
    return connection
  }

  release (connection) {
    if (connection.closed) this.open.delete(connection)
    const waiter = this.waiting.shift()
    if (!waiter) {
      if (!connection.closed) this.idle.push(connection)
      return
    }
    clearTimeout(waiter.timer)
    if (!connection.closed) waiter.resolve(connection)
    else this.connect(waiter.deadline, waiter.began).then(waiter.resolve, waiter.reject)
  }

  /**
   * Every host takes a connection and a session (the password, TLS, the port's protocol are right), each within
   * --timeout, its answer within --max_answer_mb; abort() ends the check at once.
   */
  async requireOneHost () {
    const failures = []
    for (const target of this.targets) {
      const deadline = preciseNow() + this.timeoutMs
      const connection = this.session(target, deadline)
      this.open.add(connection)
      try {
        await connection.open()
        await connection.query('SELECT 1', [], '', deadline)
        connection.close()
      } catch (error) {
        connection.destroy()
        const fatal = openingFailure(error, connection)
        if (fatal) throw fatal
        failures.push(error)
      } finally {
        this.open.delete(connection)
      }
    }
    if (failures.length === this.targets.length) {
      throw new TransportError({ code: 'ENOHOST', message: failures.map((f) => f.message).join('; '), host: null,
        sent: false })
    }
    return failures
  }

  downHosts () {
    return []
  }

  /**
   * Abandons every request in flight (Ctrl-C twice, --graceful_stop): each rejects with ABORTED, in doubt. Requests
   * sent afterwards go out as usual, on new connections.
   */
  abort () {
    for (const connection of this.open) {
      if (connection.cycle === null && connection.phase === null) continue
      connection.abandoned = true
      connection.destroy()
    }
  }

  close () {
    for (const connection of this.open) connection.close()
    this.open.clear()
    this.idle = []
  }
}

const PARSE = 0x50
const EXECUTE = 0x45

/**
 * A batch written as the protocol's messages (lib/data/pg-batch-rows.js): its statement's name from its Parse, its
 * rows as the caller counted them, or counted by their Executes (message lengths only: 10-30 ns a row).
 */
function batchOf (body, units = null) {
  const parseLength = 1 + body.readInt32BE(1)
  const named = { name: body.toString('utf8', 5, body.indexOf(0, 5)), body, parseLength }
  if (Number.isInteger(units)) return { ...named, rows: units }
  let rows = 0
  for (let at = parseLength; at + 5 <= body.length;) {
    if (body[at] === EXECUTE) rows++
    const length = (body[at + 1] << 24) | (body[at + 2] << 16) | (body[at + 3] << 8) | body[at + 4]
    // Not a message: no count (the batch is read as it comes), never a loop that does not end.
    if (length < 4) return { ...named, rows: 0 }
    at += 1 + length
  }
  return { ...named, rows }
}

// A Bind carries at most this many parameters (its count is a 16-bit integer).
const MAX_PARAMETERS = 32_767
const NOT_STORED = 'not stored: a multi-row insert over the PostgreSQL protocol answers only how many rows it stored ' +
  '(--pg_insert)'

/** A total as per-row results: the rows stored, then the rest of the rows sent failed without a reason of their own. */
function totalOnly (stored, sent) {
  const ok = Math.max(0, Math.min(stored ?? 0, sent))
  return [...new Array(ok).fill({ rowcount: 1 }),
    ...new Array(sent - ok).fill({ rowcount: -2, error: { code: null, status: null, message: NOT_STORED } })]
}

/** A stored row, or one rejected without a reason (its count -3), as the HTTP endpoint's per-row result. */
function rowResult (count) {
  return count === 1 ? ROW_OK : ROW_REJECTED
}

/**
 * What a failed session means beyond its host: the error to end the request (or the check) with — abandoned
 * (Ctrl-C), or a setting another host would refuse alike (the server said no, TLS, not its protocol) — or null when
 * only that host is down. Nothing of a request went out on a session that never started.
 */
function openingFailure (error, connection) {
  if (connection.abandoned) {
    return new TransportError({ code: 'ABORTED', message: `the session with ${connection.base} was abandoned`,
      host: connection.base, sent: false })
  }
  const settingIsWrong = !(error instanceof PgConnectionError) || SETTING_CODES.has(error.code)
  return settingIsWrong ? asTransportError(error, connection, false) : null
}

const SETTING_CODES = new Set(['EPROTOCOL', 'ENOTLS', 'ECERT', 'ETLS', 'EAUTH'])

/**
 * The server's no as CrateHttpError (its SQLSTATE in the message), a lost connection as TransportError; a batch's
 * rows answered before the loss go with it (`answered`: { ok, failed, failures }), the rest are in doubt.
 */
function asTransportError (error, connection, sent = error.sent) {
  if (error instanceof TransportError || error instanceof CrateHttpError) return error
  if (error instanceof PgError) {
    // No HTTP status over this protocol, but for what the engine acts on (a wrong password).
    return new CrateHttpError({ status: STATUS_OF[error.code] ?? null, code: CRATE_CODE_OF[error.code] ?? error.code,
      message: `${error.message} (SQLSTATE ${error.code})` })
  }
  if (error instanceof PgConnectionError) {
    const lost = new TransportError({ code: error.code, message: error.message, host: connection.base, sent })
    if (error.answered) {
      const { ok, counts } = error.answered
      const rejected = counts.length - ok
      lost.answered = { ok, failed: rejected,
        failures: rejected > 0 ? [{ code: null, status: null, message: NO_REASON, count: rejected }] : [] }
    }
    return lost
  }
  return error
}

module.exports = { PgClient, NO_REASON, NOT_STORED }
