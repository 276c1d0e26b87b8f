'use strict'

const { UsageError } = require('../base/errors')
const { parseDuration } = require('../base/values')

/** `--slo p99=200ms` as find-capacity and the grid take it: the p99 target in milliseconds. */
function parseSlo (text) {
  const slo = /^p99\s*=\s*(.+)$/.exec(String(text).trim())
  if (!slo) throw new UsageError(`--slo must be p99=<duration>, e.g. p99=200ms (got '${text}')`)
  return parseDuration(slo[1], 'slo')
}

module.exports = { parseSlo }
