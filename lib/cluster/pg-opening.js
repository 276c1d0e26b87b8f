'use strict'

const net = require('node:net')
const tls = require('node:tls')
const { serialize } = require('pg-protocol')
const { Parser } = require('pg-protocol/dist/parser')
const { PgConnectionError, abandonedOpening, tlsFailure } = require('./pg-errors')

// The opening of a PostgreSQL session (lib/cluster/pg-connection.js): the TCP connection, the SSLRequest and TLS
// when asked, the startup; each step bounded by the connection's --timeout, a timeout named by the step it ended.

// The first byte of a backend message the startup can answer with: authentication, an error, a notice.
const STARTUP_ANSWERS = new Set(['R', 'E', 'N'])
// Each connection reads into one buffer of its own (net's onread): no buffer allocated per read.
const READ_BUFFER_BYTES = 64 * 1024

/**
 * Connects `connection` and starts its session within its `timeoutMs`; rejects with a PgError (the server said no)
 * or a PgConnectionError (no session: `sent` is false, no request of the caller's went out on it).
 */
function openSession (connection) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      const seconds = connection.limitText ?? `${connection.limitMs / 1000} s (--timeout)`
      const error = connection.phase === 'connect'
        ? new PgConnectionError(`${connection.address} did not accept a connection within ${seconds}`,
          'ECONNECTTIMEOUT')
        : connection.phase === 'tls'
          ? new PgConnectionError(`${connection.address} did not answer the SSLRequest within ${seconds}`, 'ETIMEDOUT')
          : new PgConnectionError(`${connection.address} did not answer the startup within ${seconds}`, 'ETIMEDOUT')
      connection.endOpening(error)
    }, connection.timeoutMs)
    connection.endOpening = (error) => {
      clearTimeout(timer)
      connection.endOpening = null
      if (error) {
        connection.drop()
        reject(error)
      } else {
        resolve(connection)
      }
    }
    start(connection).then(() => connection.endOpening && connection.endOpening(null),
      (error) => connection.endOpening && connection.endOpening(error))
  })
}

/** TCP, TLS when asked, then the startup; the connection's phase says which step a timeout ended. */
async function start (connection) {
  connection.phase = 'connect'
  let socket = await connect(connection)
  if (connection.ssl) {
    connection.phase = 'tls'
    socket = await upgrade(connection, socket)
  }
  if (connection.closed) throw abandonedOpening(connection)
  connection.phase = 'startup'
  connection.socket = socket
  socket.setNoDelay(true)
  connection.parser = new Parser()
  let first = true
  connection.onChunk = (chunk) => {
    if (first) {
      first = false
      const code = String.fromCharCode(chunk[0])
      if (!STARTUP_ANSWERS.has(code)) {
        const http = chunk.subarray(0, 5).toString('latin1') === 'HTTP/'
        return connection.fail(new PgConnectionError(http
          ? `${connection.address} answers HTTP, not the PostgreSQL protocol (CrateDB's PostgreSQL port is ` +
            '5432 unless psql.port says otherwise; --pg_port)'
          : `${connection.address} does not speak the PostgreSQL protocol (it answered ${JSON.stringify(code)})`,
        'EPROTOCOL'))
      }
    }
    try {
      connection.read(chunk)
    } catch (error) {
      connection.fail(error instanceof PgConnectionError ? error
        : new PgConnectionError(`unreadable answer from ${connection.address}: ${error.message}`, 'EPROTOCOL', true))
    }
    connection.gatherIfStreaming(chunk.length)
  }
  // A plain socket reads into its own buffer (connect's onread); a TLS socket emits its chunks.
  if (!connection.gathers) socket.on('data', connection.onChunk)
  socket.on('error', (error) => connection.fail(new PgConnectionError(`${connection.address}: ${error.message}`,
    error.code || 'ECONNRESET', true)))
  socket.on('close', () => {
    connection.closed = true
    // As the HTTP transport names a connection closed before its answer.
    connection.fail(new PgConnectionError(`${connection.address} closed the connection`, 'ECLOSED', true))
  })
  await connection.run(serialize.startup({ user: connection.user, database: connection.database,
    client_encoding: 'UTF8' }),
    { startup: true })
  connection.phase = null
}

/**
 * SSLRequest: S upgrades the socket to TLS (certificates verified unless --insecure), N means no TLS there. Nothing
 * else is written before the upgrade: the password and the rows travel only inside TLS.
 */
function upgrade (connection, socket) {
  return new Promise((resolve, reject) => {
    socket.once('data', (answer) => {
      if (answer[0] !== 0x53) {
        socket.destroy()
        return reject(new PgConnectionError(`${connection.address} does not offer TLS over the PostgreSQL protocol ` +
          `(it answered ${JSON.stringify(String.fromCharCode(answer[0]))} to the SSLRequest): configure ` +
          'ssl.psql.enabled on CrateDB, or run without --ssl', 'ENOTLS'))
      }
      const host = connection.host
      const secure = tls.connect({ socket, host, servername: net.isIP(host) ? undefined : host,
        rejectUnauthorized: !connection.insecure })
      connection.socket = secure
      secure.once('secureConnect', () => resolve(secure))
      secure.once('error', (error) => reject(tlsFailure(connection, error)))
    })
    socket.once('close', () => reject(new PgConnectionError(`${connection.address} closed the connection in answer ` +
      'to the SSLRequest', 'ECLOSED')))
    socket.write(serialize.requestSsl())
  })
}

/** The TCP connection; the opening's own deadline bounds it. */
function connect (connection) {
  return new Promise((resolve, reject) => {
    // onread: every read lands in this connection's buffer and goes to its onChunk (set once the session starts);
    // such a socket stops reading when paused (a gulp, see GATHER_SHARE). TLS is spoken over a socket that emits data.
    const onread = connection.gathers
      ? { buffer: Buffer.allocUnsafe(READ_BUFFER_BYTES),
          callback: (bytes, buffer) => { if (connection.onChunk) connection.onChunk(buffer.subarray(0, bytes)) } }
      : undefined
    const socket = net.connect({ host: connection.host, port: connection.port, onread })
    connection.socket = socket
    // Errors after the first are answered by the close that follows them.
    socket.on('error', () => {})
    socket.once('connect', () => resolve(socket))
    socket.once('error', (error) => reject(new PgConnectionError(`${connection.address}: ${error.message}`,
      error.code || 'ECONNREFUSED')))
  })
}

module.exports = { openSession, READ_BUFFER_BYTES }
