'use strict'

const { performance } = require('node:perf_hooks')
const { serialize } = require('pg-protocol')
const { DEFAULT_MAX_ANSWER_BYTES } = require('./http-errors')
const { now: preciseNow } = require('../base/clock')
const { PgError, PgConnectionError, abandonedOpening, tooLarge, unasked, outOfStep } = require('./pg-errors')
const { openSession, READ_BUFFER_BYTES } = require('./pg-opening')
const { GATHER_SHARE, MIN_GATHER_MS, MAX_GATHER_MS } = require('./pg-gulps')
const { textValue, isInsertOk, commandCount, md5Password } = require('./pg-messages')

const PARSE_COMPLETE = 0x31
const BIND_COMPLETE = 0x32
const COMMAND_COMPLETE = 0x43
const ERROR_RESPONSE = 0x45
const NOTICE_RESPONSE = 0x4e
// What a server may send between cycles (protocol 3, "asynchronous operations"): ParameterStatus, NoticeResponse,
// NotificationResponse. An ErrorResponse there ends the session (a shutdown's FATAL).
const ASYNCHRONOUS = new Set([0x53, NOTICE_RESPONSE, 0x41, ERROR_RESPONSE])
// A batch's answer, flushed by CrateDB a row at a time, is read in gulps: why and how long in lib/cluster/pg-gulps.js.

/**
 * One connection of CrateDB's PostgreSQL wire protocol (protocol 3), as the captures in test/fixtures/pgwire show
 * it: an SSLRequest when TLS is asked (N: the server has none), the startup (trust, or a cleartext password), then
 * cycles of the extended protocol, each ended by Sync and answered up to ReadyForQuery. One cycle at a time; the
 * messages of a cycle go out in one write (a batch's Bind/Execute pairs are pipelined). pg-protocol (node-postgres's
 * own) writes and reads the messages; this file only sequences them.
 *
 * Every wait is bounded, as a hostile or broken server would otherwise hold the run: the whole opening (connect,
 * SSLRequest, startup) by `timeoutMs`, each cycle by the deadline its caller gives; every message by its length (4 to
 * `maxAnswerBytes`) and every cycle's answer by `maxAnswerBytes` (--max_answer_mb). `timeoutMs` may be what is left
 * of a request's time; an error names the user's --timeout (`limitMs`), not the remainder.
 */
class PgConnection {
  constructor ({ host, port, user, password = '', ssl = false, insecure = false, database = 'doc', timeoutMs = 60_000,
    limitMs = timeoutMs, maxAnswerBytes = DEFAULT_MAX_ANSWER_BYTES, now = () => performance.now() }) {
    Object.assign(this, { host, port, user, password, ssl, insecure, database, timeoutMs, limitMs })
    Object.assign(this, { maxAnswerBytes, now })
    this.socket = null
    this.cycle = null
    this.prepared = new Set()
    this.closed = false
    // Destroyed by the client with a cycle in flight (PgClient#abort).
    this.abandoned = false
    this.parser = null
    // The chunks of a message not complete yet, their bytes, and the bytes that complete it: held, not concatenated
    // again for each chunk (a large message in small chunks would cost the square of its length).
    this.held = null
    this.heldBytes = 0
    this.needed = 0
    // While opening: how far it got, and how to end it early (timeout, abort).
    this.phase = null
    this.endOpening = null
    // Reads in gulps (plain TCP: a TLS socket cannot stop reading from JavaScript); the timer that reads again.
    this.gathers = !ssl
    this.gathering = false
    this.onChunk = null
  }

  get address () {
    return `${this.host}:${this.port}`
  }

  /**
   * Connects and starts the session within `timeoutMs`; rejects with a PgError (the server said no) or a
   * PgConnectionError (no session: `sent` is false, no request of the caller's went out on it).
   */
  open () {
    return openSession(this)
  }

  /**
   * One statement with its values: Parse (once per connection for a named statement), Bind, Describe, Execute, Sync.
   * Resolves with { cols, rows, rowcount, command } by `deadline` (ms since the epoch), rejects with the PgError of
   * the ErrorResponse.
   */
  async query (text, values = [], name = '', deadline = preciseNow() + this.timeoutMs) {
    const parsing = name === '' || !this.prepared.has(name)
    const out = parsing ? [serialize.parse({ name, text })] : []
    out.push(serialize.bind({ statement: name, values: values.map(textValue) }), serialize.describe({ type: 'P' }),
      serialize.execute(), serialize.sync())
    const answer = await this.run(Buffer.concat(out), { deadline })
    if (answer.error) throw answer.error
    if (parsing && name !== '') this.prepared.add(name)
    const command = answer.commands[0] || ''
    return { cols: answer.fields, rows: answer.rows, rowcount: commandCount(command), command }
  }

  /**
   * A batch as JDBC's executeBatch sends it: `body` is its messages (lib/data/pg-batch-rows.js), a Parse of the
   * statement `name` (its first `parseLength` bytes, left out once this connection has parsed it), then Bind and
   * Execute per row (`rows` of them) and one Sync. CrateDB runs it as one bulk operation and answers one
   * CommandComplete per row (captures 04, 05, 14). Resolves with { ok, counts }: the rows stored, and every row's
   * count (1 stored, -3 failed without a reason) only when one was not stored; rejects with the PgError when the
   * cycle failed as a whole (no row of it is stored: 12). A connection lost in the middle of the answer (a FATAL, a
   * close, a timeout, a message that cannot be read) rejects with a PgConnectionError whose `answered` holds the rows
   * already answered.
   */
  async batch (name, body, parseLength, rows, deadline = preciseNow() + this.timeoutMs) {
    const parsing = !this.prepared.has(name)
    const answer = await this.run(parsing ? body : body.subarray(parseLength), { batch: true, rows, deadline })
    if (answer.error) throw answer.error
    if (parsing) this.prepared.add(name)
    return { ok: answer.ok, counts: answer.counts }
  }

  /**
   * The answer's messages, as they complete across chunks. A batch's CommandCompletes (one per row) and
   * BindCompletes are read here, a row's INSERT 0 1 by its bytes: pg-protocol's message objects cost more per row
   * than the whole HTTP path's answer. Every other message goes to pg-protocol's parser. A length outside 4 to the
   * cap, or a cycle's answer beyond the cap, is a protocol error: the connection is given up.
   */
  read (chunk) {
    const cycle = this.cycle
    if (cycle !== null) {
      cycle.bytes += chunk.length
      if (cycle.bytes > this.maxAnswerBytes) throw tooLarge(this)
    }
    let data = chunk
    if (this.held !== null) {
      // A read into the connection's own buffer is overwritten by the next read: what is held is copied.
      this.held.push(this.gathers ? Buffer.from(chunk) : chunk)
      this.heldBytes += chunk.length
      if (this.heldBytes < this.needed) return
      data = Buffer.concat(this.held, this.heldBytes)
      this.held = null
    }
    let at = 0
    let needed = 5
    while (data.length - at >= 5) {
      const length = (data[at + 1] << 24) | (data[at + 2] << 16) | (data[at + 3] << 8) | data[at + 4]
      if (length < 4 || length > this.maxAnswerBytes) {
        throw new PgConnectionError(`${this.address} sent a message of ${length} bytes (type ` +
          `${JSON.stringify(String.fromCharCode(data[at]))}; a message has 4 to ${this.maxAnswerBytes} bytes, ` +
          '--max_answer_mb): not the PostgreSQL protocol as CrateDB speaks it', 'EPROTOCOL', true)
      }
      const end = at + 1 + length
      if (end > data.length) {
        needed = 1 + length
        break
      }
      const type = data[at]
      const current = this.cycle
      if (current === null && !ASYNCHRONOUS.has(type)) throw unasked(this, type)
      if (type === BIND_COMPLETE) {
        if (current.batch) current.bound++
      } else if (type === PARSE_COMPLETE) {
        // Nothing to read: it answers the Parse.
      } else if (type === COMMAND_COMPLETE && current.batch) {
        // Each row of a batch is answered BindComplete, CommandComplete: one without its BindComplete, or beyond the
        // batch's rows, answers nothing of this batch (a late answer of an earlier cycle).
        if (current.bound <= answeredOf(current) || answeredOf(current) >= current.batchRows) {
          throw outOfStep(this, `a CommandComplete beyond the ${answeredOf(current)} rows bound so far`)
        }
        if (isInsertOk(data, at, end)) {
          current.ok++
          if (current.counts !== null) current.counts.push(1)
        } else {
          if (current.counts === null) current.counts = new Array(current.ok).fill(1)
          current.counts.push(commandCount(data.toString('utf8', at + 5, end - 1)))
        }
      } else {
        // pg-protocol reads an error's fields up to a NUL that ends them: without it, it would read for ever.
        if ((type === ERROR_RESPONSE || type === NOTICE_RESPONSE) && (end - at < 6 || data[end - 1] !== 0)) {
          throw new PgConnectionError(`${this.address} sent an error or notice without its terminating NUL: not ` +
            'the PostgreSQL protocol as CrateDB speaks it', 'EPROTOCOL', true)
        }
        this.parser.parse(data.subarray(at, end), (message) => this.receive(message))
      }
      at = end
    }
    if (at < data.length) {
      this.held = [data === chunk && this.gathers ? Buffer.from(data.subarray(at)) : data.subarray(at)]
      this.heldBytes = data.length - at
      this.needed = needed
    }
  }

  /**
   * After a read of `bytes` of a batch's answer: unless every row is answered, or the request is too young for a gulp,
   * no read until the gulp is due (GATHER_SHARE of the request's time so far), then one read of all that came. A read
   * that filled the buffer leaves more waiting: read on.
   */
  gatherIfStreaming (bytes) {
    const cycle = this.cycle
    if (!this.gathers || this.gathering || cycle === null || cycle.batchRows === 0 || this.closed) return
    if (answeredOf(cycle) >= cycle.batchRows || bytes >= READ_BUFFER_BYTES) return
    const waitMs = Math.min(MAX_GATHER_MS, (this.now() - cycle.startedAt) * GATHER_SHARE)
    if (waitMs < MIN_GATHER_MS) return
    this.gathering = true
    this.socket.pause()
    gulps.add(this, this.now() + waitMs)
  }

  /** The gulp's time came (gulps): read what came meanwhile. */
  readAgain () {
    this.gathering = false
    if (!this.closed) this.socket.resume()
  }

  run (bytes, { startup = false, batch = false, rows = 0, deadline = null } = {}) {
    if (this.cycle) return Promise.reject(new Error('one cycle at a time on a PostgreSQL connection'))
    if (this.closed) return Promise.reject(new PgConnectionError(`${this.address} closed the connection`, 'ECLOSED'))
    return new Promise((resolve, reject) => {
      const cycle = { resolve, reject, startup, batch, fields: [], rows: [], commands: [], ok: 0, counts: null,
        bound: 0,
        error: null, sent: false, bytes: 0, timer: null, batchRows: batch ? rows : 0, startedAt: this.now() }
      this.cycle = cycle
      if (deadline !== null) {
        const leftAtStart = Math.max(0, deadline - preciseNow())
        const ms = Math.round(leftAtStart)
        const expire = () => {
          if (this.cycle !== cycle) return
          // A timer fires by the event loop's time, which can lag the clock: re-armed, it never ends a cycle before
          // its deadline, so a request that timed out never shows a latency under --timeout.
          const left = deadline - preciseNow()
          if (left > 0) {
            cycle.timer = setTimeout(expire, Math.ceil(left))
            return
          }
          // Written (or being written): what it carried may be stored.
          const error = new PgConnectionError(`no answer from postgres://${this.address} within ${ms} ms ` +
            '(--timeout)', 'ETIMEDOUT', true)
          cycle.sent = true
          this.fail(error)
        }
        cycle.timer = setTimeout(expire, Math.ceil(leftAtStart))
      }
      this.socket.write(bytes, () => { if (this.cycle === cycle) cycle.sent = true })
    })
  }

  receive (message) {
    const cycle = this.cycle
    if (!cycle) return
    switch (message.name) {
      case 'authenticationCleartextPassword':
        return this.socket.write(serialize.password(this.password))
      case 'authenticationMD5Password':
        return this.socket.write(serialize.password(md5Password(this.user, this.password, message.salt)))
      case 'authenticationSASL':
        return this.fail(new PgConnectionError(`${this.address} asks for SASL authentication, which this ` +
          'tool does not speak', 'EAUTH'))
      case 'parameterStatus':
        // Nothing the tool reads: kept, a server sending new names would grow the connection without bound.
        return
      case 'rowDescription':
        cycle.fields = message.fields.map((f) => f.name)
        return
      case 'dataRow':
        cycle.rows.push(message.fields)
        return
      case 'commandComplete':
        cycle.commands.push(message.text)
        return
      case 'error':
        if (message.severity === 'FATAL' && cycle.batch && !cycle.startup) {
          // The session ends in the middle of a batch's answer: the rows answered stand, the rest are in doubt.
          return this.fail(new PgConnectionError(`${this.address} ended the session: ${message.message} ` +
            `(SQLSTATE ${message.code})`, 'ECLOSED', true))
        }
        if (!cycle.error) cycle.error = new PgError(message)
        // A FATAL error ends the session: the server closes the connection, no ReadyForQuery follows.
        if (message.severity === 'FATAL') this.settle((c) => c.reject(cycle.error))
        return
      case 'readyForQuery':
        if (cycle.batch && !cycle.error && answeredOf(cycle) < cycle.batchRows) {
          // The rows not answered are in doubt: a later answer would belong to no cycle of ours.
          return this.fail(outOfStep(this, `a ReadyForQuery after ${answeredOf(cycle)} of the batch's ` +
            `${cycle.batchRows} rows were answered`))
        }
        return this.settle((c) => (c.startup && c.error ? c.reject(c.error) : c.resolve(c)))
    }
  }

  settle (how) {
    const cycle = this.cycle
    this.cycle = null
    if (!cycle) return
    clearTimeout(cycle.timer)
    how(cycle)
  }

  fail (error) {
    const cycle = this.cycle
    if (!cycle) return this.drop()
    this.cycle = null
    clearTimeout(cycle.timer)
    // Sent and unanswered: what it carried may have been written.
    error.sent = error.sent && cycle.sent
    if (cycle.batch && (cycle.ok > 0 || cycle.counts !== null)) {
      error.answered = { ok: cycle.ok, counts: cycle.counts ?? new Array(cycle.ok).fill(1) }
    }
    cycle.reject(error)
    this.drop()
  }

  /** Gives the connection up from outside (a timeout, an abort): a cycle in flight fails, an opening ends at once. */
  destroy () {
    this.drop()
    if (this.endOpening) this.endOpening(abandonedOpening(this))
  }

  drop () {
    this.closed = true
    gulps.waiting.delete(this)
    if (this.socket) this.socket.destroy()
  }

  close () {
    if (this.socket && !this.closed) this.socket.end(serialize.end())
    this.closed = true
    gulps.waiting.delete(this)
  }
}

/**
 * The connections waiting for their next gulp, each with the time it is due, read again by one timer at the earliest
 * of them, with every other one due within MIN_GATHER_MS: a timer per connection would wake the process for each of
 * them, and on a virtual machine a wake-up costs more than the reads it saves.
 */
const gulps = {
  waiting: new Map(),
  timer: null,
  timerAt: Infinity,
  now: () => performance.now(),
  add (connection, dueAt) {
    this.waiting.set(connection, dueAt)
    if (dueAt >= this.timerAt) return
    clearTimeout(this.timer)
    this.timerAt = dueAt
    this.timer = setTimeout(() => this.readDue(), Math.max(0, dueAt - this.now()))
  },
  readDue () {
    this.timer = null
    this.timerAt = Infinity
    const soon = this.now() + MIN_GATHER_MS
    let next = Infinity
    for (const [connection, dueAt] of [...this.waiting]) {
      if (dueAt <= soon) {
        this.waiting.delete(connection)
        connection.readAgain()
      } else {
        next = Math.min(next, dueAt)
      }
    }
    if (next < Infinity) {
      this.timerAt = next
      this.timer = setTimeout(() => this.readDue(), Math.max(0, next - this.now()))
    }
  },
  /** Every connection waiting read again now (a test's clock, a client that closes). */
  readAll () {
    clearTimeout(this.timer)
    this.timer = null
    this.timerAt = Infinity
    const due = [...this.waiting.keys()]
    this.waiting.clear()
    for (const connection of due) connection.readAgain()
  }
}

/** The rows of a batch cycle answered so far. */
function answeredOf (cycle) {
  return cycle.counts === null ? cycle.ok : cycle.counts.length
}

module.exports = { gulps, GATHER_SHARE, MIN_GATHER_MS, MAX_GATHER_MS, READ_BUFFER_BYTES, PgConnection }
