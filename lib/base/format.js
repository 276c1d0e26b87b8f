'use strict'

// Number and text helpers shared by the report, the workloads' own result fields and error lines.
// Kept apart from report.js so that workers, which load the workloads, do not load the table renderer.

const round = (x, digits = 2) => (x === null || x === undefined ? x : Math.round(x * 10 ** digits) / 10 ** digits)
const fmt = (x) => (typeof x === 'number' ? grouped(x, 2) : String(x ?? '-'))

/**
 * A number as toLocaleString('en-US', { maximumFractionDigits }) writes it ("1,234,567.89"), without Intl: the first
 * use of Intl loads ICU's data, ~10 ms of CPU in a process that otherwise prints a few numbers.
 */
function grouped (x, maximumFractionDigits = 0) {
  const shortest = String(Math.abs(x))
  // NaN, Infinity and exponent forms (below 1e-6, from 1e21): Intl then, whatever it costs.
  if (!/^\d+(\.\d+)?$/.test(shortest)) return x.toLocaleString('en-US', { maximumFractionDigits })
  // Intl rounds the shortest decimal that names the double (1.005 to 1.01), half away from zero: so do we, on digits.
  const [whole, fraction = ''] = shortest.split('.')
  let digits = whole + fraction.slice(0, maximumFractionDigits).padEnd(maximumFractionDigits, '0')
  if (fraction.length > maximumFractionDigits && fraction[maximumFractionDigits] >= '5') digits = incremented(digits)
  const wholeDigits = digits.slice(0, digits.length - maximumFractionDigits) || '0'
  const kept = digits.slice(digits.length - maximumFractionDigits).replace(/0+$/, '')
  const sign = x < 0 || Object.is(x, -0) ? '-' : ''
  return `${sign}${wholeDigits.replace(/\B(?=(\d{3})+$)/g, ',')}${kept ? `.${kept}` : ''}`
}

/** A string of decimal digits plus one ("0999" → "1000", "99" → "100"). */
function incremented (digits) {
  let i = digits.length - 1
  while (i >= 0 && digits[i] === '9') i--
  if (i < 0) return `1${'0'.repeat(digits.length)}`
  return `${digits.slice(0, i)}${Number(digits[i]) + 1}${'0'.repeat(digits.length - i - 1)}`
}

const perSecond = (count, seconds) => (seconds > 0 ? round(count / seconds) : 0)

// A rate as a table plans with it: in whole units ("400,821"), not hundredths.
const fmtWhole = (x) => fmt(typeof x === 'number' ? Math.round(x) : x)

/** Settings as a line: { batch_size: 500, concurrent_requests: 8 } → "batch_size 500, concurrent_requests 8". */
const pairsText = (settings) => Object.entries(settings).map(([k, v]) => `${k} ${v}`).join(', ')

/**
 * Control characters (C0, DEL and C1: an escape sequence's ESC or CSI) shown as escapes, so that a name or message,
 * a cluster's own words included, never breaks a line, clears a screen or sets a terminal's title.
 */
function visible (text) {
  // eslint-disable-next-line no-control-regex -- these are the characters made visible
  return String(text).replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => (c < '\u007f' ? JSON.stringify(c).slice(1, -1)
    : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`))
}

module.exports = { round, fmt, fmtWhole, grouped, perSecond, pairsText, visible }
