'use strict'

const fs = require('node:fs')
const { UsageError } = require('./errors')

// Parsers of the values flags take, shared by every command: durations, counts, rates, booleans.

const DURATION_UNITS_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }

const HOUR_MS = 3_600_000

// Each duration's range. Timers overflow past 2^31 - 1 ms (about 596 h) and then fire at once, so
// nothing that becomes a timer may come near it; a run cannot hold a request in less than 1 ms.
const DURATION_RANGES_MS = {
  timeout: [1, 24 * HOUR_MS],
  graceful_stop: [1, 24 * HOUR_MS],
  warmup: [1, 24 * HOUR_MS],
  monitor_interval: [100, HOUR_MS],
  duration: [1, 30 * 24 * HOUR_MS],
  refresh_interval: [1, 24 * HOUR_MS],
  interval: [1, 365 * 24 * HOUR_MS],
  ingest_interval: [1, 365 * 24 * HOUR_MS],
  last: [1, 10 * 365 * 24 * HOUR_MS],
  // A grid's or a study's time to race in: at least a minute, at most a month.
  budget: [60_000, 30 * 24 * HOUR_MS]
}

/** 1ms, 1.5s, 720h: the largest unit that fits, as the flags are written. */
function formatMs (ms) {
  for (const [unit, size] of [
    ['h', HOUR_MS],
    ['m', 60_000],
    ['s', 1000]
  ]) {
    if (ms >= size) return `${Math.round((ms / size) * 100) / 100}${unit}`
  }
  return `${ms}ms`
}

// "30s", "5m", "1.5h", "250ms"; a bare number means seconds, as in most load tools.
function parseDuration (value, flag) {
  const text = String(value).trim()
  const match = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h)?$/.exec(text)
  const ms = match ? Number(match[1]) * DURATION_UNITS_MS[match[2] || 's'] : NaN
  if (!Number.isFinite(ms) || ms <= 0) {
    throw new UsageError(`--${flag} must be a positive duration such as 500ms, 30s, 5m or 1h (got '${text}')`)
  }
  const [min, max] = DURATION_RANGES_MS[flag] || [1, 24 * HOUR_MS]
  if (ms < min || ms > max) {
    throw new UsageError(`--${flag} must be between ${formatMs(min)} and ${formatMs(max)} (got '${text}')`)
  }
  return ms
}

/** "5%" or "5": a percentage above 0 and below `max` (100), or a usage error naming `flag`. */
function parsePercent (value, flag, { max = 100 } = {}) {
  const match = /^(\d+(?:\.\d+)?)%?$/.exec(String(value).trim())
  const pct = match ? Number(match[1]) : NaN
  if (!(pct > 0 && pct < max)) {
    throw new UsageError(`--${flag} must be a percentage above 0 and below ${max}, such as 5% (got '${value}')`)
  }
  return pct
}

function requirePositiveInteger (value, flag, { allowZero = false } = {}) {
  const min = allowZero ? 0 : 1
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) {
    const shown = Number.isNaN(value) ? 'not a number' : `'${value}'`
    throw new UsageError(`--${flag} must be a whole number ${allowZero ? '>= 0' : '>= 1'} (got ${shown})`)
  }
  return value
}

/** A whole number as written in decimal digits ("3" or 3); anything else (1e1, 0x10, 3.5, "") is NaN. */
function decimalInteger (value) {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? value : NaN
  // The raw text, digits only: ' 2' or '2 ' is no number a user meant (yargs hands it over untrimmed).
  return /^[0-9]{1,15}$/.test(String(value ?? '')) ? Number(value) : NaN
}

/**
 * --max_rows / --max_queries: as given; else the default, unless --duration is given, which then
 * alone ends the run (a count limit nobody asked for must not cut a timed run short).
 */
function countLimit (value, flag, duration, defaultCount) {
  if (value !== undefined) return requirePositiveInteger(value, flag)
  return duration === undefined ? defaultCount : Number.MAX_SAFE_INTEGER
}

function parseBooleanText (value, name) {
  if (typeof value === 'boolean') return value
  const text = String(value ?? '').trim().toLowerCase()
  if (['', '0', 'false', 'no', 'off'].includes(text)) return false
  if (['1', 'true', 'yes', 'on'].includes(text)) return true
  throw new UsageError(`${name} must be true or false (got '${value}')`)
}

/** A positive rate per second, e.g. --rate (rows or queries) or --ingest_rate (rows). */
/** The soft limit of open files of this process (Linux), or null where it cannot be read. */
function openFileLimit () {
  try {
    const line = fs.readFileSync('/proc/self/limits', 'utf8').split('\n').find((l) => l.startsWith('Max open files'))
    const soft = line && line.split(/\s{2,}/)[1]
    return /^\d+$/.test(soft) ? Number(soft) : null
  } catch {
    return null
  }
}

// Sockets, the IPC channel and the files Node itself keeps open.
const FILES_BESIDE_SOCKETS = 64

/** Each request in flight holds a socket: more than the open-file limit allows would stall in EMFILE. */
function requireConcurrency (value, flag, limit = openFileLimit()) {
  const concurrency = requirePositiveInteger(value, flag)
  if (limit !== null && concurrency + FILES_BESIDE_SOCKETS > limit) {
    throw new UsageError(
      `--${flag} ${concurrency} needs a socket per request in flight, more than this process may open (ulimit ` +
      `-n ${limit}): use at most ${Math.max(1, limit - FILES_BESIDE_SOCKETS)}, or more --processes`
    )
  }
  return concurrency
}

module.exports = {
  formatMs,
  parseDuration,
  parsePercent,
  requirePositiveInteger,
  decimalInteger,
  countLimit,
  parseBooleanText,
  requireConcurrency
}
