'use strict'

const { monitorEventLoopDelay } = require('node:perf_hooks')
const { round } = require('../base/format')

// One sample every few seconds; of each minute only its smallest RSS and heap are kept (a garbage collection has
// then run: the peaks between are garbage, not what the process holds). A day is 1,440 minutes: a few KB.
const SAMPLE_MS = 5000
const MINUTE_MS = 60_000
// A master that holds less than this more per hour over the run stayed flat; more, and a day-long run would not.
const FLAT_MB_PER_HOUR = 10
// The windows compared are a tenth of the minutes each, at least one minute. A judged run is judged over its second
// half: V8 sizes its heap through the first minutes, longer than a tenth of a half-hour run (a 36-minute mix on a real
// node: RSS +7.3 MB in its first 15 minutes, +2.1 in the 18 after them, the heap after each full GC within 1.6 MB),
// and a leak that would end a day-long run grows as fast in the second half as in the first.
const WINDOW_SHARE = 0.1
// A shorter run is reported, not judged: its RSS is still mostly the heap V8 has not collected yet.
const MIN_JUDGED_MINUTES = 30

/**
 * What the load generator's master holds over the run, so that a long run's report says whether the tool stayed
 * flat. `memory` and `now` are injected (tests drive simulated hours); `timers` the interval.
 */
class SelfMonitor {
  constructor ({ now = Date.now, memory = () => process.memoryUsage(), timers = { setInterval, clearInterval },
    sampleMs = SAMPLE_MS, cpuUsage = () => process.cpuUsage(), loopDelay = null,
    collect = typeof globalThis.gc === 'function' ? globalThis.gc : null } = {}) {
    // With --expose-gc (NODE_OPTIONS) each sample follows a full collection: what the master holds, not its garbage.
    Object.assign(this, { now, memory, timers, sampleMs, cpuUsage, loopDelay, collect })
    this.startedAt = null
    this.minutes = []
    this.timer = null
    this.lastCpu = null
  }

  start () {
    this.startedAt = this.now()
    if (!this.loopDelay) {
      // The event loop's delay as perf_hooks measures it (every 20 ms): a master that falls behind shows it here.
      this.loopDelay = monitorEventLoopDelay({ resolution: 100 })
      this.loopDelay.enable()
    }
    this.lastCpu = { at: this.startedAt, usage: this.cpuUsage() }
    this.sample()
    this.timer = this.timers.setInterval(() => this.sample(), this.sampleMs)
    if (this.timer && this.timer.unref) this.timer.unref()
    return this
  }

  stop () {
    if (this.timer) this.timers.clearInterval(this.timer)
    this.timer = null
    if (this.loopDelay && this.loopDelay.disable) this.loopDelay.disable()
  }

  sample () {
    if (this.collect) this.collect()
    const m = this.memory()
    const at = this.now()
    const minute = Math.floor((at - this.startedAt) / MINUTE_MS)
    const heap = m.heapUsed + (m.arrayBuffers || 0)
    // Memory outside V8's heap: buffers and typed arrays (a histogram's counts live there).
    const external = m.external ?? 0
    const usage = this.cpuUsage()
    const cpuMicros = this.lastCpu ? usage.user + usage.system - this.lastCpu.usage.user - this.lastCpu.usage.system : 0
    const wallMs = this.lastCpu ? at - this.lastCpu.at : 0
    this.lastCpu = { at, usage }
    const delayMs = this.loopDelay && this.loopDelay.count !== 0 ? this.loopDelay.percentile(99) / 1e6 : null
    if (this.loopDelay) this.loopDelay.reset()
    const last = this.minutes[this.minutes.length - 1]
    if (last && last.minute === minute) {
      last.rss = Math.min(last.rss, m.rss)
      last.heap = Math.min(last.heap, heap)
      last.external = Math.min(last.external, external)
      last.cpuMicros += cpuMicros
      last.wallMs += wallMs
      if (delayMs !== null) last.delayMs = Math.max(last.delayMs ?? 0, delayMs)
    } else {
      this.minutes.push({ minute, rss: m.rss, heap, external, cpuMicros, wallMs, delayMs })
    }
  }

  /**
   * The master per minute, on the load's clock (`originMs`, its start): the least RSS, heap and memory outside the
   * heap of the minute, its CPU (% of a core) and the highest event-loop delay p99 of its samples.
   */
  timelineRows (originMs) {
    const mb = (bytes) => round(bytes / (1024 * 1024), 1)
    return this.minutes.map((m) => ({
      t_s: round((this.startedAt + m.minute * MINUTE_MS - originMs) / 1000, 3),
      rss_mb: mb(m.rss),
      heap_mb: mb(m.heap),
      external_mb: mb(m.external),
      cpu_pct: m.wallMs > 0 ? round((m.cpuMicros / 1000 / m.wallMs) * 100, 1) : null,
      loop_delay_p99_ms: m.delayMs === null ? null : round(m.delayMs, 1)
    }))
  }

  /** The master's CPU over the run, in % of one core. */
  cpuPct () {
    const wallMs = this.minutes.reduce((sum, m) => sum + m.wallMs, 0)
    return wallMs > 0 ? round((this.minutes.reduce((sum, m) => sum + m.cpuMicros, 0) / 1000 / wallMs) * 100, 1) : null
  }

  /**
   * The master's memory over the run: the smallest RSS and heap (with array buffers) of a window and of the last tenth
   * of its minutes, the growth per hour between them, and whether that is flat (null under half an hour: too short to
   * say). The window is the first tenth for a run too short to judge, the tenth before the middle for one judged
   * (`judged_from_minute`). Null before two minutes were sampled.
   */
  summary () {
    this.sample()
    if (this.minutes.length < 2) return null
    const width = Math.max(1, Math.floor(this.minutes.length * WINDOW_SHARE))
    const judged = this.minutes.length >= MIN_JUDGED_MINUTES
    const half = Math.floor(this.minutes.length / 2)
    const first = judged ? this.minutes.slice(half - width, half) : this.minutes.slice(0, width)
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
      judged_from_minute: judged ? lowest(first).minute : null,
      cpu_pct: this.cpuPct(),
      loop_delay_p99_ms_max: round(Math.max(0, ...this.minutes.map((m) => m.delayMs ?? 0)), 1),
      // null: too short to say (under MIN_JUDGED_MINUTES).
      flat: judged ? growth < FLAT_MB_PER_HOUR : null
    }
  }
}

module.exports = { SelfMonitor, FLAT_MB_PER_HOUR, MIN_JUDGED_MINUTES }
