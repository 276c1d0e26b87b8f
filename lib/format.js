'use strict'

// Number helpers shared by the report and the workloads' own result fields. Kept apart from
// report.js so that workers, which load the workloads, do not load the table renderer.

const round = (x, digits = 2) => (x === null || x === undefined ? x : Math.round(x * 10 ** digits) / 10 ** digits)
const fmt = (x) => (typeof x === 'number' ? x.toLocaleString('en-US', { maximumFractionDigits: 2 }) : String(x ?? '-'))
const perSecond = (count, seconds) => (seconds > 0 ? round(count / seconds) : 0)

module.exports = { round, fmt, perSecond }
