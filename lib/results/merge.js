'use strict'

const { newHistogram, addEncoded, encodeHistogram, latencySummary, ErrorGroups } = require('./stats')
const { round, perSecond } = require('../base/format')

/**
 * One result from the results of several load generators of one run (each machine's --json, or
 * its row in --results_table): units added, the window from the earliest start to the latest
 * end, and percentiles from the merged HdrHistograms — exact, never averaged.
 */
function mergeResults (results) {
  if (results.length === 0) throw new Error('no results to merge')
  const workload = results[0].workload
  if (results.some((r) => r.workload !== workload)) {
    throw new Error(
      `the results are of different workloads: ${[...new Set(results.map((r) => r.workload))].join(', ')}`
    )
  }
  const unit = workload === 'ingest' ? 'rows' : 'queries'
  const sum = (key) => results.reduce((total, r) => total + (r[key] || 0), 0)
  const started = results.filter((r) => r.started_at).map((r) => Date.parse(r.started_at))
  const ended = results.filter((r) => r.started_at).map((r) => Date.parse(r.started_at) + r.seconds * 1000)
  const seconds = started.length ? round((Math.max(...ended) - Math.min(...started)) / 1000, 3) : 0
  const ok = sum(`${unit}_ok`)
  const errors = new ErrorGroups()
  for (const r of results) errors.merge(r.errors || [])
  const latency = mergedLatency(
    results.map((r) => r.histograms && r.histograms.latency),
    results.map((r) => r.latency_ms)
  )
  const merged = {
    workload,
    options: { ...results[0].options, load_generators: results.length },
    started_at: started.length ? new Date(Math.min(...started)).toISOString() : null,
    seconds,
    sending_seconds: null,
    drain_seconds: null,
    [`${unit}_sent`]: sum(`${unit}_sent`),
    [`${unit}_ok`]: ok,
    [`${unit}_failed`]: sum(`${unit}_failed`),
    [`${unit}_in_doubt`]: sum(`${unit}_in_doubt`),
    [`${unit}_per_sec`]: perSecond(ok, seconds),
    requests: sum('requests'),
    requests_failed: sum('requests_failed'),
    latency_ms: latency.summary,
    server_ms: latencySummary(newHistogram()),
    errors: errors.toJSON(),
    workers: results.map((r, i) => ({
      worker: r.environment ? r.environment.load_generator : `generator ${i + 1}`,
      [`${unit}_ok`]: r[`${unit}_ok`],
      [`${unit}_failed`]: r[`${unit}_failed`],
      requests: r.requests,
      seconds: r.seconds,
      [`${unit}_per_sec`]: r[`${unit}_per_sec`],
      stop_reason: r.partial ? 'partial' : 'completed',
      stop_detail: null
    })),
    rate: mergedRate(results, ok, seconds),
    cluster: null,
    events: [],
    timeline: { interval_s: 1, series: [], nodes: [], events: [] },
    client: mergedClient(results, unit),
    histograms: { latency: latency.encoded, labels: Object.create(null) },
    load_generators: results.map((r) => ({
      name: r.environment ? r.environment.load_generator : null,
      started_at: r.started_at,
      seconds: r.seconds,
      [`${unit}_ok`]: r[`${unit}_ok`],
      generator: r.options.generator ?? null
    })),
    partial: results.some((r) => r.partial),
    partial_reasons: results.flatMap((r, i) =>
      (r.partial_reasons || []).map((reason) => `load generator ${i + 1}: ${reason}`)
    )
  }
  if (workload === 'analytical') merged.queries = mergedQueries(results, seconds, merged.histograms)
  return merged
}

/**
 * The merged histogram, encoded, and its percentiles, decoded once; the maximum is the largest
 * exact maximum of any result.
 */
function mergedLatency (encodedList, summaries) {
  const histogram = newHistogram()
  for (const encoded of encodedList) addEncoded(histogram, encoded)
  const maxima = summaries.filter((s) => s && s.max !== null && s.max !== undefined).map((s) => s.max * 1000)
  return {
    summary: latencySummary(histogram, maxima.length > 0 ? Math.max(...maxima) : null),
    encoded: encodeHistogram(histogram)
  }
}

function mergedQueries (results, seconds, histograms) {
  return results[0].queries.map((q) => {
    const same = results.map((r) => (r.queries || []).find((x) => x.name === q.name)).filter(Boolean)
    const latency = mergedLatency(
      results.map((r) => r.histograms && r.histograms.labels && r.histograms.labels[q.name]),
      same.map((x) => x.latency_ms)
    )
    histograms.labels[q.name] = latency.encoded
    const count = same.reduce((total, x) => total + x.count, 0)
    const failed = same.reduce((total, x) => total + x.failed, 0)
    return {
      name: q.name,
      ratio: q.ratio,
      count,
      failed,
      queries_per_sec: perSecond(count - failed, seconds),
      latency_ms: latency.summary,
      server_ms: { mean: null, p99: null }
    }
  })
}

function mergedRate (results, ok, seconds) {
  if (!results.every((r) => r.rate)) return null
  const target = results.reduce((total, r) => total + r.rate.target_per_sec, 0)
  const achieved = perSecond(ok, seconds)
  return {
    target_per_sec: target,
    achieved_per_sec: achieved,
    achieved_pct: round((achieved / target) * 100, 1),
    late_requests: results.reduce((t, r) => t + r.rate.late_requests, 0),
    latency_from: 'scheduled start'
  }
}

function mergedClient (results, unit) {
  const per = `cpu_us_per_${unit === 'rows' ? 'row' : 'query'}`
  const cpuSeconds = results.reduce((total, r) => total + ((r.client && r.client.cpu_seconds) || 0), 0)
  const sent = results.reduce((total, r) => total + (r[`${unit}_sent`] || 0), 0)
  return {
    cpu_seconds: round(cpuSeconds, 3),
    [per]: sent > 0 ? round((cpuSeconds * 1e6) / sent, 3) : null,
    max_rss_mb_per_process: Math.max(...results.map((r) => (r.client && r.client.max_rss_mb_per_process) || 0))
  }
}

module.exports = { mergeResults }
