'use strict'

const { Series, encodeHistogram, mergedSummary } = require('./stats')
const { round } = require('../base/format')
const { Resolution } = require('./resolution')
const { SummarySlots } = require('./packed-summary')

// An interval stays open for the reports of this many later intervals (workers report every
// interval, aligned to the load's start); then its percentiles are taken and its histograms
// dropped, so a long run keeps numbers, not histograms.
const OPEN_INTERVALS = 2
// An interval's figures are its latency's: the server's own time is the run's, not the timeline's.
const LATENCY_ONLY = Object.freeze({ withServer: false })

/**
 * The run over time: for each interval (1 s for the first hour, then a minute: `resolution`) and each worker group,
 * the units ok, failed and in doubt, the rate, and latency percentiles of that interval from the merged histograms of
 * every worker's report; per query for a query mix. Fed with the same deltas the totals are. A coarse interval is
 * summarised from the histograms of all its reports, exactly as a second is.
 */
// The shortest share of an interval whose rate the timeline shows.
const SHORTEST_RATE_SHARE = 0.5

class Timeline {
  constructor ({ originMs, intervalMs = 1000, keepHistograms = false, resolution = new Resolution({ intervalMs }) }) {
    this.originMs = originMs
    this.keepHistograms = keepHistograms
    this.intervalMs = intervalMs
    this.resolution = resolution
    this.open = new Map()
    // index -> { packed, latency, hists }: the figures packed (packed-summary.js), each group's histogram encoded,
    // and with keepHistograms every group's and label's (a fleet's generator hands them on).
    this.closed = new Map()
    this.slots = new SummarySlots()
    this.spare = []
    this.newest = -1
    this.newestClosed = -1
  }

  /** The interval a report belongs to: the one holding the middle of the period it covers. */
  indexOf (delta) {
    const middle = delta.at - delta.periodMs / 2
    return this.resolution.indexOf(middle - this.originMs)
  }

  add (group, delta) {
    if (delta.at === undefined || !delta.series) return
    const index = this.indexOf(delta)
    const answered = [...Object.entries(delta.series), ...Object.entries(delta.warmupSeries || {})]
    const late = this.closed.get(index)
    if (late) {
      // A report for an interval already closed still counts, into its summary; only its latencies are too late.
      late.packed = this.slots.addLate(late.packed, group, answered, this.resolution.lengthMs(index) / 1000)
    } else {
      const interval = this.intervalAt(index)
      const groupEntry = interval.groups[group] ||
        (interval.groups[group] = { all: this.newSeries(), labels: new Map() })
      for (const [label, d] of answered) {
        groupEntry.all.addDelta(d)
        if (!groupEntry.labels.has(label)) groupEntry.labels.set(label, this.newSeries())
        groupEntry.labels.get(label).addDelta(d)
      }
    }
    if (index > this.newest) {
      this.newest = index
      for (const [i, open] of this.open) if (i < index - OPEN_INTERVALS) this.close(i, open)
    }
  }

  /** A series for an open interval: one of a closed interval's, emptied, before a new one (and its histogram). */
  newSeries () {
    return this.spare.pop() || new Series(LATENCY_ONLY)
  }

  intervalAt (index) {
    let interval = this.open.get(index)
    if (!interval) {
      interval = { index, groups: {}, histograms: true }
      this.open.set(index, interval)
    }
    return interval
  }

  close (index, interval) {
    this.open.delete(index)
    interval.histograms = false
    // Its percentiles are taken: the summary is all a closed interval keeps (its Series and their histograms go).
    const summary = this.summarize(interval)
    // Each group's histogram of the interval, encoded (a few hundred bytes): the latency of any span of whole
    // intervals (the first and last windows of a long run) is then exact.
    const latency = {}
    for (const [name, g] of Object.entries(interval.groups)) {
      latency[name] = summary[name].latency_hist ?? encodeHistogram(g.all.latency)
    }
    const hists = this.keepHistograms ? histogramsOf(summary) : null
    this.closed.set(index, { packed: this.slots.pack(summary), latency, hists })
    this.newestClosed = Math.max(this.newestClosed, index)
    for (const g of Object.values(interval.groups)) {
      this.spare.push(g.all.reset(), ...[...g.labels.values()].map((s) => s.reset()))
    }
    interval.groups = {}
  }

  /** An entry's time and, for an interval other than a second, its length. */
  entryHead (index) {
    const head = { t_s: round(this.resolution.startMs(index) / 1000, 3) }
    if (!this.resolution.isFine(index)) head.interval_s = round(this.resolution.lengthMs(index) / 1000, 3)
    return head
  }

  summarize (interval) {
    const seconds = this.resolution.lengthMs(interval.index) / 1000
    const of = (series) => {
      const l = series.latencySummary()
      const entry = {
        ok: series.ok,
        failed: series.failed,
        in_doubt: series.inDoubt,
        per_sec: round(series.ok / seconds),
        p50_ms: l.p50,
        p90_ms: l.p90,
        p99_ms: l.p99,
        max_ms: l.max
      }
      // HdrHistogram's compressed encoding of the interval, a few hundred bytes: what a merge of timelines needs.
      if (this.keepHistograms) entry.latency_hist = encodeHistogram(series.latency)
      return entry
    }
    const groups = {}
    for (const [name, g] of Object.entries(interval.groups)) {
      groups[name] = { ...of(g.all), labels: Object.fromEntries([...g.labels].map(([label, s]) => [label, of(s)])) }
    }
    return groups
  }

  /** The latency of `group` over the whole intervals within [fromS, toS), from their histograms; null if none. */
  latencyIn (group, fromS, toS) {
    const inside = [...this.closed].filter(([index, interval]) => {
      const startS = this.resolution.startMs(index) / 1000
      return interval.latency[group] && startS >= fromS - 1e-9 &&
        startS + this.resolution.lengthMs(index) / 1000 <= toS + 1e-9
    }).map(([, interval]) => interval)
    const { histogram, summary } = mergedSummary(inside.map((i) => i.latency[group]),
      inside.map((i) => this.slots.figure(i.packed, group, 'max_ms')))
    return histogram.totalCount > 0 ? summary : null
  }

  /**
   * The intervals closed since `after` (an interval index), oldest first, as the entries of toJSON, without their
   * histograms unless asked (a fleet's live view merges them): what a live view adds each second. Returns
   * { entries, newest } (the index to ask after next time).
   */
  closedAfter (after, { withHistograms = false, upTo = this.newestClosed } = {}) {
    // Walked from `after` on, not over the whole run: a live view asks each second, and a run has hours of intervals.
    const indexes = []
    for (let i = Math.max(0, after + 1); i <= Math.min(upTo, this.newestClosed); i++) {
      if (this.closed.has(i)) indexes.push(i)
    }
    const entries = indexes.map((i) => ({ ...this.entryHead(i), ...this.summaryOf(i, { withHistograms }) }))
    return { entries, newest: indexes.length ? indexes[indexes.length - 1] : after }
  }

  /** A closed interval's summary as objects, with its histograms encoded when they were kept and are asked for. */
  summaryOf (index, { withHistograms = true } = {}) {
    const closed = this.closed.get(index)
    const summary = this.slots.unpack(closed.packed)
    if (withHistograms && closed.hists) {
      for (const [name, g] of Object.entries(summary)) {
        const hists = closed.hists[name]
        if (!hists) continue
        g.latency_hist = hists.all
        for (const [label, l] of Object.entries(g.labels)) if (hists.labels[label]) l.latency_hist = hists.labels[label]
      }
    }
    return summary
  }

  /**
   * The intervals still open that every worker has most likely reported (all but the newest), their counts as they
   * stand: a live view shows them a second or two before they close, and replaces them when they do.
   */
  provisional () {
    // Counts and rates only: an interval's percentiles wait for its close (taking them from the histograms every
    // second would cost the live page more than everything else it does).
    const of = (series, seconds) => ({ ok: series.ok, failed: series.failed, in_doubt: series.inDoubt,
      per_sec: round(series.ok / seconds), p50_ms: null, p90_ms: null, p99_ms: null, max_ms: null })
    return [...this.open.keys()].filter((i) => i < this.newest).sort((a, b) => a - b).map((i) => {
      const seconds = this.resolution.lengthMs(i) / 1000
      const groups = {}
      for (const [name, g] of Object.entries(this.open.get(i).groups)) {
        groups[name] = { ...of(g.all, seconds),
          labels: Object.fromEntries([...g.labels].map(([label, l]) => [label, of(l, seconds)])) }
      }
      return { ...this.entryHead(i), ...groups }
    })
  }

  /**
   * The series, one entry per interval from the first to the last: { t_s, <group>: { ok, failed,
   * in_doubt, per_sec, p50_ms, p90_ms, p99_ms, max_ms, labels } }. Counts of reports that came
   * after their interval was closed are included; their latencies are not.
   */
  toJSON ({ endMs = null } = {}) {
    for (const [i, open] of [...this.open]) this.close(i, open)
    const indexes = [...this.closed.keys()]
    if (indexes.length === 0) return []
    const series = []
    const last = indexes.reduce((max, i) => Math.max(max, i), 0)
    for (let i = 0; i <= last; i++) {
      const interval = this.closed.get(i)
      const entry = this.entryHead(i)
      if (interval) {
        const summary = this.summaryOf(i)
        // The last interval ends with the run, usually before a whole interval has passed.
        const startMs = this.originMs + this.resolution.startMs(i)
        const lengthMs = this.resolution.lengthMs(i)
        const seconds = endMs !== null && endMs > startMs ? Math.min(lengthMs, endMs - startMs) / 1000 : lengthMs / 1000
        // A tail much shorter than an interval (3 answers in its last 5 ms) is no rate: extrapolated, it would draw
        // a spike the run never had. Its counts stay; its rate is left out, and the entry says how long it was.
        const tail = seconds * 1000 < this.intervalMs * SHORTEST_RATE_SHARE
        if (tail || (lengthMs !== this.intervalMs && seconds * 1000 < lengthMs)) entry.partial_s = round(seconds, 3)
        for (const [name, g] of Object.entries(summary)) {
          // The summary's counts include the reports that came after the close.
          summary[name] = {
            ...g,
            per_sec: tail ? null : round(g.ok / seconds),
            labels: Object.fromEntries(Object.entries(g.labels).map(([label, l]) => [label, {
              ...l,
              per_sec: tail ? null : round(l.ok / seconds)
            }]))
          }
        }
        Object.assign(entry, summary)
      }
      series.push(entry)
    }
    return series
  }
}

/** The encoded histograms of a summary's groups and labels: { group: { all, labels: { label: hist } } }. */
function histogramsOf (summary) {
  const hists = {}
  for (const [name, g] of Object.entries(summary)) {
    hists[name] = { all: g.latency_hist, labels: Object.fromEntries(Object.entries(g.labels)
      .map(([label, l]) => [label, l.latency_hist])) }
  }
  return hists
}

/**
 * The run's `timeline` in --json: the interval series, the cluster's nodes over time (from the
 * sys.nodes samples), and the events, every time in seconds from the start of the load.
 */
function timelineResult ({ timeline, cluster, monitorStartedAt, loadStartAt, endMs = null, warmupMs = 0, events }) {
  const nodes = []
  const rejections = []
  if (cluster && monitorStartedAt != null && loadStartAt != null) {
    const offset = (monitorStartedAt - loadStartAt) / 1000
    const seen = new Set()
    for (const sample of cluster.samples) {
      const t = round(sample.t_s + offset, 3)
      nodes.push(...nodeRows(sample, offset))
      for (const n of sample.nodes) {
        for (const pool of ['write', 'search']) {
          if (n[pool] && n[pool].rejected_delta > 0 && !seen.has(`${n.name}/${pool}`)) {
            seen.add(`${n.name}/${pool}`)
            rejections.push({
              at_s: t,
              kind: `first_${pool}_rejection`,
              host: n.name,
              detail: `${n[pool].rejected_delta} ${pool} operations rejected`
            })
          }
        }
      }
    }
  }
  return {
    interval_s: timeline ? timeline.intervalMs / 1000 : 1,
    // Where the intervals change length (a second, then a minute after the first hour; a stage's start breaks them).
    resolution: timeline ? timeline.resolution.toJSON() : [{ from_s: 0, interval_s: 1 }],
    // The series starts with the warm-up (drawn, shaded, and kept out of every figure of the report).
    warmup_s: round((warmupMs || 0) / 1000, 3),
    series: timeline ? timeline.toJSON({ endMs }) : [],
    nodes,
    events: [...events, ...rejections].sort((a, b) => a.at_s - b.at_s)
  }
}

/** One sample of the monitor as the timeline's node rows, at seconds from the load's start. */
function nodeRows (sample, offsetS) {
  const t = round(sample.t_s + offsetS, 3)
  return sample.nodes.map((n) => ({
    t_s: t,
    name: n.name,
    process_cpu_pct: n.process_cpu_pct,
    heap_used_pct: n.heap_used_pct,
    load_1m: n.load_1m,
    write_queue: n.write ? n.write.queue : null,
    write_rejected: n.write ? n.write.rejected_delta : null,
    search_rejected: n.search ? n.search.rejected_delta : null
  }))
}

/**
 * A timeline entry's length in seconds, as the entry says it: a cut-short last interval its own (`partial_s`), a long
 * run's coarser intervals theirs (`interval_s`); else `fallbackS` (the timeline's own interval).
 */
const entryLengthS = (entry, fallbackS = 1) => entry.partial_s ?? entry.interval_s ?? fallbackS

module.exports = { Timeline, timelineResult, nodeRows, entryLengthS, OPEN_INTERVALS }
