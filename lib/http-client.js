'use strict'

const http = require('node:http')
const https = require('node:https')
const fetch = require('node-fetch')

/** CrateDB answered with an error status (JSON error body, or plain text for 401, or empty for 413). */
class CrateHttpError extends Error {
  constructor ({ status, code, message }) {
    super(message)
    this.name = 'CrateHttpError'
    this.status = status
    this.code = code
  }
}

/** No answer: refused, reset, timed out, TLS failure. */
class TransportError extends Error {
  constructor ({ code, message, host }) {
    super(message)
    this.name = 'TransportError'
    this.code = code
    this.host = host
  }
}

const TLS_MISMATCH_CODES = new Set(['EPROTO', 'ERR_SSL_WRONG_VERSION_NUMBER', 'ERR_SSL_PACKET_LENGTH_TOO_LONG'])

function describeTransportFailure (code, detail, hostUrl, timeoutMs) {
  if (code === 'ETIMEDOUT') return { code, message: `no answer from ${hostUrl} within ${timeoutMs} ms (--timeout)` }
  if (code === 'ABORTED') return { code, message: `request to ${hostUrl} aborted before its answer arrived` }
  if (code === 'ECONNREFUSED') return { code, message: `connection refused by ${hostUrl}` }
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return { code, message: `cannot resolve the host of ${hostUrl}` }
  if (code === 'ECONNRESET' || code === 'EPIPE') return { code, message: `connection to ${hostUrl} closed before the answer arrived` }
  if (TLS_MISMATCH_CODES.has(code) || /wrong version number|packet length too long/i.test(detail)) {
    return { code: 'ETLS', message: `TLS handshake with ${hostUrl} failed: the port does not speak TLS (CRATE_SSL set for a plain HTTP port?)` }
  }
  if (/certificate|self.signed|UNABLE_TO_VERIFY|CERT_/i.test(`${code} ${detail}`)) {
    return { code: 'ECERT', message: `TLS certificate of ${hostUrl} is not trusted (${detail}); --insecure skips verification` }
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
  if (status === 413) return { status, code: 413, message: 'request body too large for the server (HTTP 413, over http.max_content_length): lower --batch_size' }
  return { status, code: status, message: `HTTP ${status}${text.trim() ? `: ${text.trim().slice(0, 200)}` : ''}` }
}

/**
 * A thin CrateDB HTTP client: round-robin over hosts, keep-alive sockets sized to the number of
 * requests in flight, a per-request timeout, basic auth, and TLS verified unless told otherwise.
 */
class CrateClient {
  constructor ({ hosts, user, password, insecure = false, timeoutMs = 60_000, maxSockets = 20 }) {
    this.timeoutMs = timeoutMs
    this.targets = hosts.map((h) => {
      const base = `${h.protocol}://${h.hostname.includes(':') ? `[${h.hostname}]` : h.hostname}:${h.port}`
      const Agent = h.protocol === 'https' ? https.Agent : http.Agent
      const agentOptions = { keepAlive: true, maxSockets, maxFreeSockets: maxSockets }
      if (h.protocol === 'https') agentOptions.rejectUnauthorized = !insecure
      return { base, url: `${base}/_sql`, agent: new Agent(agentOptions) }
    })
    this.next = 0
    // Requests sent before the latest abort() that fail were abandoned, not lost by the network.
    this.sentCount = 0
    this.abortedUpTo = 0
    const auth = Buffer.from(`${user}:${password || ''}`).toString('base64')
    this.headers = { 'Content-Type': 'application/json', Authorization: `Basic ${auth}`, Accept: 'application/json' }
  }

  nextTarget () {
    const target = this.targets[this.next]
    this.next = (this.next + 1) % this.targets.length
    return target
  }

  /**
   * POSTs a prepared body and resolves with the parsed answer of a 2xx response. Rejects with
   * CrateHttpError for error statuses and TransportError when no answer arrived.
   * `parse` turns the answer text into what the caller accounts (JSON.parse unless the caller
   * knows a cheaper way for its answers).
   */
  async post (body, { target = this.nextTarget(), parse = JSON.parse, timeoutMs = this.timeoutMs } = {}) {
    let response, text
    const sequence = ++this.sentCount
    try {
      // node-fetch's own timeout covers the answer's headers and its body. No abort signal per
      // request: listening on one costs about a tenth of a small query's client CPU, and abort()
      // reaches every request in flight through the sockets instead.
      response = await fetch(target.url, { method: 'POST', body, headers: this.headers, agent: target.agent, timeout: timeoutMs, compress: false })
      text = await response.text()
    } catch (error) {
      const code = sequence <= this.abortedUpTo
        ? 'ABORTED'
        : error && (error.type === 'request-timeout' || error.type === 'body-timeout') ? 'ETIMEDOUT' : error && error.code
      const failure = describeTransportFailure(code, String(error && error.message), target.base, timeoutMs)
      throw new TransportError({ ...failure, host: target.base })
    }
    const contentType = response.headers.get('content-type')
    if (response.status < 200 || response.status >= 300) {
      throw new CrateHttpError(parseErrorBody(response.status, contentType, text))
    }
    try {
      return parse(text)
    } catch {
      throw new CrateHttpError({ status: response.status, code: 'EBADJSON', message: `answer from ${target.base} is not JSON: ${text.slice(0, 100)}` })
    }
  }

  /** One statement with parameters; values never go into the SQL text. */
  sql (stmt, args, options) {
    const payload = args === undefined ? { stmt } : { stmt, args }
    return this.post(JSON.stringify(payload), options)
  }

  /**
   * Abandons every request in flight (Ctrl-C twice): each rejects with TransportError ABORTED.
   * Requests sent afterwards go out as usual.
   */
  abort () {
    this.abortedUpTo = this.sentCount
    for (const target of this.targets) target.agent.destroy()
  }

  close () {
    for (const target of this.targets) target.agent.destroy()
  }
}

module.exports = { CrateClient, CrateHttpError, TransportError, parseErrorBody }
