'use strict'

const { UsageError } = require('../base/errors')
const { decimalInteger, parseDuration, parsePercent } = require('../base/values')
const { grouped } = require('../base/format')

// The values of a study file, each checked as its key takes it: one line naming the key when it is not (exit 2).

const MAX_PREFILL_ROWS = 10_000_000_000

/** A text (or a number) of `key`, as text. */
const text = (value, key) => {
  if (typeof value !== 'string' && typeof value !== 'number') throw new UsageError(`${key} must be a value`)
  return String(value)
}

/** A whole number of `key` from `min` to `max` (decimal digits, or a YAML integer), or one line naming the key. */
function wholeNumber (value, key, { min = 1, max }) {
  const n = decimalInteger(value)
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    throw new UsageError(`${key} must be a whole number from ${min} to ${grouped(max)} (got ${JSON.stringify(value)})`)
  }
  return n
}

/** A duration of `key` as the benchmark takes it (30s, 5m); with `zeroIsNone`, 0 (or 0s) turns it off: '0'. */
function durationText (value, key, { zeroIsNone = false } = {}) {
  const shown = text(value, key)
  if (zeroIsNone && /^0+(\.0+)?\s*(ms|s|m|h)?$/.test(shown.trim())) return '0'
  try {
    parseDuration(shown, 'duration')
  } catch {
    throw new UsageError(`${key} must be a positive duration such as 30s or 5m${zeroIsNone ? ' (0: none)' : ''} (got ` +
      `'${shown}')`)
  }
  return shown
}

/** A precision of `key` (5%: a 95% interval within ±5%), as text with its %, or null when not given. */
function precisionOf (value, key) {
  if (value === undefined) return null
  try {
    return `${parsePercent(text(value, key), 'precision', { max: 50 })}%`
  } catch {
    throw new UsageError(`${key} must be a percentage above 0 and below 50, such as 5% (got ${JSON.stringify(value)})`)
  }
}

/** A budget of `key` (20m, 2h: from a minute to 30 days), as text, or null when not given. */
function budgetOf (value, key) {
  if (value === undefined) return null
  const shown = text(value, key)
  try {
    parseDuration(shown, 'budget')
  } catch {
    throw new UsageError(`${key} must be a duration from 1m to 720h, such as 20m (got '${shown}')`)
  }
  return shown
}

/** true or false of `key`, or one line naming it. */
function flagOf (value, key) {
  if (value === undefined) return false
  if (typeof value !== 'boolean') throw new UsageError(`${key} must be true or false (got ${JSON.stringify(value)})`)
  return value
}

/** Rows to prefill of `key`: 0 (none) up to ten billion. */
const prefillOf = (value, key) => (value === undefined ? null
  : wholeNumber(value, key, { min: 0, max: MAX_PREFILL_ROWS }) || null)

module.exports = { wholeNumber, durationText, precisionOf, budgetOf, flagOf, prefillOf, text }
