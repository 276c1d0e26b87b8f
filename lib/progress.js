'use strict'

const { latencySummary, newHistogram, addEncoded } = require('./stats')

/**
 * One refreshing line on stderr, once a second: elapsed time, units ok, units/s (each worker's
 * latest report divided by the period it covers, summed), failed units and p99 latency over the
 * reports of the last second.
 */
class ProgressLine {
  constructor ({ stream, unit, enabled }) {
    this.stream = stream
    this.unit = unit
    this.enabled = enabled
    this.interval = newHistogram()
    this.workerRates = new Map()
    this.startedAt = null
    this.timer = null
    this.extra = () => ''
  }

  start (startedAt, totals) {
    if (!this.enabled) return
    this.startedAt = startedAt
    this.timer = setInterval(() => this.render(totals), 1000)
    this.timer.unref()
  }

  /** Fed with every delta the master receives, for the last-second p99. */
  addDelta (delta, worker = 0) {
    if (!this.enabled) return
    let ok = 0
    for (const series of Object.values(delta.series)) {
      addEncoded(this.interval, series.latency)
      ok += series.ok
    }
    if (delta.periodMs > 0) this.workerRates.set(worker, ok / (delta.periodMs / 1000))
  }

  render (totals) {
    const at = Date.now()
    const ok = totals.all.ok
    let rate = 0
    for (const r of this.workerRates.values()) rate += r
    const p99 = latencySummary(this.interval).p99
    this.interval.reset()
    const elapsed = ((at - this.startedAt) / 1000).toFixed(0).padStart(4)
    const line = `${elapsed}s  ${this.unit} ok ${fmt(ok)}  ${this.unit}/s ${fmt(Math.round(rate))}  failed ${fmt(totals.all.failed)}  p99 ${p99 === null ? '-' : `${p99} ms`}${this.extra()}`
    this.stream.write(`\r\x1b[K${line}`)
  }

  stop () {
    if (!this.timer) return
    clearInterval(this.timer)
    this.timer = null
    this.stream.write('\r\x1b[K')
  }
}

const fmt = (x) => x.toLocaleString('en-US')

module.exports = { ProgressLine }
