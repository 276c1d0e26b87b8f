'use strict'

const { round, fmt } = require('../base/format')

// `--warmup steady`: the warm-up ends when the nodes are warm, judged on what they served, not after a fixed time. A
// fresh JVM's first minute climbs (its JIT compiles the hot paths under load): a window on that climb measures where
// a node is on it, and two fresh nodes of an A/A study differ by where each is. Warm is when the rate stopped moving:
// the last window's rate within a tolerance of the window before it. Each window holds enough answers that one
// answer more or less (a request's share of the count) cannot look like a trend, and no window is shorter than
// MIN_WINDOW_S. A node that never settles ends the warm-up at its cap, and the result says it was not steady.
const MIN_WINDOW_S = 10
const MIN_REQUESTS = 20
const TOLERANCE_PCT = 5

/** The rule as the result and the report say it, so that a reader can check it against the run's timeline. */
function ruleText (unit, maxMs) {
  return `warm when the ${unit}/s ok over the last window is within ${TOLERANCE_PCT}% (or 2 requests' share, if ` +
    `more) of the window before it; each window at least ${MIN_WINDOW_S} s and ${MIN_REQUESTS} requests; at most ` +
    `${round(maxMs / 1000, 1)} s`
}

/**
 * Judges, second by second on the load's clock, whether the warm-up's rate is steady. Pure: it is fed the workers'
 * deltas (their periods end on the same instants in every worker) and asked at any moment; it never reads a clock.
 */
class SteadyWarmup {
  constructor ({ startAt, workers, maxMs, unit = 'rows' }) {
    this.startAt = startAt
    this.maxMs = maxMs
    this.unit = unit
    // Per second of the load: requests answered and units ok.
    this.requests = []
    this.ok = []
    // The latest period end each worker reported: a second is complete when every worker reported past it.
    this.reportedTo = new Array(workers).fill(0)
  }

  /** One worker's delta: its warm-up answers of the period, placed in the second the period's middle falls in. */
  add (worker, delta) {
    const endMs = delta.at - this.startAt
    const second = Math.max(0, Math.floor((endMs - (delta.periodMs || 0) / 2) / 1000))
    let requests = 0
    let ok = 0
    for (const s of Object.values(delta.warmupSeries || {})) {
      requests += s.requests
      ok += s.ok
    }
    while (this.requests.length <= second) {
      this.requests.push(0)
      this.ok.push(0)
    }
    this.requests[second] += requests
    this.ok[second] += ok
    if (worker >= 0 && worker < this.reportedTo.length) {
      this.reportedTo[worker] = Math.max(this.reportedTo[worker], endMs)
    }
  }

  /** Seconds every worker has reported in full. */
  completeSeconds () {
    return Math.max(0, Math.floor(Math.min(...this.reportedTo) / 1000))
  }

  /**
   * The verdict at `atMs` on the load's clock (ms since its start): null while the rate may still move; once steady,
   * { steady: true, ... } with the two windows compared; at the cap { steady: false, ... } with the last two it had.
   */
  verdict (atMs) {
    const complete = Math.min(this.completeSeconds(), this.requests.length)
    const windows = this.windowsAt(complete)
    if (windows && windows.steady) return this.described(true, windows)
    if (atMs >= this.maxMs) return this.described(false, windows)
    return null
  }

  /**
   * The two last windows of the shortest length (from MIN_WINDOW_S) that gives each MIN_REQUESTS answers, compared;
   * null when the seconds so far hold no such pair.
   */
  windowsAt (complete) {
    for (let w = MIN_WINDOW_S; 2 * w <= complete; w++) {
      const before = this.windowOf(complete - 2 * w, complete - w)
      const last = this.windowOf(complete - w, complete)
      if (before.requests < MIN_REQUESTS || last.requests < MIN_REQUESTS) continue
      const tolerancePct = Math.max(TOLERANCE_PCT, 200 / Math.min(before.requests, last.requests))
      const changePct = before.perSec > 0 ? 100 * (last.perSec - before.perSec) / before.perSec : Infinity
      return { windowS: w, before, last, changePct, tolerancePct, steady: Math.abs(changePct) <= tolerancePct }
    }
    return null
  }

  windowOf (from, to) {
    let requests = 0
    let ok = 0
    for (let s = from; s < to; s++) {
      requests += this.requests[s]
      ok += this.ok[s]
    }
    return { requests, perSec: ok / (to - from) }
  }

  described (steady, windows) {
    const rule = ruleText(this.unit, this.maxMs)
    if (!windows) {
      return { steady, rule, window_s: null, before_per_sec: null, last_per_sec: null, change_pct: null,
        tolerance_pct: null, line: `not steady at the warm-up's cap of ${fmt(round(this.maxMs / 1000, 1))} s: ` +
          `too few answers for two windows of ${MIN_REQUESTS} requests each` }
    }
    const [before, last] = [round(windows.before.perSec, 1), round(windows.last.perSec, 1)]
    const change = round(windows.changePct, 1)
    const tolerance = round(windows.tolerancePct, 1)
    const seen = `${fmt(before)} -> ${fmt(last)} ${this.unit}/s over two windows of ${windows.windowS} s ` +
      `(${change >= 0 ? '+' : ''}${fmt(change)}%, within ±${fmt(tolerance)}% counts as steady)`
    return { steady, rule, window_s: windows.windowS, before_per_sec: before, last_per_sec: last, change_pct: change,
      tolerance_pct: tolerance,
      line: steady ? `steady: ${seen}` : `not steady at the warm-up's cap of ${fmt(round(this.maxMs / 1000, 1))} s: ` +
        seen }
  }
}

module.exports = { SteadyWarmup, ruleText, MIN_WINDOW_S, MIN_REQUESTS, TOLERANCE_PCT }
