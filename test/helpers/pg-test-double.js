'use strict'

// The CrateDB test double's PostgreSQL wire protocol: a second listener over the same table state as its HTTP
// endpoints, answering as the captures in test/fixtures/pgwire show (CrateDB 6.4.3, protocol 3). It is NOT CrateDB:
// statements go to the HTTP double's own executor; this file speaks the protocol around it:
//   - an SSLRequest is answered N (no TLS configured, 00); the startup is trusted for `crate` (00), any other user
//     is asked a cleartext password and refused with FATAL 28000 (13), as is a wrong password with script.auth
//   - the extended protocol runs at Sync: a cycle's answers are held until then (12), Executes of one INSERT in a
//     row are one bulk operation, each row answered INSERT 0 1 or, rejected, INSERT 0 -3 with no reason (05, 14)
//   - errors are ErrorResponse with the SQLSTATE CrateDB sends (10), the connection stays usable
// The double's own fault script applies here too (answerCycle), so a test runs the same over both protocols.
// Hostile modes, for the tool's bounds (none of them is CrateDB's behaviour): `tls` answers the SSLRequest S and
// speaks TLS with that key and certificate, `sslAnswer: 'silent'` never answers it; `startup({ connection })` may
// return 'silent' (the startup never answered) or bytes written instead of the welcome; a cycle's fault may also be
// { raw } (those bytes instead of the answer), { fatalAfterRows } (the rows stored, the first k answered, then a
// FATAL and the connection closed), 'endless' (DataRows without end), { strayAfterMs } (the whole answer, then that
// much later a CommandComplete and a ReadyForQuery that answer nothing) or { readyAfterRows, restAfterMs } (a
// ReadyForQuery after the first k rows' answers, the rest and another ReadyForQuery later); `parameterFlood` sends a
// ParameterStatus of a new name with every answer. Passwords that arrive outside TLS are kept in
// front.cleartextPasswords. `rowByRow` answers a cycle as CrateDB flushes a batch's answer (15): each row's answer
// written on its own, at the capture's pace (test/helpers/pg-row-answers.js).
// Not emulated: a pipeline mixing a batch with a statement that fails to parse (12) stores nothing on CrateDB; the
// double stores the batch's rows (the tool never sends such a pipeline).

const net = require('node:net')
const tls = require('node:tls')
const { RowFlusher, rowPieces, usPerRow } = require('./pg-row-answers')

const flusher = new RowFlusher()

const SSL_REQUEST = 80877103
const PROTOCOL_3 = 196608
// CrateDB's HTTP error codes as its PostgreSQL protocol reports them (captures 10 and 13).
const SQLSTATE = { 4000: '42601', 4041: '42P01', 4045: '3F000', 4091: '23505', 4093: '42P07', 401: '28000' }
const PARAMETERS = [['crate_version', '6.4.3'], ['server_version', '14.0'], ['server_encoding', 'UTF8'],
  ['client_encoding', 'UTF8'], ['datestyle', 'ISO'], ['TimeZone', 'UTC'], ['integer_datetimes', 'on'],
  ['standard_conforming_strings', 'on']]

/** Starts the pgwire listener of `double` (on `port`, else a free one); resolves with { port, connections, close }. */
function startPgFront (double, { auth = null, fault = null, tls: secure = null, sslAnswer = null,
  startup = null, rowByRow = false, parameterFlood = false, port = 0 } = {}) {
  const sockets = new Set()
  // cycles: the Executes of each cycle; parses: the statements parsed, by text.
  const front = { port: null, connections: 0, cycles: [], parses: new Map(), hanging: new Set(),
    cleartextPasswords: [], sslRequests: 0, straysSent: 0 }
  const server = net.createServer((socket) => {
    sockets.add(socket)
    // CrateDB's sockets send each flush at once (Netty's TCP_NODELAY): no Nagle delay that would merge them.
    socket.setNoDelay(true)
    front.connections++
    socket.on('close', () => sockets.delete(socket))
    socket.on('error', () => {})
    serve(socket, double, { auth, front, fault, secure, sslAnswer, startup, rowByRow, parameterFlood,
      connection: front.connections })
  })
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => {
    front.port = server.address().port
    front.close = () => new Promise((done) => {
      for (const s of sockets) s.destroy()
      server.close(() => done())
    })
    resolve(front)
  }))
}

/**
 * `fault({ cycle })` (the cycle's number, 1-based, over every connection): 'drop' closes the connection before the
 * cycle runs (nothing stored, the answer lost); 'lost' runs it (its rows stored) and closes the connection instead
 * of answering.
 */
function serve (socket, double, options) {
  const { auth, front, fault, secure, sslAnswer, startup, connection, rowByRow, parameterFlood,
    encrypted = false } = options
  let buffer = Buffer.alloc(0)
  let started = false
  let user = null
  let awaitingPassword = false
  const statements = new Map()
  let pending = []
  socket.on('data', (chunk) => {
    buffer = Buffer.concat([buffer, chunk])
    for (;;) {
      if (!started) {
        if (buffer.length < 8) return
        const length = buffer.readInt32BE(0)
        if (buffer.length < length) return
        const code = buffer.readInt32BE(4)
        const body = buffer.subarray(8, length)
        buffer = buffer.subarray(length)
        if (code === SSL_REQUEST) {
          front.sslRequests++
          if (sslAnswer === 'silent') return
          if (!secure) {
            socket.write('N')
            continue
          }
          socket.removeAllListeners('data')
          socket.write('S')
          const upgraded = new tls.TLSSocket(socket, { isServer: true, key: secure.key, cert: secure.cert })
          upgraded.on('error', () => {})
          return serve(upgraded, double, { ...options, encrypted: true })
        }
        if (code !== PROTOCOL_3) return socket.destroy()
        started = true
        user = startupParams(body).user
        const instead = startup ? startup({ connection }) : undefined
        if (instead === 'silent') return
        if (instead) {
          socket.write(instead)
          return
        }
        if (auth || user !== 'crate') {
          awaitingPassword = true
          socket.write(message('R', int32(3)))
        } else {
          welcome(socket)
        }
        continue
      }
      if (buffer.length < 5) return
      const type = String.fromCharCode(buffer[0])
      const length = buffer.readInt32BE(1)
      if (buffer.length < length + 1) return
      const body = buffer.subarray(5, length + 1)
      buffer = buffer.subarray(length + 1)
      if (awaitingPassword) {
        if (type !== 'p') return socket.destroy()
        awaitingPassword = false
        const password = cstrings(body)[0]
        if (!encrypted) front.cleartextPasswords.push(password)
        if (!auth || user !== auth.user || password !== auth.password) {
          socket.end(error('FATAL', '28000', `password authentication failed for user "${user}"`))
          return
        }
        welcome(socket)
        continue
      }
      switch (type) {
        case 'P': {
          const [name, text] = cstrings(body)
          statements.set(name, text)
          front.parses.set(text, (front.parses.get(text) ?? 0) + 1)
          pending.push({ kind: 'parse' })
          break
        }
        case 'B': pending.push({ kind: 'bind', ...readBind(body) }); break
        case 'D': pending.push({ kind: 'describe' }); break
        case 'E': pending.push({ kind: 'execute' }); break
        case 'S': {
          const cycle = pending
          pending = []
          front.cycles.push(cycle.filter((m) => m.kind === 'execute').length)
          const what = fault ? fault({ cycle: front.cycles.length }) : undefined
          if (what === 'drop') return socket.destroy()
          if (what && what.raw) {
            socket.write(what.raw)
            break
          }
          if (what === 'endless') {
            endlessRows(socket)
            break
          }
          answerCycle(socket, cycle, statements, double, front).then((answers) => {
            if (answers === null) return
            if (what === 'lost') return socket.destroy()
            if (what && what.fatalAfterRows !== undefined) {
              // Each row's answer is a BindComplete and a CommandComplete (after the Parse's ParseComplete).
              const rowAnswers = answers.filter((a) => a[0] === 0x43).slice(0, what.fatalAfterRows)
              const kept = rowAnswers.flatMap((a) => [message('2'), a])
              socket.end(Buffer.concat([...kept, error('FATAL', '57P01', 'terminating connection due to ' +
                'administrator command')]))
              return
            }
            const ready = message('Z', Buffer.from('I'))
            // A new parameter name with every answer, as a flood would send them.
            const flood = parameterFlood ? [parameterStatus(`flood_${front.cycles.length}`, 'x'.repeat(64))] : []
            if (what && what.strayAfterMs !== undefined) {
              // The whole answer, then a CommandComplete and a ReadyForQuery that answer nothing.
              socket.write(Buffer.concat([...answers, ready]))
              setTimeout(() => {
                if (!socket.writable) return
                socket.write(Buffer.concat([commandComplete('INSERT 0 1'), ready]))
                front.straysSent++
              }, what.strayAfterMs)
              return
            }
            if (what && what.readyAfterRows !== undefined) {
              // A ReadyForQuery after the first k rows' answers, the rest (and another ReadyForQuery) later.
              const at = indexAfterRows(answers, what.readyAfterRows)
              socket.write(Buffer.concat([...answers.slice(0, at), ready]))
              setTimeout(() => socket.writable && socket.write(Buffer.concat([...answers.slice(at), ready])),
                what.restAfterMs ?? 30)
              return
            }
            if (!rowByRow) return socket.write(Buffer.concat([...flood, ...answers, ready]))
            // As CrateDB flushes a batch's answer (15): each row's on its own, at the capture's pace.
            const rows = answers.filter((a) => a[0] === 0x43).length
            flusher.add(socket, rowPieces(answers, ready), usPerRow(rows))
          })
          break
        }
        case 'Q': {
          // The simple protocol (captures 03, 06, 10): one statement, no parameters, answered at once.
          const text = cstrings(body)[0]
          runCycle([{ kind: 'bind', statement: '\0simple', values: [] }, { kind: 'describe' }, { kind: 'execute' }],
            new Map([['\0simple', text]]), double).then((answers) => socket.write(Buffer.concat([
            // No BindComplete or NoData in the simple protocol: those answer the extended protocol's messages.
            ...answers.filter((a) => a[0] !== 0x32 && a[0] !== 0x6e), message('Z', Buffer.from('I'))])))
          break
        }
        case 'X': return socket.end()
        case 'H': break
        default:
          socket.write(Buffer.concat([error('ERROR', '0A000', `message type ${type} is not supported by the test ` +
            'double'), message('Z', Buffer.from('I'))]))
      }
    }
  })
}

/** The index in a cycle's answers just after the k-th row's CommandComplete. */
function indexAfterRows (answers, k) {
  let seen = 0
  for (let i = 0; i < answers.length; i++) {
    if (answers[i][0] === 0x43 && ++seen === k) return i + 1
  }
  return answers.length
}

const commandComplete = (text) => message('C', Buffer.from(`${text}\0`))
const parameterStatus = (name, value) => message('S', Buffer.from(`${name}\0${value}\0`))

/** A RowDescription, then DataRows as fast as the client reads, until it goes. */
function endlessRows (socket) {
  socket.write(rowDescription(['x'], [1]))
  const rows = Buffer.concat(new Array(4096).fill(dataRow([1])))
  const pump = () => {
    while (!socket.destroyed && socket.write(rows)) { /* until the client's window is full */ }
    if (!socket.destroyed) socket.once('drain', pump)
  }
  pump()
}

/**
 * The HTTP double's own fault script (script.fault), asked once per cycle as once per request: 'drop' closes the
 * connection before the cycle runs, 'hang' never answers, {delayMs} delays it, {answerDelayMs} delays the answer of
 * what was stored, {status, code, message} answers that error (as ErrorResponse). Resolves with the answers, or null
 * when none is to be written.
 */
async function answerCycle (socket, cycle, statements, double, front) {
  const script = double.script
  let fault
  if (script.fault) {
    const bound = cycle.find((m) => m.kind === 'bind')
    const stmt = bound ? toQuestionMarks(statements.get(bound.statement) ?? '') : ''
    const bulk = /^\s*INSERT\b/i.test(stmt)
    fault = await script.fault({ number: ++double.requestCount, stmt, bulk, node: 0 })
  }
  if (fault === 'drop') {
    socket.destroy()
    return null
  }
  if (fault === 'hang') {
    front.hanging.add(socket)
    return null
  }
  if (fault && fault.delayMs) await new Promise((resolve) => setTimeout(resolve, fault.delayMs))
  if (fault && fault.status) return [errorOf({ code: fault.code, message: fault.message })]
  const answers = await runCycle(cycle, statements, double)
  if (fault && fault.answerDelayMs) await new Promise((resolve) => setTimeout(resolve, fault.answerDelayMs))
  if (socket.destroyed) {
    double.answersLost++
    return null
  }
  return answers
}

/**
 * A cycle, run at its Sync: each Execute runs its Bind's statement and values; Executes of the same INSERT in a row
 * are one bulk. The first error ends the cycle with an ErrorResponse: nothing after it is answered.
 */
async function runCycle (cycle, statements, double) {
  const answers = []
  let bound = null
  for (let i = 0; i < cycle.length; i++) {
    const m = cycle[i]
    if (m.kind === 'parse') answers.push(message('1'))
    else if (m.kind === 'bind') {
      bound = { text: statements.get(m.statement) ?? '', values: m.values }
      // A parameter cast to an integer that is none fails at Bind, as on CrateDB (10).
      for (const [, n] of bound.text.matchAll(/\$(\d+)::(?:int|integer|bigint)\b/gi)) {
        const value = bound.values[Number(n) - 1]
        if (value !== null && !/^-?\d+$/.test(value)) return [...answers, error('ERROR', 'XX000',
          `For input string: "${value}"`)]
      }
      answers.push(message('2'))
    } else if (m.kind === 'describe') {
      bound.describe = true
    } else if (m.kind === 'execute') {
      const stmt = toQuestionMarks(bound.text)
      const whole = wholeInsert(stmt, bound.values)
      if (whole) {
        // One statement of many rows (07, 08): one CommandComplete with how many were stored, failures silent.
        double.statements.push({ stmt, rows: whole.rows.length })
        const outcome = double.executeBulk(whole.single, whole.rows, double.nodes[0])
        if (outcome.error) return [...answers, errorOf(outcome.error)]
        const stored = outcome.results.filter((r) => r.rowcount === 1).length
        double.rowsAcknowledged += stored
        if (bound.describe) answers.push(message('n'))
        answers.push(message('C', cstring(`INSERT 0 ${stored}`)))
        continue
      }
      if (/^\s*INSERT\b/i.test(stmt)) {
        // This Execute and the Bind/Execute pairs right after it of the same statement: one bulk operation.
        const rows = [bound.values.map(fromText)]
        let j = i + 1
        while (j + 1 < cycle.length && cycle[j].kind === 'bind' && cycle[j + 1].kind === 'execute' &&
          (statements.get(cycle[j].statement) ?? '') === bound.text) {
          rows.push(cycle[j].values.map(fromText))
          j += 2
        }
        double.statements.push({ stmt, rows: rows.length })
        const outcome = double.executeBulk(stmt, rows, double.nodes[0])
        if (outcome.error) return [...answers, errorOf(outcome.error)]
        double.rowsAcknowledged += outcome.results.filter((r) => r.rowcount === 1).length
        outcome.results.forEach((r, k) => {
          if (k > 0) answers.push(message('2'))
          answers.push(message('C', cstring(`INSERT 0 ${r.rowcount === 1 ? 1 : -3}`)))
        })
        i = j - 1
        continue
      }
      double.statements.push({ stmt, args: bound.values })
      const outcome = double.execute(stmt, bound.values.map(fromText))
      if (outcome.error) return [...answers, errorOf(outcome.error)]
      const rows = outcome.rows || []
      const cols = outcome.cols || []
      if (bound.describe) answers.push(cols.length ? rowDescription(cols, rows[0] || []) : message('n'))
      if (cols.length) for (const row of rows) answers.push(dataRow(row))
      const verb = stmt.trim().split(/\s+/)[0].toUpperCase()
      answers.push(message('C', cstring(`${verb} ${outcome.rowcount ?? rows.length}`)))
    }
  }
  return answers
}

/**
 * A multi-row VALUES insert or an INSERT … SELECT * FROM UNNEST(arrays) as the one-row INSERT the double's executor
 * reads and its rows; null for any other statement.
 */
function wholeInsert (stmt, values) {
  const multi = /^(INSERT INTO .+?\)) VALUES (\([^)]*\))((?:, \([^)]*\))+)$/s.exec(stmt)
  if (multi) {
    const width = (multi[2].match(/\?/g) || []).length
    const rows = []
    for (let i = 0; i < values.length; i += width) rows.push(values.slice(i, i + width).map(fromText))
    return { single: `${multi[1]} VALUES ${multi[2]}`, rows }
  }
  const unnest = /^(INSERT INTO .+?\)) \(SELECT \* FROM UNNEST\((.+)\)\)$/s.exec(stmt)
  if (unnest) {
    const columns = values.map(arrayElements)
    const rows = (columns[0] || []).map((_, r) => columns.map((column) => fromText(column[r])))
    return { single: `${unnest[1]} VALUES (${columns.map(() => '?').join(', ')})`, rows }
  }
  return null
}

/** The elements of a PostgreSQL array literal in text format ({"a","b",NULL,5}). */
function arrayElements (text) {
  const elements = []
  let i = 1
  while (i < text.length - 1) {
    if (text[i] === '"') {
      let value = ''
      i++
      while (text[i] !== '"') {
        if (text[i] === '\\') i++
        value += text[i++]
      }
      elements.push(value)
      i += 2
    } else {
      const end = text.indexOf(',', i) >= 0 ? text.indexOf(',', i) : text.length - 1
      const raw = text.slice(i, end)
      elements.push(raw === 'NULL' ? null : raw)
      i = end + 1
    }
  }
  return elements
}

/** $1, $2 … as the HTTP endpoint's ? (the double's executor reads those). */
function toQuestionMarks (text) {
  return text.replace(/\$\d+(::array\([a-z ]+\))?/g, '?')
}

/** A text-format value back to what the HTTP endpoint would have received in JSON. */
function fromText (text) {
  if (text === null) return null
  // A number when it reads back as itself: a key of 40 digits in a TEXT column stays text.
  if (/^-?\d+(\.\d+)?$/.test(text) && String(Number(text)) === text) return Number(text)
  if (/^[[{]/.test(text)) {
    try {
      return JSON.parse(text)
    } catch {
      return text
    }
  }
  return text
}

function welcome (socket) {
  socket.write(Buffer.concat([message('R', int32(0)),
    ...PARAMETERS.map(([k, v]) => message('S', Buffer.concat([cstring(k), cstring(v)]))),
    message('K', Buffer.concat([int32(4242), int32(17)])), message('Z', Buffer.from('I'))]))
}

function startupParams (body) {
  const parts = cstrings(body)
  const params = {}
  for (let i = 0; i + 1 < parts.length; i += 2) params[parts[i]] = parts[i + 1]
  return params
}

function readBind (body) {
  let pos = 0
  const str = () => {
    const end = body.indexOf(0, pos)
    const s = body.toString('utf8', pos, end)
    pos = end + 1
    return s
  }
  str()
  const statement = str()
  const formats = body.readInt16BE(pos)
  pos += 2 + formats * 2
  const count = body.readInt16BE(pos)
  pos += 2
  const values = []
  for (let i = 0; i < count; i++) {
    const length = body.readInt32BE(pos)
    pos += 4
    if (length < 0) values.push(null)
    else {
      values.push(body.toString('utf8', pos, pos + length))
      pos += length
    }
  }
  return { statement, values }
}

function rowDescription (cols, sample) {
  const fields = cols.map((name, i) => {
    const v = sample[i]
    const oid = typeof v === 'number' ? (Number.isInteger(v) ? 20 : 701) : v !== null && typeof v === 'object' ? 114
      : 1043
    return Buffer.concat([cstring(name), int32(0), int16(0), int32(oid), int16(-1), int32(-1), int16(0)])
  })
  return message('T', Buffer.concat([int16(cols.length), ...fields]))
}

function dataRow (row) {
  const cells = row.map((v) => {
    if (v === null || v === undefined) return int32(-1)
    const text = Buffer.from(typeof v === 'object' ? JSON.stringify(v) : String(v))
    return Buffer.concat([int32(text.length), text])
  })
  return message('D', Buffer.concat([int16(row.length), ...cells]))
}

function errorOf ({ code, message: text }) {
  return error('ERROR', SQLSTATE[code] ?? 'XX000', text)
}

function error (severity, code, text) {
  return message('E', Buffer.concat([Buffer.from('S'), cstring(severity), Buffer.from('V'), cstring(severity),
    Buffer.from('C'), cstring(code), Buffer.from('M'), cstring(text), Buffer.from([0])]))
}

function message (type, body = Buffer.alloc(0)) {
  const head = Buffer.alloc(5)
  head.write(type, 0, 'latin1')
  head.writeInt32BE(body.length + 4, 1)
  return Buffer.concat([head, body])
}

const cstring = (s) => Buffer.concat([Buffer.from(s, 'utf8'), Buffer.from([0])])
const cstrings = (body) => body.toString('utf8').split('\0').slice(0, -1)
const int32 = (n) => { const b = Buffer.alloc(4); b.writeInt32BE(n); return b }
const int16 = (n) => { const b = Buffer.alloc(2); b.writeInt16BE(n); return b }

module.exports = { flusher, startPgFront, readBind, SQLSTATE, message }
