'use strict'

const net = require('node:net')
const tls = require('node:tls')
const { serialize } = require('pg-protocol')
const { Parser } = require('pg-protocol/dist/parser')

const PARSE_COMPLETE = 0x31
const BIND_COMPLETE = 0x32
const COMMAND_COMPLETE = 0x43
// A row of a batch stored: CommandComplete "INSERT 0 1".
const INSERT_OK = Buffer.from('INSERT 0 1\0')
// The first byte of a backend message the startup can answer with: authentication, an error, a notice.
const STARTUP_ANSWERS = new Set(['R', 'E', 'N'])

/**
 * One connection of CrateDB's PostgreSQL wire protocol (protocol 3), as the captures in test/fixtures/pgwire show
 * it: an SSLRequest when TLS is asked (N: the server has none), the startup (trust, or a cleartext password), then
 * cycles of the extended protocol, each ended by Sync and answered up to ReadyForQuery. One cycle at a time; the
 * messages of a cycle go out in one write (a batch's Bind/Execute pairs are pipelined). pg-protocol (node-postgres's
 * own) writes and reads the messages; this file only sequences them.
 */
class PgConnection {
  constructor ({ host, port, user, password = '', ssl = false, insecure = false, database = 'doc', timeoutMs }) {
    Object.assign(this, { host, port, user, password, ssl, insecure, database, timeoutMs })
    this.socket = null
    this.cycle = null
    this.prepared = new Set()
    this.closed = false
    // Destroyed by the client with a cycle in flight (PgClient#abort).
    this.abandoned = false
    this.parameters = {}
    this.parser = null
    // The start of a message the last chunk did not complete.
    this.rest = null
  }

  /** Connects and starts the session; rejects with a PgError (the server said no) or PgConnectionError. */
  async open () {
    let socket = await connect(this.host, this.port, this.timeoutMs)
    if (this.ssl) socket = await this.upgrade(socket)
    this.socket = socket
    socket.setNoDelay(true)
    this.parser = new Parser()
    let first = true
    socket.on('data', (chunk) => {
      if (first) {
        first = false
        const code = String.fromCharCode(chunk[0])
        if (!STARTUP_ANSWERS.has(code)) {
          const http = chunk.subarray(0, 5).toString('latin1') === 'HTTP/'
          return this.fail(new PgConnectionError(http
            ? `${this.host}:${this.port} answers HTTP, not the PostgreSQL protocol (CrateDB's PostgreSQL port is ` +
              '5432 unless psql.port says otherwise; --pg_port)'
            : `${this.host}:${this.port} does not speak the PostgreSQL protocol (it answered ${JSON.stringify(code)})`,
          'EPROTOCOL', false))
        }
      }
      try {
        this.read(chunk)
      } catch (error) {
        this.fail(new PgConnectionError(`unreadable answer from ${this.host}:${this.port}: ${error.message}`,
          'EPROTOCOL', true))
      }
    })
    socket.on('error', (error) => this.fail(new PgConnectionError(`${this.host}:${this.port}: ${error.message}`,
      error.code || 'ECONNRESET', true)))
    socket.on('close', () => {
      this.closed = true
      // As the HTTP transport names a connection closed before its answer.
      this.fail(new PgConnectionError(`${this.host}:${this.port} closed the connection`, 'ECLOSED', true))
    })
    await this.run(serialize.startup({ user: this.user, database: this.database, client_encoding: 'UTF8' }),
      { startup: true })
    return this
  }

  /** SSLRequest: S upgrades the socket to TLS (certificates verified unless --insecure), N means no TLS there. */
  upgrade (socket) {
    return new Promise((resolve, reject) => {
      socket.once('data', (answer) => {
        if (answer[0] === 0x53) {
          const secure = tls.connect({ socket, servername: net.isIP(this.host) ? undefined : this.host,
            rejectUnauthorized: !this.insecure })
          secure.once('secureConnect', () => resolve(secure))
          secure.once('error', (error) => reject(new PgConnectionError(`TLS to ${this.host}:${this.port}: ` +
            `${error.message}`, error.code || 'ETLS', false)))
        } else {
          socket.destroy()
          reject(new PgConnectionError(`${this.host}:${this.port} does not offer TLS over the PostgreSQL protocol ` +
            '(it answered N to the SSLRequest): configure ssl.psql.enabled on CrateDB, or run without --ssl',
          'ENOTLS', false))
        }
      })
      socket.write(serialize.requestSsl())
    })
  }

  /**
   * One statement with its values: Parse (once per connection for a named statement), Bind, Describe, Execute, Sync.
   * Resolves with { cols, rows, rowcount, command }, rejects with the PgError of the ErrorResponse.
   */
  async query (text, values = [], name = '') {
    const parsing = name === '' || !this.prepared.has(name)
    const out = parsing ? [serialize.parse({ name, text })] : []
    out.push(serialize.bind({ statement: name, values: values.map(textValue) }), serialize.describe({ type: 'P' }),
      serialize.execute(), serialize.sync())
    const answer = await this.run(Buffer.concat(out))
    if (answer.error) throw answer.error
    if (parsing && name !== '') this.prepared.add(name)
    const command = answer.commands[0] || ''
    return { cols: answer.fields, rows: answer.rows, rowcount: commandCount(command), command }
  }

  /**
   * A batch as JDBC's executeBatch sends it: `body` is its messages (lib/data/pg-batch-rows.js), a Parse of the
   * statement `name` (its first `parseLength` bytes, left out once this connection has parsed it), then Bind and
   * Execute per row and one Sync. CrateDB runs it as one bulk operation and answers one CommandComplete per row
   * (captures 04, 05, 14). Resolves with { ok, counts }: the rows stored, and every row's count (1 stored, -3 failed
   * without a reason) only when one was not stored; rejects with the PgError when the cycle failed as a whole (no
   * row of it is stored: 12).
   */
  async batch (name, body, parseLength) {
    const parsing = !this.prepared.has(name)
    const answer = await this.run(parsing ? body : body.subarray(parseLength), { batch: true })
    if (answer.error) throw answer.error
    if (parsing) this.prepared.add(name)
    return { ok: answer.ok, counts: answer.counts }
  }

  /**
   * The answer's messages, as they complete across chunks. A batch's CommandCompletes (one per row) and
   * BindCompletes are read here, a row's INSERT 0 1 by its bytes: pg-protocol's message objects cost more per row
   * than the whole HTTP path's answer. Every other message goes to pg-protocol's parser.
   */
  read (chunk) {
    const data = this.rest === null ? chunk : Buffer.concat([this.rest, chunk])
    let at = 0
    while (data.length - at >= 5) {
      const end = at + 1 + ((data[at + 1] << 24) | (data[at + 2] << 16) | (data[at + 3] << 8) | data[at + 4])
      if (end > data.length) break
      const type = data[at]
      const cycle = this.cycle
      if (type === BIND_COMPLETE || type === PARSE_COMPLETE) {
        // Nothing to read: each answers its own message.
      } else if (type === COMMAND_COMPLETE && cycle !== null && cycle.batch) {
        if (isInsertOk(data, at, end)) {
          cycle.ok++
          if (cycle.counts !== null) cycle.counts.push(1)
        } else {
          if (cycle.counts === null) cycle.counts = new Array(cycle.ok).fill(1)
          cycle.counts.push(commandCount(data.toString('utf8', at + 5, end - 1)))
        }
      } else {
        this.parser.parse(data.subarray(at, end), (message) => this.receive(message))
      }
      at = end
    }
    this.rest = at < data.length ? data.subarray(at) : null
  }

  run (bytes, { startup = false, batch = false } = {}) {
    if (this.cycle) return Promise.reject(new Error('one cycle at a time on a PostgreSQL connection'))
    if (this.closed) {
      return Promise.reject(new PgConnectionError(`${this.host}:${this.port} closed the connection`, 'ECONNRESET',
        false))
    }
    return new Promise((resolve, reject) => {
      this.cycle = { resolve, reject, startup, batch, fields: [], rows: [], commands: [], ok: 0, counts: null,
        error: null, sent: false }
      this.socket.write(bytes, () => { if (this.cycle) this.cycle.sent = true })
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
        return this.fail(new PgConnectionError(`${this.host}:${this.port} asks for SASL authentication, which this ` +
          'tool does not speak', 'EAUTH', false))
      case 'parameterStatus':
        this.parameters[message.parameterName] = message.parameterValue
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
        if (!cycle.error) cycle.error = new PgError(message)
        // A FATAL error ends the session: the server closes the connection, no ReadyForQuery follows.
        if (message.severity === 'FATAL') this.settle((c) => c.reject(cycle.error))
        return
      case 'readyForQuery':
        return this.settle((c) => (c.startup && c.error ? c.reject(c.error) : c.resolve(c)))
    }
  }

  settle (how) {
    const cycle = this.cycle
    this.cycle = null
    if (cycle) how(cycle)
  }

  fail (error) {
    const cycle = this.cycle
    if (!cycle) return
    this.cycle = null
    // Sent and unanswered: what it carried may have been written.
    error.sent = error.sent && cycle.sent
    cycle.reject(error)
    this.destroy()
  }

  destroy () {
    this.closed = true
    if (this.socket) this.socket.destroy()
  }

  close () {
    if (this.socket && !this.closed) this.socket.end(serialize.end())
    this.closed = true
  }
}

function connect (host, port, timeoutMs) {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host, port })
    const timer = setTimeout(() => {
      socket.destroy()
      reject(new PgConnectionError(`${host}:${port} did not accept a connection within ${timeoutMs} ms`,
        'ETIMEDOUT', false))
    }, timeoutMs)
    socket.once('connect', () => {
      clearTimeout(timer)
      resolve(socket)
    })
    socket.once('error', (error) => {
      clearTimeout(timer)
      reject(new PgConnectionError(`${host}:${port}: ${error.message}`, error.code || 'ECONNREFUSED', false))
    })
  })
}

/** A value as the text format carries it: objects as JSON (OBJECT columns), everything else as its string. */
function textValue (value) {
  if (value === null || value === undefined) return null
  if (typeof value === 'object') return JSON.stringify(value)
  return String(value)
}

/** Whether the CommandComplete from `at` to `end` says INSERT 0 1. */
function isInsertOk (data, at, end) {
  if (end - at !== 5 + INSERT_OK.length) return false
  for (let i = 0; i < INSERT_OK.length; i++) if (data[at + 5 + i] !== INSERT_OK[i]) return false
  return true
}

/** "INSERT 0 1" → 1, "INSERT 0 -3" → -3, "SELECT 5" → 5. */
function commandCount (text) {
  const match = /(-?\d+)$/.exec(text || '')
  return match ? Number(match[1]) : null
}

function md5Password (user, password, salt) {
  const crypto = require('node:crypto')
  const inner = crypto.createHash('md5').update(password + user).digest('hex')
  return `md5${crypto.createHash('md5').update(Buffer.concat([Buffer.from(inner), salt])).digest('hex')}`
}

/** The server said no: an ErrorResponse, with its SQLSTATE. */
class PgError extends Error {
  constructor ({ message, code, severity }) {
    super(message)
    this.name = 'PgError'
    this.code = code
    this.severity = severity
  }
}

/** No answer: the connection could not be made, or was lost (`sent`: the cycle may have reached the server). */
class PgConnectionError extends Error {
  constructor (message, code, sent) {
    super(message)
    this.name = 'PgConnectionError'
    this.code = code
    this.sent = sent
  }
}

module.exports = { PgConnection, PgError, PgConnectionError, commandCount, textValue }
