'use strict'

const { performance } = require('node:perf_hooks')

// Wall-clock milliseconds with sub-millisecond resolution. Workers and master share one machine
// clock, so windows measured in different processes can be compared and merged, and a start time
// the master picks means the same instant in every worker.
const origin = performance.timeOrigin

function now () {
  return origin + performance.now()
}

function sleep (ms) {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)))
}

// What the engine and the worker group take as their clock: tests pass a fake one.
const systemClock = Object.freeze({ now, sleep })

module.exports = { now, sleep, systemClock }
