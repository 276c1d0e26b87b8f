'use strict'

const { round } = require('../base/format')

// One sample every few seconds; of each minute only its smallest RSS and heap are kept (a garbage collection has
// then run: the peaks between are garbage, not what the process holds). A day is 1,440 minutes: a few KB.
const SAMPLE_MS = 5000
const MINUTE_MS = 60_000
// A master that holds less than this more per hour over the run stayed flat; more, and a day-long run would not.
const FLAT_MB_PER_HOUR = 10
// The start and the end are a tenth of the minutes each, at least one minute; the start comes after a first tenth in
// which V8 sizes its heap (RSS rises then without anything being kept: a forced GC shows the heap flat).
const WINDOW_SHARE = 0.1
// A shorter run is reported, not judged: its RSS is still mostly the heap V8 has not collected yet.
const MIN_JUDGED_MINUTES = 30

/**
 * What the load generator's master holds over the run, so that a long run's report says whether the tool stayed
 * flat. `memory` and `now` are injected (tests drive simulated hours); `timers` the interval.
 */
class SelfMonitor {
  constructor ({ now = Date.now, memory = () => process.memoryUsage(), timers = { setInterval, clearInterval },
    sampleMs = SAMPLE_MS } = {}) {
    Object.assign(this, { now, memory, timers, sampleMs })
    this.startedAt = null
    this.minutes = []
    this.timer = null
  }

  start () {
    this.startedAt = this.now()
    this.sample()
    this.timer = this.timers.setInterval(() => this.sample(), this.sampleMs)
    if (this.timer && this.timer.unref) this.timer.unref()
    return this
  }

  stop () {
    if (this.timer) this.timers.clearInterval(this.timer)
    this.timer = null
  }

  sample () {
    const m = this.memory()
    const minute = Math.floor((this.now() - this.startedAt) / MINUTE_MS)
    const heap = m.heapUsed + (m.arrayBuffers || 0)
    const last = this.minutes[this.minutes.length - 1]
    if (last && last.minute === minute) {
      last.rss = Math.min(last.rss, m.rss)
      last.heap = Math.min(last.heap, heap)
    } else {
      this.minutes.push({ minute, rss: m.rss, heap })
    }
  }

  /**
   * The master's memory over the run: the smallest RSS and heap (with array buffers) of a start window and of the
   * last tenth of its minutes, the growth per hour between them, and whether that is flat (null under half an hour:
   * too short to say). Null before two minutes were sampled.
   */
  summary () {
    this.sample()
    if (this.minutes.length < 2) return null
    const width = Math.max(1, Math.floor(this.minutes.length * WINDOW_SHARE))
    const judged = this.minutes.length >= MIN_JUDGED_MINUTES
    const first = judged ? this.minutes.slice(width, 2 * width) : this.minutes.slice(0, width)
    const last = this.minutes.slice(-width)
    const least = (list, key) => list.reduce((low, m) => (m[key] < low[key] ? m : low))[key]
    const lowest = (list) => list.reduce((low, m) => (m.rss < low.rss ? m : low))
    // Between the minutes that held the least: the growth of what the process keeps, not of its GC cycles.
    const hours = (lowest(last).minute - lowest(first).minute) / 60
    const mb = (bytes) => bytes / (1024 * 1024)
    const growth = hours > 0 ? (mb(lowest(last).rss) - mb(lowest(first).rss)) / hours : 0
    return {
      minutes: this.minutes.length,
      rss_mb_start: round(mb(least(first, 'rss')), 1),
      rss_mb_end: round(mb(least(last, 'rss')), 1),
      heap_mb_start: round(mb(least(first, 'heap')), 1),
      heap_mb_end: round(mb(least(last, 'heap')), 1),
      rss_growth_mb_per_hour: round(growth, 1),
      // null: too short to say (under MIN_JUDGED_MINUTES).
      flat: judged ? growth < FLAT_MB_PER_HOUR : null
    }
  }
}

module.exports = { SelfMonitor, FLAT_MB_PER_HOUR, MIN_JUDGED_MINUTES }
