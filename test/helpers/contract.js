'use strict'

// The contract between the test double and CrateDB: the captured HTTP exchanges (test/fixtures), replayed in their
// recorded order, and what the tool relies on in each answer (status, whether it is JSON, columns, rowcount, small
// rows, the error code, every bulk row's rowcount and error code). The double is replayed against the captures
// (test/helpers/crate-test-double.test.js); a real node is held to them
// (test/integration/contract.integration.test.js); scripts/record-fixtures.js records them again from a real node,
// so that a new CrateDB version is one command away.

const { fixture } = require('./crate-test-double')

const REPLAYED_IN_ORDER = [
  '00-setup-drop', '01-select-1', '03-create-cpu-table', '04-create-table-exists',
  '05-create-if-not-exists-existing', '06-bulk-insert-ok', '07-bulk-insert-partial-failure',
  '08-bulk-insert-wrong-arity', '09-bulk-insert-extra-tags', '10-bulk-insert-iso-ts', '11-refresh', '12-count',
  '14-unknown-table', '16-bad-json', '17-missing-stmt', '18-args-and-bulk-args', '19-bulk-select',
  '23-table-exists-check', '27-invalid-shards', '28-invalid-replicas', '29-replicas-range', '30-drop-range',
  '38-drop-table', '39-insert-into-dropped'
]

/** The request of a capture as text, its tables renamed by `rename` (a real node's scratch tables). */
function requestText (capture, rename = (text) => text) {
  const body = capture.request.body
  return rename(typeof body === 'string' ? body : JSON.stringify(body))
}

/** POSTs a capture's request to `baseUrl`; resolves with { status, contentType, body } as the capture keeps them. */
async function replay (baseUrl, capture, { rename, headers = {} } = {}) {
  const response = await fetch(`${baseUrl}${capture.request.path}`, { method: 'POST', body: requestText(capture,
    rename),
    headers: { 'content-type': 'application/json', ...headers } })
  const text = await response.text()
  const contentType = response.headers.get('content-type')
  return { status: response.status, contentType, body: contentType && contentType.includes('json') ? JSON.parse(text)
    : text }
}

/** What the tool relies on in an answer. */
function contractOf ({ status, contentType, body }) {
  const json = Boolean(contentType && contentType.includes('json'))
  const b = json && body && typeof body === 'object' ? body : {}
  const small = Array.isArray(b.rows) && b.rows.length <= 5 && b.rows.every((r) => Array.isArray(r) &&
    r.every((v) => v === null || typeof v !== 'object'))
  return {
    status,
    json,
    cols: b.cols ?? null,
    rowcount: b.rowcount ?? null,
    rows: small ? b.rows : Array.isArray(b.rows) ? `${b.rows.length} rows` : null,
    error_code: b.error ? b.error.code : null,
    results: Array.isArray(b.results)
      ? b.results.map((r) => [r.rowcount, r.error ? r.error.code : null]) : null
  }
}

/**
 * Answers a real CrateDB 6.4.3 gives in more than one way, each with why the tool is indifferent to it. Found by the
 * contract test itself: CLUSTERED INTO 0 SHARDS answers 400/4000 (SQLParseException) alone, and 500/5000
 * (ClassCastException Integer → Long) after the exchanges before it in this order (no single one of them is enough);
 * the tool reports either as a CREATE TABLE that failed (exit 3).
 */
const VARIANTS = {
  '27-invalid-shards': { status: [400, 500], error_code: [4000, 5000] }
}

/** The fields of two contracts that differ ("field: captured X, got Y"); a known variant of `name` is none. */
function differences (captured, got, name = null) {
  const variants = (name && VARIANTS[name]) || {}
  return Object.keys(captured).filter((key) => JSON.stringify(captured[key]) !== JSON.stringify(got[key]))
    .filter((key) => !(variants[key] || []).includes(got[key]))
    .map((key) => `${key}: captured ${JSON.stringify(captured[key])}, got ${JSON.stringify(got[key])}`)
}

/** A capture's answer with its duration as the captures keep it. */
function withoutDuration (body) {
  if (body && typeof body === 'object' && 'duration' in body) {
    const { duration, ...rest } = body
    return { ...rest, duration: typeof duration === 'number' ? '<float ms>' : duration }
  }
  return body
}

module.exports = { REPLAYED_IN_ORDER, replay, contractOf, differences, withoutDuration, fixture }
