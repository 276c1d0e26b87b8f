'use strict'

// The answer of CrateDB's HTTP endpoint to a bulk INSERT (bulk_args), settled row by row: a row counts as inserted
// only when its own result says rowcount 1 (captures 06, 41–43, 63).

const ALL_OK_ENTRY = '{"rowcount":1}'
const RESULTS_KEY = '"results":['

/**
 * The answer to a bulk INSERT is one {"rowcount":1} per row when all went well. Checking that
 * text entry by entry costs far less than building 10,000 objects; anything else (a rejected
 * row, another layout) falls back to JSON.parse and is accounted row by row.
 */
function parseBulkAnswer (text) {
  const start = text.indexOf(RESULTS_KEY)
  if (start >= 0) {
    const allOk = allOkRows(text, start + RESULTS_KEY.length)
    if (allOk >= 0) return { allRowsOk: allOk, duration: durationBefore(text, start) }
    let pos = start + RESULTS_KEY.length
    let rows = 0
    while (text.startsWith(ALL_OK_ENTRY, pos)) {
      rows++
      pos += ALL_OK_ENTRY.length
      if (text.charCodeAt(pos) === 0x2c) pos++
    }
    if (text.startsWith(']}', pos) && text.indexOf(RESULTS_KEY, pos) < 0) {
      return { allRowsOk: rows, duration: durationBefore(text, start) }
    }
  }
  return JSON.parse(text)
}

function durationBefore (text, start) {
  const duration = /"duration":(-?[\d.eE+-]+)/.exec(text.slice(0, start))
  return duration ? Number(duration[1]) : undefined
}

// The results of an all-ok bulk by its row count: a run sends one or two batch sizes, so a few entries suffice.
const allOkResults = new Map()
const ALL_OK_SIZES_KEPT = 4

/**
 * The row count when the results from `from` to the end are exactly one {"rowcount":1} per row and nothing follows:
 * one comparison with the text an all-ok answer of that length has (~5 ns a row, against ~22 for the entry-by-entry
 * scan), or -1.
 */
function allOkRows (text, from) {
  const length = text.length - from - 2
  if ((length + 1) % (ALL_OK_ENTRY.length + 1) !== 0 || !text.endsWith(']}')) return -1
  const rows = (length + 1) / (ALL_OK_ENTRY.length + 1)
  let expected = allOkResults.get(rows)
  if (expected === undefined) {
    if (allOkResults.size >= ALL_OK_SIZES_KEPT) allOkResults.delete(allOkResults.keys().next().value)
    expected = new Array(rows).fill(ALL_OK_ENTRY).join(',')
    allOkResults.set(rows, expected)
  }
  return text.startsWith(expected, from) ? rows : -1
}

/**
 * Rows CrateDB rejected without an error of their own (rowcount -2 alone). When other rows of the same request
 * carry an error, the group names the commonest: a bulk of duplicates answers most rows with
 * DuplicateKeyException and some with nothing, and they are one story. They stay a group of their own, since during
 * a failover bare rows were not stored while their siblings were (shared capture 63).
 */
function bareRowsFailure (count, siblingFailures) {
  const byMessage = new Map()
  for (const f of siblingFailures) byMessage.set(f.message, (byMessage.get(f.message) ?? 0) + 1)
  let commonest = null
  for (const [message, n] of byMessage) if (commonest === null || n > byMessage.get(commonest)) commonest = message
  const message = commonest === null
    ? 'rowcount -2 without error details'
    : `rowcount -2 without error details; the other failed rows of the request: ${commonest}`
  return { code: null, status: 200, message, count }
}

/**
 * A row counts as inserted only when its own result says rowcount 1. CrateDB answers HTTP 200
 * with rowcount -2 (and, since 5.x, an error object) for each row it rejected.
 */
function accountBulkAnswer (rowsSent, answer) {
  if (answer && answer.allRowsOk === rowsSent) {
    return { ok: rowsSent, failed: 0, requestFailed: false, failures: [], serverMillis: answer.duration }
  }
  if (answer && answer.allRowsOk !== undefined) {
    // Every result said rowcount 1, but not one result per row: account it the slow way.
    answer = { results: new Array(answer.allRowsOk).fill({ rowcount: 1 }), duration: answer.duration }
  }
  const results = answer && Array.isArray(answer.results) ? answer.results : null
  if (!results) {
    return {
      ok: 0,
      failed: rowsSent,
      requestFailed: true,
      failures: [
        { code: 'ENORESULTS', status: 200, message: 'answer to a bulk request has no per-row results', count: rowsSent }
      ],
      serverMillis: answer && answer.duration
    }
  }
  let ok = 0
  const failures = []
  let bare = 0
  let malformed = 0
  const seen = Math.min(results.length, rowsSent)
  for (let i = 0; i < seen; i++) {
    const result = results[i]
    if (result !== null && typeof result === 'object' && result.rowcount === 1) {
      ok++
    } else if (result === null || typeof result !== 'object') {
      malformed++
    } else if (result.error && typeof result.error === 'object') {
      // A row's own error came in an HTTP 200 answer; over the PostgreSQL protocol there was no HTTP status at all.
      const status = 'status' in result.error ? result.error.status : 200
      failures.push({ code: result.error.code ?? null, status, message: String(result.error.message), count: 1 })
    } else {
      bare++
    }
  }
  if (bare > 0) failures.push(bareRowsFailure(bare, failures))
  if (malformed > 0) {
    const message = 'malformed answer: a row result that is not an object'
    failures.push({ code: 'EMALFORMED', status: 200, message, count: malformed })
  }
  if (results.length < rowsSent) {
    failures.push({
      code: 'ENORESULTS',
      status: 200,
      message: `answer has ${results.length} results for ${rowsSent} rows`,
      count: rowsSent - results.length
    })
  }
  return { ok, failed: rowsSent - ok, requestFailed: false, failures, serverMillis: answer.duration }
}

module.exports = { parseBulkAnswer, accountBulkAnswer }
