'use strict'

const { latencySummary, newHistogram, addEncoded } = require('../results/stats')
const { fmt } = require('../base/format')

/**
 * Progress on stderr: elapsed time (of the total under --duration, or the share of units sent under a count limit),
 * units ok, units/s against the target under --rate, failed units and p99 latency over the reports since the last
 * line. On a terminal one line refreshed once a second, units/s each worker's latest report divided by the period it
 * covers, summed. In a log (stderr not a terminal: a file, a pod's log) a plain line every `logEveryMs` (a minute
 * unless --progress asks for every second), units/s since the last line, and the master's memory: what a day-long
 * run's log needs to show it is alive, and flat.
 */
class ProgressLine {
  constructor ({
    stream, unit, enabled, durationMs = null, totalUnits = null, targetRate = null, warmupMs = 0, now = Date.now,
    logEveryMs = null, memory = () => process.memoryUsage.rss(), warmupSteady = false
  }) {
    // A steady warm-up's warmupMs is its cap until it ends (warmed), then how long it took.
    this.warmupSteady = warmupSteady
    this.stream = stream
    this.logEveryMs = logEveryMs
    this.memory = memory
    this.lastLine = null
    this.warmupMs = warmupMs || 0
    this.unit = unit
    this.enabled = enabled
    this.durationMs = durationMs
    this.totalUnits = totalUnits
    this.targetRate = targetRate
    this.now = now
    this.interval = newHistogram()
    this.workerRates = new Map()
    this.startedAt = null
    this.timer = null
    this.extra = () => ''
  }

  /** A line refreshed in place (a terminal): what is written above it clears it first. */
  get refreshing () {
    return this.enabled && this.logEveryMs === null
  }

  start (startedAt, totals) {
    if (!this.enabled) return
    this.startedAt = startedAt
    this.timer = setInterval(() => this.render(totals), this.logEveryMs ?? 1000)
    this.timer.unref()
  }

  /** Fed with every delta the master receives, for the last-second p99. */
  addDelta (delta, worker = 0) {
    if (!this.enabled) return
    let ok = 0
    // The warm-up's answers are load the cluster serves: the live line shows them, the report leaves them out.
    for (const series of [...Object.values(delta.series), ...Object.values(delta.warmupSeries || {})]) {
      addEncoded(this.interval, series.latency)
      ok += series.ok
    }
    if (delta.periodMs > 0) this.workerRates.set(worker, ok / (delta.periodMs / 1000))
  }

  render (totals) {
    const ok = totals.all.ok
    const rate = this.logEveryMs === null ? this.liveRate() : this.rateSinceLastLine(totals)
    const p99 = latencySummary(this.interval).p99
    this.interval.reset()
    // A number (--rate), or what the profile asks now (--stages, a rate changed on the live page).
    const targetNow = typeof this.targetRate === 'function' ? this.targetRate() : this.targetRate
    const target = targetNow == null ? '' : ` (target ${fmt(Math.round(targetNow))})`
    const warming = this.warmingUp()
    const okText = warming ? `${fmt(totals.warmup.ok)} (warm-up, in no figure)` : fmt(ok)
    const line = `${this.elapsed(totals)}  ${this.unit} ok ${okText} ` +
      ` ${this.unit}/s ${fmt(Math.round(rate))}${target}  failed ${fmt(totals.all.failed)}  ` +
      `p99 ${p99 === null ? '-' : `${fmt(p99)} ms`}${this.extra()}`
    if (this.logEveryMs === null) return this.stream.write(`\r\x1b[K${line}`)
    this.stream.write(`${line}  client rss ${fmt(Math.round(this.memory() / 1048576))} MB\n`)
  }

  liveRate () {
    let rate = 0
    for (const r of this.workerRates.values()) rate += r
    return rate
  }

  /** Units answered ok (warm-up included, as the line shows them) a second since the last line of a log. */
  rateSinceLastLine (totals) {
    const at = this.now()
    const ok = totals.all.ok + totals.warmup.ok
    const last = this.lastLine ?? { at: this.startedAt, ok: 0 }
    this.lastLine = { at, ok }
    return at > last.at ? (ok - last.ok) / ((at - last.at) / 1000) : 0
  }

  warmingUp () {
    return this.warmupMs > 0 && this.now() - this.startedAt < this.warmupMs
  }

  /** The warm-up's clock while it lasts, then the measured part's against --duration (which counts without it). */
  elapsed (totals) {
    const sinceStart = Math.max(0, this.now() - this.startedAt)
    if (this.warmingUp()) {
      const until = this.warmupSteady ? ` (until steady, at most ${Math.round(this.warmupMs / 1000)}s)`
        : `/${Math.round(this.warmupMs / 1000)}s`
      return `warm-up ${(sinceStart / 1000).toFixed(0)}s${until}`
    }
    const seconds = Math.max(0, (sinceStart - this.warmupMs) / 1000)
    const text = `${seconds.toFixed(0).padStart(4)}s`
    if (this.durationMs) return `${text}/${Math.round(this.durationMs / 1000)}s`
    if (this.totalUnits) {
      return `${text} ${String(Math.min(100, Math.floor((totals.unitsSent / this.totalUnits) * 100))).padStart(3)}%`
    }
    return text
  }

  /** A steady warm-up ended `warmupMs` after the start: the measured part's clock starts there. */
  warmed (warmupMs) {
    this.warmupMs = warmupMs
    this.warmupSteady = false
  }

  stop () {
    if (!this.timer) return
    clearInterval(this.timer)
    this.timer = null
    if (this.logEveryMs === null) this.stream.write('\r\x1b[K')
  }
}

module.exports = { ProgressLine }
