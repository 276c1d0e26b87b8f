'use strict'

// Number and text helpers shared by the report, the workloads' own result fields and error lines.
// Kept apart from report.js so that workers, which load the workloads, do not load the table renderer.

const round = (x, digits = 2) => (x === null || x === undefined ? x : Math.round(x * 10 ** digits) / 10 ** digits)
const fmt = (x) => (typeof x === 'number' ? x.toLocaleString('en-US', { maximumFractionDigits: 2 }) : String(x ?? '-'))
const perSecond = (count, seconds) => (seconds > 0 ? round(count / seconds) : 0)

/** Control characters shown as escapes, so that a name or message never breaks a line or a terminal. */
function visible (text) {
  // eslint-disable-next-line no-control-regex -- these are the characters made visible
  return String(text).replace(/[\u0000-\u001f\u007f]/g, (c) => JSON.stringify(c).slice(1, -1))
}

module.exports = { round, fmt, perSecond, visible }
