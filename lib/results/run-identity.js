'use strict'

const { UsageError } = require('../base/errors')

// Which run a result belongs to, and which load generator of it wrote it.

function parseRunId (text) {
  if (text === undefined) {
    return `run-${new Date()
      .toISOString()
      .replace(/[-:]/g, '')
      .replace(/\.\d+Z$/, 'Z')}-${Math.random().toString(36).slice(2, 8)}`
  }
  if (!/^[A-Za-z0-9._:-]{1,100}$/.test(String(text))) {
    throw new UsageError(`--run_id must be 1 to 100 letters, digits or . _ : - (got '${text}')`)
  }
  return String(text)
}

/** --generator K/N: one of N load generators of a run, K counted from 1. */
function parseGenerator (text) {
  if (text === undefined) return { index: 0, count: 1 }
  const m = /^(\d+)\/(\d+)$/.exec(String(text).trim())
  const k = m ? Number(m[1]) : NaN
  const n = m ? Number(m[2]) : NaN
  if (!(n >= 1 && k >= 1 && k <= n && n <= 10_000)) {
    throw new UsageError(
      `--generator must be K/N with 1 <= K <= N, e.g. 2/3 for the second of three load generators (got '${text}')`
    )
  }
  return { index: k - 1, count: n }
}

module.exports = { parseRunId, parseGenerator }
