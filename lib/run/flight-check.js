'use strict'

const { fmt } = require('../base/format')
const { flightNeeded } = require('../results/result')

// A --rate that the requests in flight cannot carry (N in flight serve N / latency requests a second) is said in the
// first second, while the run can still be stopped, in the terms the report uses at its end: what the flight served,
// the requests due while every slot was busy, and the --concurrent_requests that would have served the target.

const FIRST_MS = 1000
// Under this share of the target, with requests late, the flight is short.
const SHORT_SHARE = 0.9

/**
 * The warning for a first second that served `servedPerSec` of `targetPerSec` with `late` requests late, or null; none
 * when nothing was answered yet (the report's rule: then the answers, not the flight, are what to look at).
 */
function flightWarning ({ targetPerSec, servedPerSec, late, inFlight, unit }) {
  if (!(targetPerSec > 0) || !(late > 0) || !(servedPerSec < targetPerSec * SHORT_SHARE)) return null
  const needed = flightNeeded({ inFlight, targetPerSec, achievedPerSec: servedPerSec })
  if (needed === null) return null
  return `warning: in the first second, ${fmt(inFlight)} requests in flight per process served about ` +
    `${fmt(Math.round(servedPerSec))} ${unit}/s of the ${fmt(Math.round(targetPerSec))} targeted, ${fmt(late)} ` +
    `requests due while every one was busy: raise --concurrent_requests to at least ${fmt(needed)} (the run goes on; ` +
    'if the latency grows with the flight, the cluster is the limit)'
}

/** Fed the main group's reports; returns the warning once, on the first report after the load's first second. */
class FlightCheck {
  constructor ({ targetAt, inFlight, unit }) {
    Object.assign(this, { targetAt, inFlight, unit })
    this.ok = 0
    this.late = 0
    this.done = false
  }

  /** A report of the load `sinceStartMs` after its start: the warning text, once, or null. */
  addDelta (delta, sinceStartMs) {
    if (this.done) return null
    for (const series of [...Object.values(delta.series || {}), ...Object.values(delta.warmupSeries || {})]) {
      this.ok += series.ok
    }
    this.late += delta.lateRequests || 0
    if (sinceStartMs < FIRST_MS) return null
    this.done = true
    return flightWarning({ targetPerSec: this.targetAt(sinceStartMs), servedPerSec: this.ok / (sinceStartMs / 1000),
      late: this.late, inFlight: this.inFlight, unit: this.unit })
  }
}

module.exports = { FlightCheck, flightWarning }
