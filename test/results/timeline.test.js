'use strict'

// The timeline from deltas alone: no processes, no clock.

const test = require('node:test')
const assert = require('node:assert/strict')
const { Timeline, timelineResult } = require('../../lib/results/timeline')
const { Recorder } = require('../../lib/results/stats')

const ORIGIN = 1_000_000

/** A delta covering (at - periodMs, at] with `answers` of [label, ok, failed, inDoubt, latency ms]. */
function delta (at, answers, periodMs = 1000) {
  let time = at - periodMs
  const recorder = new Recorder({ now: () => time })
  for (const [label, ok, failed, inDoubt, ms] of answers) {
    recorder.sent(ok + failed + inDoubt, time)
    recorder.answered({ label, units: ok + failed + inDoubt, ok, failed, inDoubt, latencyMicros: ms * 1000, at: time })
  }
  time = at
  return recorder.takeDelta()
}

test('each report lands in the interval that holds the middle of its period; counts add up exactly', () => {
  const timeline = new Timeline({ originMs: ORIGIN })
  // Two workers report at the end of each second; the last report covers a part of second 2.
  for (const worker of [0, 1]) {
    timeline.add('ingest', delta(ORIGIN + 1003, [['t', 100, 0, 0, 5]]))
    timeline.add('ingest', delta(ORIGIN + 2001, [['t', 150, 10, 0, 7 + worker]]))
    timeline.add('ingest', delta(ORIGIN + 2400, [['t', 40, 0, 20, 9]], 399))
  }
  const series = timeline.toJSON()
  assert.deepEqual(series.map((e) => e.t_s), [0, 1, 2])
  assert.deepEqual(
    series.map((e) => [e.ingest.ok, e.ingest.failed, e.ingest.in_doubt, e.ingest.per_sec]),
    [
      [200, 0, 0, 200],
      [300, 20, 0, 300],
      [80, 0, 40, 80]
    ]
  )
  assert.equal(series[1].ingest.max_ms, 8)
  assert.ok(Math.abs(series[1].ingest.p50_ms - 7) < 0.01, 'within the 3 significant digits of the histogram')
  assert.deepEqual(Object.keys(series[0].ingest.labels), ['t'])
})

test('intervals between reports are present and empty; groups and queries are kept apart', () => {
  const timeline = new Timeline({ originMs: ORIGIN })
  timeline.add('analytical', delta(ORIGIN + 1000, [['point', 10, 0, 0, 2], ['range', 5, 1, 0, 40]]))
  timeline.add('ingest', delta(ORIGIN + 1000, [['doc.cpu', 1000, 0, 0, 3]]))
  timeline.add('analytical', delta(ORIGIN + 4000, [['point', 3, 0, 0, 2]]))
  const series = timeline.toJSON()
  assert.deepEqual(series.map((e) => Object.keys(e).sort()), [['analytical', 'ingest', 't_s'], ['t_s'], ['t_s'],
    ['analytical', 't_s']])
  assert.deepEqual(series[0].analytical.labels.range, {
    ok: 5,
    failed: 1,
    in_doubt: 0,
    per_sec: 5,
    p50_ms: 40,
    p90_ms: 40,
    p99_ms: 40,
    max_ms: 40
  })
  assert.equal(series[0].ingest.ok, 1000)
})

test('an interval closes two intervals later: a report after that adds its counts, not its latencies', () => {
  const timeline = new Timeline({ originMs: ORIGIN })
  timeline.add('ingest', delta(ORIGIN + 1000, [['t', 10, 0, 0, 1]]))
  timeline.add('ingest', delta(ORIGIN + 4000, [['t', 10, 0, 0, 1]]))
  assert.equal(timeline.open.has(0), false, 'interval 0 is closed once interval 3 reports')
  timeline.add('ingest', delta(ORIGIN + 1000, [['t', 5, 0, 0, 900]]))
  const [first] = timeline.toJSON()
  assert.equal(first.ingest.ok, 15)
  assert.equal(first.ingest.max_ms, 1, 'the late latency is not in the closed interval')
})

test('the timeline result puts nodes and events on the load\'s clock, first rejections among the events', () => {
  const cluster = {
    samples: [
      { t_s: 0, nodes: [{ name: 'n1', process_cpu_pct: 10, heap_used_pct: 20, load_1m: 1, write: { queue: 0,
        rejected_delta: 0 }, search: { queue: 0, rejected_delta: 0 } }] },
      { t_s: 2, nodes: [{ name: 'n1', process_cpu_pct: 90, heap_used_pct: 60, load_1m: 3, write: { queue: 5,
        rejected_delta: 1855 }, search: { queue: 0, rejected_delta: 0 } }] }
    ]
  }
  const result = timelineResult({ timeline: null, cluster, monitorStartedAt: ORIGIN - 100, loadStartAt: ORIGIN,
    events: [{ at_s: 0.5, kind: 'host_down', host: 'h', detail: 'x' }] })
  assert.deepEqual(
    result.nodes.map((n) => [n.t_s, n.process_cpu_pct, n.write_queue, n.write_rejected]),
    [
      [-0.1, 10, 0, 0],
      [1.9, 90, 5, 1855]
    ]
  )
  assert.deepEqual(result.events.map((e) => [e.at_s, e.kind]), [[0.5, 'host_down'], [1.9, 'first_write_rejection']])
  assert.deepEqual(result.series, [])
})

test('a last interval much shorter than the interval keeps its counts but draws no rate of its own', () => {
  const timeline = new Timeline({ originMs: ORIGIN })
  timeline.add('ingest', delta(ORIGIN + 1000, [['t', 100, 0, 0, 5]]))
  timeline.add('ingest', delta(ORIGIN + 2000, [['t', 100, 0, 0, 5]]))
  timeline.add('ingest', delta(ORIGIN + 2005, [['t', 3, 0, 0, 5]], 5))
  const short = timeline.toJSON({ endMs: ORIGIN + 2005 })
  assert.deepEqual(
    short.map((e) => [e.ingest.ok, e.ingest.per_sec, e.partial_s]),
    [
      [100, 100, undefined],
      [100, 100, undefined],
      [3, null, 0.005]
    ]
  )
  assert.deepEqual(short.map((e) => e.ingest.labels.t.per_sec), [100, 100, null],
    'a label of the tail has no rate either')
  const long = new Timeline({ originMs: ORIGIN })
  long.add('ingest', delta(ORIGIN + 1000, [['t', 100, 0, 0, 5]]))
  long.add('ingest', delta(ORIGIN + 1600, [['t', 60, 0, 0, 5]], 600))
  const longSeries = long.toJSON({ endMs: ORIGIN + 1600 })
  assert.deepEqual(longSeries.map((e) => e.ingest.per_sec), [100, 100], 'a tail of 600 ms is a rate')
  assert.deepEqual(longSeries.map((e) => e.ingest.labels.t.per_sec), [100, 100], 'over its own length, label by label')
})

test('the warm-up\'s answers land in the timeline (drawn), never in the totals; warmup_s says where it ends', () => {
  let time = ORIGIN
  const recorder = new Recorder({ now: () => time, warmupUntil: ORIGIN + 1000 })
  recorder.sent(30, ORIGIN)
  recorder.answered({ label: 'q', units: 10, ok: 10, failed: 0, latencyMicros: 5000, at: ORIGIN + 500 })
  time = ORIGIN + 1000
  const warm = recorder.takeDelta()
  recorder.answered({ label: 'q', units: 20, ok: 20, failed: 0, latencyMicros: 7000, at: ORIGIN + 1500 })
  time = ORIGIN + 2000
  const measured = recorder.takeDelta()
  const timeline = new Timeline({ originMs: ORIGIN })
  timeline.add('analytical', warm)
  timeline.add('analytical', measured)
  const result = timelineResult({ timeline, events: [], warmupMs: 1000, endMs: ORIGIN + 2000 })
  assert.equal(result.warmup_s, 1)
  assert.deepEqual(result.series.map((e) => [e.t_s, e.analytical.ok, e.analytical.p99_ms]), [[0, 10, 5], [1, 20, 7]])
  assert.deepEqual(Object.keys(warm.series), [], 'the warm-up is in no total')
  assert.equal(warm.warmup.ok, 10)
})

test('after the first hour an interval is a minute: counts exact, percentiles from all its reports\' histograms',
  () => {
  const timeline = new Timeline({ originMs: ORIGIN })
  // The last second of the first hour, then a minute of reports at 1 ms and one at 900 ms, then the next minute.
  timeline.add('ingest', delta(ORIGIN + 3_600_000, [['t', 10, 0, 0, 5]]))
  for (let s = 1; s <= 60; s++) timeline.add('ingest', delta(ORIGIN + 3_600_000 + s * 1000, [['t', 100, 1, 0, 1]]))
  timeline.add('ingest', delta(ORIGIN + 3_600_000 + 30_000, [['t', 1, 0, 0, 900]]))
  timeline.add('ingest', delta(ORIGIN + 3_600_000 + 61_000, [['t', 60, 0, 0, 2]]))
  const series = timeline.toJSON({ endMs: ORIGIN + 3_600_000 + 90_000 })
  assert.equal(series.length, 3602)
  assert.equal(series[3599].interval_s, undefined, 'a second says nothing of its length')
  const minute = series[3600]
  assert.deepEqual([minute.t_s, minute.interval_s], [3600, 60])
  assert.deepEqual([minute.ingest.ok, minute.ingest.failed, minute.ingest.per_sec], [6001, 60, 100.02])
  assert.ok(Math.abs(minute.ingest.max_ms - 900) < 1, 'the slowest answer of the minute, not of a second')
  assert.ok(Math.abs(minute.ingest.p50_ms - 1) < 0.01)
  // The run ended 30 s into the next minute: its rate is over those 30 s, and the entry says so.
  assert.deepEqual([series[3601].partial_s, series[3601].ingest.per_sec], [30, 2])
  const result = timelineResult({ timeline, endMs: ORIGIN + 3_600_000 + 90_000, events: [] })
  assert.deepEqual(result.resolution, [{ from_s: 0, interval_s: 1 }, { from_s: 3600, interval_s: 60 }])
})
