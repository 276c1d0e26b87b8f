'use strict'

const { now } = require('../base/clock')
const {
  newHistogram, decodeHistogram, recordMicros, encodeHistogram, addEncoded, mergedSummary, latencySummary
} = require('./histograms')
const { errorPattern, ErrorGroups, MAX_ERROR_GROUPS } = require('./error-groups')

// The counts of a run: a series per kind of request, the worker's recorder of each period, the master's totals. The
// histograms (./histograms) and the error groups (./error-groups) they hold are re-exported for their many readers.

/** Counts of one kind of request (all inserts, or one query of a mix). */
class Series {
  /** `withServer`: false for a series that never reports the server's own time (a timeline's interval). */
  constructor ({ withServer = true } = {}) {
    this.requests = 0
    this.requestsFailed = 0
    this.ok = 0
    this.failed = 0
    this.inDoubt = 0
    this.latency = newHistogram()
    this.server = withServer ? newHistogram() : null
    this.latencyMax = 0
    this.serverMax = 0
  }

  /** Empty again, its histograms kept (cleared, not made anew). */
  reset () {
    this.requests = 0
    this.requestsFailed = 0
    this.ok = 0
    this.failed = 0
    this.inDoubt = 0
    this.latency.reset()
    if (this.server) this.server.reset()
    this.latencyMax = 0
    this.serverMax = 0
    return this
  }

  recordLatency (micros) {
    recordMicros(this.latency, micros)
    if (micros > this.latencyMax) this.latencyMax = micros
  }

  recordServer (micros) {
    if (this.server) recordMicros(this.server, micros)
    if (micros > this.serverMax) this.serverMax = micros
  }

  latencySummary () {
    return latencySummary(this.latency, this.latencyMax)
  }

  serverSummary () {
    return latencySummary(this.server, this.serverMax)
  }

  toDelta () {
    return {
      requests: this.requests,
      requestsFailed: this.requestsFailed,
      ok: this.ok,
      failed: this.failed,
      inDoubt: this.inDoubt,
      latency: encodeHistogram(this.latency),
      latencyMax: this.latencyMax,
      server: this.server && encodeHistogram(this.server),
      serverMax: this.serverMax
    }
  }

  addDelta (delta) {
    this.requests += delta.requests
    this.requestsFailed += delta.requestsFailed
    this.ok += delta.ok
    this.failed += delta.failed
    this.inDoubt += delta.inDoubt || 0
    addEncoded(this.latency, delta.latency)
    if (this.server) addEncoded(this.server, delta.server)
    this.latencyMax = Math.max(this.latencyMax, delta.latencyMax)
    this.serverMax = Math.max(this.serverMax, delta.serverMax)
  }
}

/**
 * Worker side: what happened since the last report. Units are rows for ingest and queries for the
 * analytical mix. `takeDelta()` hands the interval to the master and starts a new one, so the
 * master's sums are exact and a worker that dies loses at most its last second.
 */
class Recorder {
  /**
   * `warmupUntil`: answers before this instant (--warmup) are counted apart and kept out of every
   * figure; the measured window starts there.
   */
  constructor ({ now: clockNow = now, warmupUntil = null } = {}) {
    this.now = clockNow
    this.warmupUntil = warmupUntil
    this.warmup = emptyWarmup()
    this.series = new Map()
    this.warmupSeries = new Map()
    this.errors = new ErrorGroups()
    this.firstSentAt = null
    this.lastSentAt = null
    this.lastAnsweredAt = null
    this.unitsInFlight = 0
    startCounts(this)
    this.events = []
    this.periodStartedAt = this.now()
    // Series handed over and emptied, for the next period's labels: two histograms of 94 KB each a label a second
    // would otherwise be made and collected.
    this.spare = []
  }

  /**
   * The warm-up ends at `at`, before the instant it was to end (a steady warm-up, told by the master): the answers
   * from `at` on are measured, and the window starts there. False when it had ended already.
   */
  endWarmup (at) {
    if (this.warmupUntil === null || at >= this.warmupUntil) return false
    this.warmupUntil = at
    return true
  }

  /** Something the client saw happen to a host (down, up again), passed on with the next delta. */
  event (event) {
    this.events.push(event)
  }

  seriesFor (label) {
    let s = this.series.get(label)
    if (!s) {
      s = this.spare.pop() || new Series()
      this.series.set(label, s)
    }
    return s
  }

  warmupSeriesFor (label) {
    let s = this.warmupSeries.get(label)
    if (!s) {
      s = this.spare.pop() || new Series()
      this.warmupSeries.set(label, s)
    }
    return s
  }

  /** A request sent: `at` opens the window (a paced request's scheduled time), `sentAt` when it went out. */
  sent (units, at, sentAt = at) {
    if (this.firstSentAt === null) this.firstSentAt = at
    this.lastSentAt = sentAt
    this.unitsSent += units
    this.unitsInFlight += units
  }

  /** A paced request whose scheduled start found every in-flight slot busy. */
  late () {
    this.lateRequests++
  }

  /** Requests the --rate timetable held before --duration ended that never went out. */
  dropped (requests, units) {
    this.droppedRequests += requests
    this.droppedUnits += units
  }

  /** Requests due at a rate that was changed before they could go out: withdrawn by the change. */
  withdrawn (requests, units) {
    this.withdrawnRequests += requests
    this.withdrawnUnits += units
  }

  /**
   * One answered (or failed) request. `failures` lists error groups as {code,status,message,count,inDoubt};
   * `inDoubt` counts units whose answer was lost after they were sent.
   */
  answered ({ label, units, ok, failed, inDoubt = 0, latencyMicros, ownMicros = latencyMicros, serverMillis,
    requestFailed, failures, at }) {
    if (this.warmupUntil !== null && at < this.warmupUntil) {
      this.warmup.requests++
      this.warmup.units += units
      this.warmup.ok += ok
      this.warmup.failed += failed
      this.warmup.inDoubt += inDoubt
      this.unitsInFlight -= units
      // Kept out of every figure, but drawn over time: the warm-up's load is load the cluster served.
      const w = this.warmupSeriesFor(label)
      w.requests++
      w.ok += ok
      w.failed += failed
      w.inDoubt += inDoubt
      w.recordLatency(latencyMicros)
      return
    }
    const s = this.seriesFor(label)
    s.requests++
    if (requestFailed) s.requestsFailed++
    s.ok += ok
    s.failed += failed
    s.inDoubt += inDoubt
    s.recordLatency(latencyMicros)
    if (ownMicros > this.maxOwnMicros) this.maxOwnMicros = ownMicros
    if (typeof serverMillis === 'number' && Number.isFinite(serverMillis)) s.recordServer(serverMillis * 1000)
    if (failures) for (const f of failures) this.errors.add(f, f.count)
    this.unitsInFlight -= units
    this.lastAnsweredAt = at
  }

  takeDelta () {
    const series = Object.create(null)
    for (const [label, s] of this.series) {
      series[label] = s.toDelta()
    }
    const warmupSeries = Object.create(null)
    for (const [label, s] of this.warmupSeries) warmupSeries[label] = s.toDelta()
    const at = this.now()
    const delta = {
      series,
      // The warm-up's answers of this period, for the timeline only: no total adds them.
      warmupSeries,
      errors: this.errors.toJSON(),
      // With a warm-up, the measured window starts where it ends.
      firstSentAt:
        this.warmupUntil !== null && this.firstSentAt !== null
          ? Math.max(this.firstSentAt, this.warmupUntil)
          : this.firstSentAt,
      lastSentAt: this.lastSentAt,
      warmup: this.warmup,
      lastAnsweredAt: this.lastAnsweredAt,
      unitsInFlight: this.unitsInFlight,
      ...countsOf(this),
      events: this.events,
      // The period this delta covers and when it ended, so a live rate can be exact however the
      // deltas arrive, and the timeline can place each one in its interval.
      periodMs: at - this.periodStartedAt,
      at
    }
    this.periodStartedAt = at
    for (const s of [...this.series.values(), ...this.warmupSeries.values()]) this.spare.push(s.reset())
    this.series = new Map()
    this.warmupSeries = new Map()
    this.errors.clear()
    startCounts(this)
    this.events = []
    this.warmup = emptyWarmup()
    return delta
  }
}

// A period's counts: the master adds every worker's up, but for the slowest own time of a request, the largest.
const SUMMED_COUNTS = ['unitsSent', 'lateRequests', 'droppedRequests', 'droppedUnits', 'withdrawnRequests',
  'withdrawnUnits']

function startCounts (holder) {
  for (const name of SUMMED_COUNTS) holder[name] = 0
  holder.maxOwnMicros = 0
}

function countsOf (holder) {
  const counts = { maxOwnMicros: holder.maxOwnMicros }
  for (const name of SUMMED_COUNTS) counts[name] = holder[name]
  return counts
}

function emptyWarmup () {
  return { requests: 0, units: 0, ok: 0, failed: 0, inDoubt: 0 }
}

/** Master side: the exact sum of every delta of every worker. */
class Totals {
  constructor () {
    this.series = new Map()
    this.all = new Series()
    this.errors = new ErrorGroups()
    this.firstSentAt = null
    this.lastSentAt = null
    this.lastAnsweredAt = null
    startCounts(this)
    this.warmup = emptyWarmup()
  }

  addDelta (delta) {
    if (delta.warmup) for (const key of Object.keys(this.warmup)) this.warmup[key] += delta.warmup[key]
    for (const [label, d] of Object.entries(delta.series)) {
      let s = this.series.get(label)
      if (!s) {
        s = new Series()
        this.series.set(label, s)
      }
      s.addDelta(d)
      this.all.addDelta(d)
    }
    this.errors.merge(delta.errors)
    if (delta.firstSentAt !== null && (this.firstSentAt === null || delta.firstSentAt < this.firstSentAt)) {
      this.firstSentAt = delta.firstSentAt
    }
    if (delta.lastAnsweredAt !== null && (this.lastAnsweredAt === null || delta.lastAnsweredAt > this.lastAnsweredAt)) {
      this.lastAnsweredAt = delta.lastAnsweredAt
    }
    if (delta.lastSentAt != null && (this.lastSentAt === null || delta.lastSentAt > this.lastSentAt)) {
      this.lastSentAt = delta.lastSentAt
    }
    for (const name of SUMMED_COUNTS) this[name] += delta[name] || 0
    this.maxOwnMicros = Math.max(this.maxOwnMicros, delta.maxOwnMicros || 0)
  }

  /** The measurement window: first request sent to last answer received, in seconds. */
  get seconds () {
    if (this.firstSentAt === null || this.lastAnsweredAt === null) return 0
    return Math.max(0, this.lastAnsweredAt - this.firstSentAt) / 1000
  }

  /** Of that window: first to last request sent. */
  get sendingSeconds () {
    if (this.firstSentAt === null || this.lastSentAt === null) return 0
    return Math.max(0, this.lastSentAt - this.firstSentAt) / 1000
  }
}

module.exports = {
  mergedSummary,
  decodeHistogram,
  MAX_ERROR_GROUPS,
  newHistogram,
  recordMicros,
  encodeHistogram,
  addEncoded,
  latencySummary,
  errorPattern,
  ErrorGroups,
  Series,
  Recorder,
  Totals
}
