'use strict'

// What can go wrong with a request to CrateDB over HTTP, in words a person can act on: the error classes the
// workloads and the pipeline tell apart, the failures that never left the client (their rows failed) or said the host
// is gone (it is paused), and the wording of each.

/** CrateDB answered with an error status (JSON error body, or plain text for 401, or empty for 413). */
class CrateHttpError extends Error {
  constructor ({ status, code, message }) {
    super(message)
    this.name = 'CrateHttpError'
    this.status = status
    this.code = code
  }
}

/**
 * No answer. `sent` says whether the request may have reached the server: a refused connection
 * sent nothing (its rows are failed), a connection closed mid-request or a timeout after sending
 * lost the answer (its rows are in doubt: they may be in the table).
 */
class TransportError extends Error {
  constructor ({ code, message, host, sent }) {
    super(message)
    this.name = 'TransportError'
    this.code = code
    this.host = host
    this.sent = sent
  }
}

const TLS_MISMATCH_CODES = new Set(['EPROTO', 'ERR_SSL_WRONG_VERSION_NUMBER', 'ERR_SSL_PACKET_LENGTH_TOO_LONG'])
// Failures that happen before a request leaves the client.
const NEVER_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNECTTIMEOUT',
  'ETLS',
  'ECERT',
  'ENOHOST'
])
// Failures that say the host is gone, not slow: it is skipped until its pause is over.
const HOST_DOWN_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ECLOSED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNECTTIMEOUT'
])

function normalizeCode (error) {
  const code = error && error.code
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') return 'ETIMEDOUT'
  if (code === 'UND_ERR_SOCKET') return 'ECLOSED'
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return 'ECONNECTTIMEOUT'
  if (code === 'UND_ERR_DESTROYED' || code === 'UND_ERR_ABORTED') return 'ABORTED'
  return code
}

function describeTransportFailure (code, detail, hostUrl, timeoutMs, timeoutName) {
  if (code === 'ETIMEDOUT') {
    return { code, message: `no answer from ${hostUrl} within ${timeoutMs} ms (${timeoutName})` }
  }
  if (code === 'ABORTED') return { code, message: `request to ${hostUrl} abandoned before its answer arrived` }
  if (code === 'ETOOLARGE') {
    return { code, message: `the answer of ${hostUrl} had ${detail} (--max_answer_mb): cut off, outcome in doubt` }
  }
  if (code === 'ECONNREFUSED') return { code, message: `connection refused by ${hostUrl}` }
  if (code === 'ECONNECTTIMEOUT') return { code, message: `no connection to ${hostUrl} within the connect timeout` }
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return { code, message: `cannot resolve the host of ${hostUrl}` }
  if (code === 'ECONNRESET' || code === 'EPIPE' || code === 'ECLOSED') {
    return { code, message: `connection to ${hostUrl} closed before the answer arrived` }
  }
  if (TLS_MISMATCH_CODES.has(code) || /wrong version number|packet length too long/i.test(detail)) {
    return {
      code: 'ETLS',
      message: `TLS handshake with ${hostUrl} failed: the port does not speak TLS (CRATE_SSL set for a plain HTTP ` +
        `port?)`
    }
  }
  if (/certificate|self.signed|UNABLE_TO_VERIFY|CERT_/i.test(`${code} ${detail}`)) {
    return {
      code: 'ECERT',
      message: `TLS certificate of ${hostUrl} is not trusted (${detail}); --insecure skips verification`
    }
  }
  // CrateDB's PostgreSQL port answers an HTTP request with a protocol error of its own, which no HTTP parser reads.
  if (/does not match the HTTP\/1\.1 protocol|HPE_INVALID_CONSTANT/i.test(`${code} ${detail}`)) {
    return { code: 'ENOTHTTP', message: `${hostUrl} does not answer in HTTP (${detail}): this looks like CrateDB's ` +
      'PostgreSQL port (5432 by default); give its HTTP port (4200 by default), or --protocol pg with --pg_port' }
  }
  return { code: code || 'EUNKNOWN', message: `request to ${hostUrl} failed: ${detail}` }
}

function parseErrorBody (status, contentType, text) {
  if (contentType && contentType.includes('json')) {
    try {
      const body = JSON.parse(text)
      if (body && body.error) return { status, code: body.error.code, message: body.error.message }
    } catch { /* fall through to the text */ }
  }
  if (status === 401) return { status, code: 401, message: `authentication failed: ${text.trim() || 'HTTP 401'}` }
  if (status === 413) {
    return {
      status,
      code: 413,
      message: 'request body too large for the server (HTTP 413, over http.max_content_length): lower --batch_size'
    }
  }
  return { status, code: status, message: `HTTP ${status}${text.trim() ? `: ${text.trim().slice(0, 200)}` : ''}` }
}

// --max_answer_mb by default: far more than any answer of this tool's statements (a bulk answer is about 16 bytes a
// row over HTTP, 21 over the PostgreSQL protocol); larger, the answer is cut off and the request is in doubt.
const DEFAULT_MAX_ANSWER_BYTES = 64 * 1024 * 1024

/** A request cut short by the client: its answer took longer than --timeout, or grew beyond the cap. */
function cutShort (code, message) {
  return Object.assign(new Error(message), { code })
}

module.exports = {
  CrateHttpError,
  TransportError,
  NEVER_SENT_CODES,
  HOST_DOWN_CODES,
  normalizeCode,
  describeTransportFailure,
  parseErrorBody,
  cutShort,
  DEFAULT_MAX_ANSWER_BYTES
}
