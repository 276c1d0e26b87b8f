'use strict'

const { newHistogram, addEncoded, latencySummary, encodeHistogram } = require('./stats')
const { round } = require('../base/format')
const { Resolution } = require('./resolution')

// The timelines of a fleet's generators as one: each generator's intervals moved onto the fleet's seconds (from the
// earliest start, on one clock), counts and rates added, each interval's percentiles from the generators' interval
// histograms merged (exact, never averaged). A rate any generator left out (a short last interval) stays out.

function mergeTimelines (results, originMs, offsets = results.map(() => 0), { keepHistograms = false } = {}) {
  const first = (results.find((r) => r.timeline) || {}).timeline
  const intervalS = first?.interval_s || 1
  // The generators of one run share their intervals (a second, then a minute; the same stages): the first's grid.
  const resolution = Resolution.fromJSON(first?.resolution, intervalS)
  const buckets = new Map()
  let nodes = []
  const events = []
  results.forEach((r, i) => {
    if (!r.timeline || !r.started_at) return
    const shiftS = (Date.parse(r.started_at) + offsets[i] - originMs) / 1000
    for (const entry of r.timeline.series || []) {
      // An interval goes where its middle falls on the fleet's clock.
      const middleS = entry.t_s + shiftS + (entry.interval_s || intervalS) / 2
      const index = resolution.indexOf(Math.round(middleS * 1000))
      const bucket = buckets.get(index) || { groups: new Map(), from: new Set(), several: false }
      buckets.set(index, bucket)
      // Two intervals of one generator in one of the fleet's (a second next to a minute): rates from the counts.
      if (bucket.from.has(i)) bucket.several = true
      bucket.from.add(i)
      for (const [name, g] of Object.entries(entry)) {
        if (!g || typeof g !== 'object') continue
        addGroup(bucket.groups, name, g)
      }
    }
    // The cluster's nodes as the generator with the most samples saw them (one monitor is enough).
    const own = (r.timeline.nodes || []).map((n) => ({ ...n, t_s: round(n.t_s + shiftS, 3) }))
    if (own.length > nodes.length) nodes = own
    for (const e of r.timeline.events || []) {
      events.push({ ...e, at_s: round(e.at_s + shiftS, 3), detail: `generator ${i + 1}: ${e.detail ?? ''}`.trim() })
    }
  })
  const last = Math.max(-1, ...buckets.keys())
  const series = []
  for (let index = 0; index <= last; index++) {
    const entry = { t_s: round(resolution.startMs(index) / 1000, 3) }
    if (!resolution.isFine(index)) entry.interval_s = round(resolution.lengthMs(index) / 1000, 3)
    const bucket = buckets.get(index)
    // What the stages of a merged run are judged on: each interval's merged histogram.
    if (bucket) {
      const groups = groupEntries(bucket.groups, keepHistograms)
      if (bucket.several) ratesFromCounts(groups, resolution.lengthMs(index) / 1000)
      Object.assign(entry, groups)
    }
    series.push(entry)
  }
  // Generators of one run share --warmup: its end on the merged clock is the latest of theirs.
  const warmupS = Math.max(0, ...results.map((r) => (r.timeline && r.timeline.warmup_s) || 0))
  return { interval_s: intervalS, resolution: resolution.toJSON(), warmup_s: warmupS, series, nodes,
    events: events.sort((a, b) => a.at_s - b.at_s) }
}

function ratesFromCounts (groups, seconds) {
  for (const g of Object.values(groups)) {
    g.per_sec = round(g.ok / seconds)
    for (const l of Object.values(g.labels || {})) l.per_sec = round(l.ok / seconds)
  }
}

/**
 * Entries of one interval from several generators (as their timelines' series hold them) as one entry: counts and
 * rates added, percentiles from the merged histograms where every entry brought one. What a fleet's live view shows
 * for each second.
 */
function mergeIntervalEntries (entries, { keepHistograms = false } = {}) {
  const groups = new Map()
  for (const entry of entries) {
    for (const [name, g] of Object.entries(entry)) if (g && typeof g === 'object') addGroup(groups, name, g)
  }
  return groupEntries(groups, keepHistograms)
}

/** Each group's accumulated interval as a timeline entry, with its merged histogram when asked and there is one. */
function groupEntries (groups, keepHistograms) {
  const entries = {}
  for (const [name, acc] of groups) {
    entries[name] = { labels: {}, ...summary(acc) }
    if (keepHistograms && acc.hasHistogram) entries[name].latency_hist = encodeHistogram(acc.histogram)
  }
  return entries
}

function accumulator () {
  return { ok: 0, failed: 0, inDoubt: 0, perSec: 0, rateLeftOut: false, histogram: newHistogram(), hasHistogram: false,
    maxMs: null, labels: new Map() }
}

function addGroup (groups, name, g) {
  const acc = groups.get(name) || accumulator()
  groups.set(name, acc)
  addCounts(acc, g)
  for (const [label, l] of Object.entries(g.labels || {})) {
    const labelAcc = acc.labels.get(label) || accumulator()
    acc.labels.set(label, labelAcc)
    addCounts(labelAcc, l)
  }
}

function addCounts (acc, g) {
  acc.ok += g.ok || 0
  acc.failed += g.failed || 0
  acc.inDoubt += g.in_doubt || 0
  if (g.per_sec === null || g.per_sec === undefined) acc.rateLeftOut = true
  else acc.perSec += g.per_sec
  if (g.latency_hist) {
    addEncoded(acc.histogram, g.latency_hist)
    acc.hasHistogram = true
  }
  if (typeof g.max_ms === 'number') acc.maxMs = Math.max(acc.maxMs ?? 0, g.max_ms)
}

function summary (acc) {
  const l = acc.hasHistogram ? latencySummary(acc.histogram, acc.maxMs === null ? null : acc.maxMs * 1000) : null
  const entry = {
    ok: acc.ok,
    failed: acc.failed,
    in_doubt: acc.inDoubt,
    per_sec: acc.rateLeftOut ? null : round(acc.perSec),
    p50_ms: l ? l.p50 : null,
    p90_ms: l ? l.p90 : null,
    p99_ms: l ? l.p99 : null,
    max_ms: acc.maxMs
  }
  if (acc.labels.size > 0) entry.labels = Object.fromEntries([...acc.labels].map(([k, v]) => [k, summary(v)]))
  return entry
}

module.exports = { mergeTimelines, mergeIntervalEntries }
