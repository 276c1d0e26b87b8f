'use strict'

// mergeTimelines on timelines made by hand: intervals moved onto the fleet's clock, counts added, percentiles from the
// merged interval histograms (exact: the same as one histogram of every answer), never averaged.

const test = require('node:test')
const assert = require('node:assert/strict')
const { mergeTimelines } = require('../../lib/results/merge-timelines')
const { newHistogram, recordMicros, encodeHistogram, latencySummary } = require('../../lib/results/stats')

const ORIGIN = Date.parse('2026-11-25T10:00:00.000Z')

const histogramOf = (ms) => {
  const h = newHistogram()
  for (const v of ms) recordMicros(h, v * 1000)
  return h
}

/** One interval of a group: `ms` the latencies of its answers, all ok. */
const interval = (ms, extra = {}) => ({
  ok: ms.length,
  failed: 0,
  in_doubt: 0,
  per_sec: ms.length,
  max_ms: Math.max(...ms),
  latency_hist: encodeHistogram(histogramOf(ms)),
  ...extra
})

/** A generator's result with its timeline: `series` [t_s, { group: interval }], started `startMs` after ORIGIN. */
const generator = (startMs, series, timeline = {}) => ({
  started_at: new Date(ORIGIN + startMs).toISOString(),
  timeline: {
    interval_s: 1,
    warmup_s: 0,
    series: series.map(([t, groups]) => ({ t_s: t, ...groups })),
    nodes: [],
    events: [],
    ...timeline
  }
})

test('the percentiles of an interval are those of every answer in it, from all generators, not an average', () => {
  const slow = [100, 110, 120, 130, 140, 150, 160, 170, 180, 900]
  const fast = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
  const merged = mergeTimelines(
    [generator(0, [[0, { ingest: interval(slow) }]]), generator(0, [[0, { ingest: interval(fast) }]])],
    ORIGIN
  )
  const whole = latencySummary(histogramOf([...slow, ...fast]), 900_000)
  const [first] = merged.series
  assert.deepEqual([first.ingest.p50_ms, first.ingest.p90_ms, first.ingest.p99_ms], [whole.p50, whole.p90, whole.p99])
  assert.equal(first.ingest.ok, 20)
  assert.equal(first.ingest.per_sec, 20)
  assert.equal(first.ingest.max_ms, 900)
  const averageOfP50s = (latencySummary(histogramOf(slow)).p50 + latencySummary(histogramOf(fast)).p50) / 2
  assert.notEqual(first.ingest.p50_ms, averageOfP50s)
})

test('a generator that started later lands on the fleet\'s seconds; its clock offset moves it too', () => {
  const a = generator(0, [[0, { ingest: interval([5]) }], [1, { ingest: interval([5]) }]])
  const b = generator(2000, [[0, { ingest: interval([7, 7]) }]])
  const merged = mergeTimelines([a, b], ORIGIN)
  assert.deepEqual(merged.series.map((e) => [e.t_s, e.ingest ? e.ingest.ok : 0]), [[0, 1], [1, 1], [2, 2]])
  // The same generator's clock 1 s behind the server's: its intervals are 1 s later on the fleet's clock.
  const shifted = mergeTimelines([a, b], ORIGIN, [0, 1000])
  assert.deepEqual(shifted.series.map((e) => [e.t_s, e.ingest ? e.ingest.ok : 0]), [[0, 1], [1, 1], [2, 0], [3, 2]])
})

test('intervals that do not line up round to the nearest interval of the fleet; a gap is an empty interval', () => {
  const a = generator(0, [[0, { ingest: interval([5]) }], [3, { ingest: interval([5]) }]])
  const b = generator(400, [[0, { ingest: interval([6]) }]])
  const c = generator(600, [[0, { ingest: interval([6]) }]])
  const merged = mergeTimelines([a, b, c], ORIGIN)
  assert.deepEqual(merged.series.map((e) => [e.t_s, e.ingest ? e.ingest.ok : 0]), [[0, 2], [1, 1], [2, 0], [3, 1]])
  assert.deepEqual(Object.keys(merged.series[2]), ['t_s'], 'nothing answered in second 2')
})

test('a rate any generator left out (its short last interval) stays out; labels merge like groups', () => {
  const a = generator(0, [[0, { query: interval([5, 6], { labels: { q1: interval([5]), q2: interval([6]) } }) }]])
  const b = generator(0, [[0, { query: interval([8], { per_sec: null, labels: { q1: interval([8]) } }) }]])
  const [entry] = mergeTimelines([a, b], ORIGIN).series
  assert.equal(entry.query.per_sec, null)
  assert.equal(entry.query.ok, 3)
  assert.deepEqual([entry.query.labels.q1.ok, entry.query.labels.q2.ok], [2, 1])
  assert.equal(entry.query.labels.q1.max_ms, 8)
})

test('an empty generator (no timeline, or no intervals) changes nothing; the warm-up is the latest of theirs', () => {
  const a = generator(0, [[0, { ingest: interval([5]) }]], { warmup_s: 2 })
  const empty = generator(0, [], { warmup_s: 3 })
  const merged = mergeTimelines([a, empty, { started_at: null, timeline: null }], ORIGIN)
  assert.equal(merged.series.length, 1)
  assert.equal(merged.series[0].ingest.ok, 1)
  assert.equal(merged.warmup_s, 3)
  assert.deepEqual(mergeTimelines([], ORIGIN).series, [], 'no generator: no interval')
})

test('events are named by their generator and put in order on the fleet\'s clock', () => {
  const a = generator(0, [], { events: [{ at_s: 5, kind: 'host_down', host: 'n1', detail: 'refused' }] })
  const b = generator(1000, [], { events: [{ at_s: 1, kind: 'interrupted', host: null, detail: 'SIGINT' }] })
  const merged = mergeTimelines([a, b], ORIGIN)
  assert.deepEqual(merged.events.map((e) => [e.at_s, e.detail]), [[2, 'generator 2: SIGINT'], [5,
    'generator 1: refused']])
})

test('after the first hour the fleet\'s intervals are minutes: a generator\'s minutes and last seconds merge into them',
  () => {
  const resolution = [{ from_s: 0, interval_s: 1 }, { from_s: 3600, interval_s: 60 }]
  const a = generator(0,
    [[3599, { ingest: interval([5]) }], [3600, { ingest: interval([1, 2, 3], { per_sec: 0.05 }) }]], { resolution })
  a.timeline.series[1].interval_s = 60
  // Started 2 s later: its last second of the first hour falls in the fleet's first minute.
  const b = generator(2000, [[3599, { ingest: interval([7]) }], [3600, { ingest: interval([9], { per_sec: 0.02 }) }]],
    { resolution })
  b.timeline.series[1].interval_s = 60
  const merged = mergeTimelines([a, b], ORIGIN)
  assert.deepEqual(merged.resolution, resolution)
  const minute = merged.series.find((e) => e.t_s === 3600)
  assert.equal(minute.interval_s, 60)
  assert.equal(minute.ingest.ok, 3 + 1 + 1)
  assert.equal(minute.ingest.per_sec, 0.08, 'a rate from the minute\'s counts when a generator brought two intervals')
  assert.equal(minute.ingest.max_ms, 9)
  assert.equal(merged.series.find((e) => e.t_s === 3599).ingest.ok, 1)
})
