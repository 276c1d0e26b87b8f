'use strict'

// The errors of CrateDB's PostgreSQL wire protocol as the client tells them apart: the server said no (PgError, an
// ErrorResponse with its SQLSTATE), or no answer came (PgConnectionError: the connection could not be made, was
// lost, or spoke something else; `sent` when the cycle may have reached the server), and how each is worded.

function abandonedOpening (connection) {
  return new PgConnectionError(`the session with ${connection.address} was abandoned before it started`, 'ABORTED')
}

function tooLarge (connection) {
  return new PgConnectionError(`the answer of postgres://${connection.address} had more than ` +
    `${connection.maxAnswerBytes} bytes (--max_answer_mb): cut off, outcome in doubt`, 'ETOOLARGE', true)
}

/** A TLS handshake that failed: a certificate not trusted (with the way out), or no TLS spoken at all. */
function tlsFailure (connection, error) {
  const detail = `${error.code || ''} ${error.message}`
  if (/certificate|self.signed|UNABLE_TO_VERIFY|CERT_|altnames/i.test(detail)) {
    return new PgConnectionError(`TLS certificate of ${connection.address} (PostgreSQL port) is not trusted ` +
      `(${error.message}); --insecure skips verification`, 'ECERT')
  }
  return new PgConnectionError(`TLS handshake with ${connection.address} (PostgreSQL port) failed: ${error.message}`,
    'ETLS')
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

/** A message while no cycle of this connection is in flight: a late or doubled answer. */
function unasked (connection, type) {
  const name = JSON.stringify(String.fromCharCode(type))
  return new PgConnectionError(`${connection.address} sent a message (type ${name}) ` +
    'while no request of this connection was in flight: an answer to nothing asked; the connection is given up',
  'EPROTOCOL', true)
}

/** A batch's answer out of the order CrateDB answers one: the connection is given up, unanswered rows in doubt. */
function outOfStep (connection, what) {
  return new PgConnectionError(`${connection.address} sent ${what}: not the PostgreSQL protocol as CrateDB speaks ` +
    'it; the connection is given up, the rows not answered in doubt', 'EPROTOCOL', true)
}

/** No answer: the connection could not be made, or was lost (`sent`: the cycle may have reached the server). */
class PgConnectionError extends Error {
  constructor (message, code, sent = false) {
    super(message)
    this.name = 'PgConnectionError'
    this.code = code
    this.sent = sent
  }
}

module.exports = { PgError, PgConnectionError, abandonedOpening, tooLarge, tlsFailure, unasked, outOfStep }
