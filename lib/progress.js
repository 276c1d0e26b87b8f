'use strict'

const { latencySummary, newHistogram, addEncoded } = require('./stats')

/**
 * One refreshing line on stderr, once a second: elapsed time, units ok, units/s over the last
 * second, failed units and p99 latency over the last second.
 */
class ProgressLine {
  constructor ({ stream, unit, enabled }) {
    this.stream = stream
    this.unit = unit
    this.enabled = enabled
    this.interval = newHistogram()
    this.lastOk = 0
    this.lastAt = null
    this.startedAt = null
    this.timer = null
    this.extra = () => ''
  }

  start (startedAt, totals) {
    if (!this.enabled) return
    this.startedAt = startedAt
    this.lastAt = startedAt
    this.timer = setInterval(() => this.render(totals), 1000)
    this.timer.unref()
  }

  /** Fed with every delta the master receives, for the last-second p99. */
  addDelta (delta) {
    if (!this.enabled) return
    for (const series of Object.values(delta.series)) addEncoded(this.interval, series.latency)
  }

  render (totals) {
    const at = Date.now()
    const ok = totals.all.ok
    const rate = (ok - this.lastOk) / Math.max(0.001, (at - this.lastAt) / 1000)
    const p99 = latencySummary(this.interval).p99
    this.lastOk = ok
    this.lastAt = at
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
