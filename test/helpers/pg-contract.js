'use strict'

// The pgwire half of the contract between the test double and CrateDB: the captured client bytes of
// test/fixtures/pgwire sent as they were (tables renamed to the test's own, each message framed again), and what the
// tool relies on in each answer: the message sequence, command tags (INSERT 0 1, INSERT 0 -3 for a rejected row),
// SQLSTATE codes and severities, column names and type OIDs, small rows' values. Parameter values of the startup
// (ParameterStatus, BackendKeyData) are the server's own and left out. The double is held to it
// (test/helpers/pg-test-double.test.js), a real node too (test/integration/contract.integration.test.js).

const fs = require('node:fs')
const net = require('node:net')
const path = require('node:path')
const { Parser } = require('pg-protocol/dist/parser')

const capture = (name) => JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'fixtures', 'pgwire', `${name}.json`),
  'utf8'))

/**
 * The exchanges replayed on one connection after its startup, in their recorded order: DDL, batches all ok and with
 * rows a CHECK rejects, the count they left, VALUES and UNNEST inserts, typed rows, errors, sys.nodes and an error in
 * the middle of a pipeline. The table must exist before (03 answered DROP 1).
 */
const PG_REPLAYED_IN_ORDER = ['03-ddl', '04-batch-insert-ok', '05-batch-insert-check-violations',
  '06-count-after-batches', '07-multi-values-insert', '08-unnest-insert', '09-select-rows-types', '10-errors',
  '11-sys-nodes', '12-error-mid-pipeline']
// Answers whose rows are the server's state, not the exchange's: their values are not compared.
const ROWS_NOT_COMPARED = new Set(['11-sys-nodes'])
// What the double does not serve over pg, and why the tool does not need it there: held on a real node only.
const NOT_SERVED_BY_THE_DOUBLE = {
  '09-select-rows-types': 'typed rows (OBJECT, TIMESTAMP WITH TIME ZONE, INTEGER) of ORDER BY … LIMIT: the tool ' +
    'counts a query\'s rows, never reads their values',
  '11-sys-nodes': 'sys.nodes over pg: the monitor samples it over HTTP'
}

const shown = (m, rows) => [m.name, m.text, m.code, m.severity,
  m.name === 'rowDescription' ? m.fields.map((f) => `${f.name}:${f.dataTypeID}`).join('|') : null,
  m.name === 'dataRow' && rows ? m.fields.join('|') : null].filter(Boolean).join(' ')

/** What the tool relies on in an answer's messages. */
const essential = (messages, { rows = true } = {}) => messages
  .filter((m) => m.name !== 'parameterStatus' && m.name !== 'backendKeyData').map((m) => shown(m, rows))

/** The client bytes of an exchange with `rename` applied to every message's body, each message's length set again. */
function clientBytes (exchange, rename = (text) => text) {
  const bytes = Buffer.from(exchange.client.bytes_base64, 'base64')
  const untyped = ['SSLRequest', 'StartupMessage'].includes(exchange.client.messages[0].type)
  return untyped ? bytes : reframe(bytes, rename)
}

/** Typed protocol messages (a type byte, a length, a body) with `rename` applied to each body, lengths set again. */
function reframe (bytes, rename) {
  const messages = []
  for (let at = 0; at < bytes.length; at += 1 + bytes.readInt32BE(at + 1)) {
    const body = Buffer.from(rename(bytes.subarray(at + 5, at + 1 + bytes.readInt32BE(at + 1)).toString('latin1')),
      'latin1')
    const head = Buffer.alloc(5)
    head[0] = bytes[at]
    head.writeInt32BE(4 + body.length, 1)
    messages.push(head, body)
  }
  return Buffer.concat(messages)
}

/**
 * A raw connection to host:port that sends bytes and collects the decoded answers up to ReadyForQuery (or the end),
 * counting the reads each answer took.
 */
async function rawConnection (port, host = '127.0.0.1') {
  const socket = net.connect(port, host)
  await new Promise((resolve, reject) => {
    socket.once('connect', resolve)
    socket.once('error', reject)
  })
  const parser = new Parser()
  let got = []
  let waiter = null
  const reads = []
  const chunks = []
  socket.on('data', (chunk) => {
    reads.push(chunk.length)
    chunks.push(chunk)
    if (chunk.length === 1 && chunk[0] === 0x4e && got.length === 0) got.push({ name: 'N' })
    else parser.parse(chunk, (m) => got.push(m))
    if (waiter) waiter()
  })
  socket.on('close', () => { if (waiter) waiter(true) })
  return {
    socket,
    reads,
    /** The bytes of the last answer, as they came. */
    answerBytes: () => Buffer.concat(chunks),
    async send (bytes, done = (m) => m.some((x) => x.name === 'readyForQuery')) {
      got = []
      reads.length = 0
      chunks.length = 0
      socket.write(bytes)
      while (!done(got)) {
        const closed = await new Promise((resolve) => { waiter = resolve })
        if (closed) break
      }
      return got
    }
  }
}

const anyAnswer = (m) => m.length > 0

/**
 * Replays the pgwire captures against host:port: an SSLRequest on a connection of its own (answered N without TLS),
 * the startup, PG_REPLAYED_IN_ORDER on its connection, an unknown user on another. Returns the differences found, each
 * naming the capture and the first message that differs ([] when the server answers as captured). `onAnswer(name, k,
 * messages, bytes)` gets each exchange's answer (the k-th of its capture): what scripts/record-fixtures.js writes.
 */
async function replayPg (port, { host = '127.0.0.1', rename, skip = [], onAnswer = () => {} } = {}) {
  const found = []
  const seen = new Map()
  const compare = (name, exchange, answer, bytes) => {
    const k = seen.get(name) ?? 0
    seen.set(name, k + 1)
    onAnswer(name, k, answer, bytes)
    const rows = !ROWS_NOT_COMPARED.has(name)
    const want = essential(exchange.server.messages, { rows })
    const got = essential(answer, { rows })
    const at = want.findIndex((m, i) => m !== got[i])
    if (at >= 0 || got.length !== want.length) {
      const i = at >= 0 ? at : want.length
      const [first] = exchange.client.messages
      found.push(`${name} "${first.text || first.type}": message ${i + 1} ` +
        `captured ${JSON.stringify(want[i] ?? '(none)')}, got ${JSON.stringify(got[i] ?? '(none)')}`)
    }
  }
  const [sslRequest, startup] = capture('00-startup').exchanges
  const tlsAsked = await rawConnection(port, host)
  const tlsAnswer = await tlsAsked.send(clientBytes(sslRequest), anyAnswer)
  seen.set('00-startup', 1)
  onAnswer('00-startup', 0, [], tlsAsked.answerBytes())
  if (JSON.stringify(tlsAnswer) !== JSON.stringify([{ name: 'N' }])) {
    found.push(`00-startup SSLRequest: captured N, got ${JSON.stringify(tlsAnswer).slice(0, 80)}`)
  }
  tlsAsked.socket.destroy()
  const connection = await rawConnection(port, host)
  try {
    compare('00-startup', startup, await connection.send(clientBytes(startup)), connection.answerBytes())
    for (const name of PG_REPLAYED_IN_ORDER.filter((n) => !skip.includes(n))) {
      for (const exchange of capture(name).exchanges) {
        compare(name, exchange, await connection.send(clientBytes(exchange, rename)), connection.answerBytes())
      }
    }
  } finally {
    connection.socket.destroy()
  }
  const stranger = await rawConnection(port, host)
  try {
    for (const exchange of capture('13-unknown-user').exchanges) {
      const answer = await stranger.send(clientBytes(exchange), anyAnswer)
      compare('13-unknown-user', exchange, answer, stranger.answerBytes())
    }
  } finally {
    stranger.socket.destroy()
  }
  return found
}

/** Capture 04's batch (Parse, Bind/Execute of one row, Sync) with `rows` rows, its table renamed: messages repeated. */
function batchOf (rows, rename) {
  const bytes = clientBytes(capture('04-batch-insert-ok').exchanges[0], rename)
  const messages = []
  for (let at = 0; at < bytes.length; at += 1 + bytes.readInt32BE(at + 1)) {
    messages.push(bytes.subarray(at, at + 1 + bytes.readInt32BE(at + 1)))
  }
  const first = (type) => messages.find((m) => m[0] === type.charCodeAt(0))
  return Buffer.concat([first('P'), ...new Array(rows).fill(Buffer.concat([first('B'), first('E')])), first('S')])
}

module.exports = {
  capture, essential, clientBytes, reframe, rawConnection, replayPg, batchOf, PG_REPLAYED_IN_ORDER,
  NOT_SERVED_BY_THE_DOUBLE, ROWS_NOT_COMPARED
}
