'use strict'

const { performance } = require('node:perf_hooks')

// Wall-clock milliseconds with sub-millisecond resolution. Workers and master share one machine
// clock, so windows measured in different processes can be compared and merged.
const origin = performance.timeOrigin

function now () {
  return origin + performance.now()
}

module.exports = { now }
