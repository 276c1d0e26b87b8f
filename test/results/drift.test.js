'use strict'

// The drift of a run from its timeline alone: windows, slopes and change points on series made by hand.

const test = require('node:test')
const assert = require('node:assert/strict')
const { driftOf, driftLines, theilSen } = require('../../lib/results/drift')
const { parseThreshold, evaluateThresholds } = require('../../lib/results/thresholds')
const { fmt } = require('../../lib/base/format')
const { joined, assertSomeMatch } = require('../helpers/patterns')

/** A 600 s ingest: 1,000 rows/s and p99 10 ms until `changeS`, then 800 rows/s and 40 ms; a node at 50%, then 90%. */
function timelineOf ({ seconds = 600, changeS = 300, warmupS = 0 } = {}) {
  const series = []
  const nodes = []
  for (let t = 0; t < seconds; t++) {
    const late = t >= changeS
    const ingest = { ok: late ? 800 : 1000, failed: 0, in_doubt: late ? 2 : 0, p99_ms: late ? 40 : 10 }
    series.push({ t_s: t, ingest })
    if (t % 5 === 0) {
      nodes.push({ t_s: t, name: 'n1', process_cpu_pct: late ? 90 : 50, heap_used_pct: 40,
        write_rejected: late ? t : 0 })
      nodes.push({ t_s: t, name: 'n2', process_cpu_pct: 20, heap_used_pct: 30, write_rejected: 0 })
    }
  }
  return { warmup_s: warmupS, series, nodes }
}

const latencyIn = (fromS, toS) => ({ p50: toS <= 300 ? 5 : 20, p99: toS <= 300 ? 10 : 40 })

test('the first and last tenth of the load side by side: throughput, latency, the busiest node, rejections', () => {
  const drift = driftOf({ timeline: timelineOf(), group: 'ingest', unit: 'rows', loadEndS: 600, latencyIn })
  assert.deepEqual([drift.first_window_s, drift.last_window_s], [[0, 60], [540, 600]])
  assert.deepEqual([drift.first.per_sec, drift.last.per_sec, drift.throughput_change_pct], [1000, 800, -20])
  assert.deepEqual([drift.first.p99_ms, drift.last.p99_ms, drift.p99_change_pct], [10, 40, 300])
  assert.deepEqual(drift.last.busiest_node, { name: 'n1', cpu_pct: 90, heap_used_pct: 40, write_queue_max: null })
  assert.equal(drift.first.rejected, 0)
  assert.equal(drift.last.rejected, 595 - 535, 'counted since the start: the last sample against the one before')
  assert.equal(drift.last.failed_or_in_doubt, 120)
})

test('the warm-up is no part of the first window; a drain after the load is no part of the last', () => {
  const timeline = timelineOf({ seconds: 700, warmupS: 100, changeS: 400 })
  const drift = driftOf({ timeline, group: 'ingest', unit: 'rows', loadEndS: 650, latencyIn })
  // 550 s of load: windows of 55 s.
  assert.deepEqual([drift.first_window_s, drift.last_window_s], [[100, 155], [595, 650]])
  assert.equal(drift.last.seconds, 55)
})

test('a load shorter than a minute has no drift; a short one has windows of at least 10 s', () => {
  assert.equal(driftOf({ timeline: timelineOf({ seconds: 59 }), group: 'ingest', unit: 'rows', loadEndS: 59 }), null)
  const drift = driftOf({ timeline: timelineOf({ seconds: 80, changeS: 40 }), group: 'ingest', unit: 'rows',
    loadEndS: 80 })
  assert.deepEqual(drift.first_window_s, [0, 10])
  assert.equal(drift.first.p99_ms, null, 'no histograms kept: no latency rather than a guess')
})

test('the change point is where the level moved, with what the cluster did before and after', () => {
  const drift = driftOf({ timeline: timelineOf({ changeS: 420 }), group: 'ingest', unit: 'rows', loadEndS: 600,
    latencyIn })
  const throughput = drift.changes.find((c) => c.metric === 'throughput')
  assert.ok(Math.abs(throughput.at_s - 420) <= 3, `at ${throughput.at_s} s`)
  assert.deepEqual([Math.round(throughput.before), Math.round(throughput.after)], [1000, 800])
  assert.equal(throughput.cluster_before.busiest_node.cpu_pct, 50)
  assert.equal(throughput.cluster_after.busiest_node.cpu_pct, 90)
  assert.ok(drift.changes.find((c) => c.metric === 'p99_ms'))
  // A steady run names no change.
  const steady = driftOf({ timeline: timelineOf({ changeS: 10_000 }), group: 'ingest', unit: 'rows', loadEndS: 600 })
  assert.deepEqual(steady.changes, [])
  assert.equal(steady.slope_per_hour.throughput.per_hour, 0)
})

test('Theil-Sen finds a line\'s slope per hour through outliers, with an interval around it', () => {
  const bins = []
  for (let i = 0; i < 100; i++) bins.push({ middle_s: i * 36, y: 1000 - i * 5 + (i % 10 === 0 ? 5000 : 0) })
  // 5 lower every 36 s: 500 per hour, down; a spike every tenth point does not move it.
  const slope = theilSen(bins, 'y')
  assert.equal(slope.per_hour, -500)
  assert.ok(slope.low <= -500 && slope.high >= -500)
  assert.equal(theilSen(bins.slice(0, 9), 'y'), null, 'under 10 points: no slope')
})

test('the report line, and a threshold on the drift that a run can miss', () => {
  const drift = driftOf({ timeline: timelineOf(), group: 'ingest', unit: 'rows', loadEndS: 600, latencyIn })
  drift.table = { start: { size_bytes: 0, segments: 0 }, end: { size_bytes: 52_428_800, segments: 48 } }
  const lines = driftLines(drift, fmt)
  assert.equal(lines[0], 'over the run: throughput \u221220% (first 10%: 1,000 rows/s, last 10%: 800), p50 \u00d74, ' +
    'p99 \u00d74, rejections 0 \u2192 60')
  assert.equal(lines[1], '  table: 0 MB, 0 segments at the start; 50 MB, 48 segments at the end')
  assertSomeMatch(lines, joined(
    /^ {2}changed at \d+ s: throughput \(rows\/s\) 1,000 \u2192 800; /,
    /busiest node n1 CPU 50% before, n1 CPU 90%, [\d,]+ rejections after$/))
  const [checked] = evaluateThresholds([parseThreshold('drift_throughput_pct>-10')], { drift }, 'rows')
  assert.deepEqual([checked.actual, checked.passed], [-20, false])
  assert.throws(() => parseThreshold('ingest:drift_throughput_pct>-10'), /for the whole run/)
  assert.throws(() => parseThreshold('p99<-5ms'), /cannot be negative/)
})

// Issue 47: the drift line, complete.
test('p50 beside p99, the one that moved more first', () => {
  const medianMoved = (fromS, toS) => ({ p50: toS <= 300 ? 979 : 14_967, p99: toS <= 300 ? 10_000 : 33_000 })
  const drift = driftOf({ timeline: timelineOf(), group: 'ingest', unit: 'rows', loadEndS: 600,
    latencyIn: medianMoved })
  assert.match(driftLines(drift, fmt)[0], /, p50 \u00d715\.3, p99 \u00d73\.3/)
  assert.equal(drift.p50_change_pct, 1428.8)
})

/** A --stages profile: 35 s at `first` rows/s then 35 s at `second`; the timeline achieving `served(target)`. */
function stagedRun (first, second, served) {
  const target = (t) => (t < 35 ? first : second)
  const series = Array.from({ length: 70 }, (_, t) => ({ t_s: t,
    ingest: { ok: served(target(t)), failed: 0, in_doubt: 0, p99_ms: 10 } }))
  const targetIn = (fromS, toS) => {
    let units = 0
    for (let t = fromS; t < toS; t += 0.5) units += target(t) * 0.5
    return units / (toS - fromS)
  }
  return driftOf({ timeline: { warmup_s: 0, series, nodes: [] }, group: 'ingest', unit: 'rows', loadEndS: 70,
    targetIn })
}

test('under --stages the throughput drift is the achieved share of each window\'s target, as the threshold reads it',
  () => {
  const drift = (d) => evaluateThresholds([parseThreshold('drift_throughput_pct>-10')], { drift: d }, 'rows')[0]
  // A collapsing second stage: 20,000 asked, 2,000 served. Raw throughput +900%; against the target −90%.
  const collapsing = stagedRun(200, 20_000, (target) => Math.min(target, 2000))
  assert.equal(collapsing.throughput_judged, 'achieved share of the target')
  assert.equal(collapsing.raw_throughput_change_pct, 900)
  assert.equal(collapsing.throughput_change_pct, -90)
  assert.equal(drift(collapsing).passed, false, 'a collapse fails the threshold')
  // A healthy ramp-down: 2,000 then 200, each held. Raw −90%; against the target ±0.
  const rampDown = stagedRun(2000, 200, (target) => target)
  assert.equal(rampDown.throughput_change_pct, 0)
  assert.equal(drift(rampDown).passed, true, 'a ramp-down held is no drift')
  assert.match(driftLines(rampDown, fmt)[0],
    joined(
      /^over the run: throughput \u00b10% against its target \(first 10%: /,
      /2,000 rows\/s, 100% of 2,000; last 10%: 200, 100% of 200\)/))
})

test('throughput that rises above its target after falling short is a backlog draining, not an improvement', () => {
  // A 10 queries/s target: 9.6 served for 520 s (a backlog builds), then 11.2 as it drains.
  const series = Array.from({ length: 600 }, (_, t) => ({ t_s: t, queries: { ok: t < 520 ? 9.6 : 11.2, failed: 0,
    in_doubt: 0, p99_ms: 100 } }))
  const drift = driftOf({ timeline: { warmup_s: 0, series, nodes: [] }, group: 'queries', unit: 'queries',
    loadEndS: 600, targetIn: () => 10 })
  const change = drift.changes.find((c) => c.metric === 'throughput')
  assert.equal(change.backlog_draining, true)
  assert.ok(driftLines(drift,
    fmt).some((l) => joined(
      /changed at \d+ s: throughput \(queries\/s\) 9\.6 \u2192 11\.2: a backlog draining /,
      /\(above its target of 10 after falling short of it\), not an improvement/).test(l)),
    driftLines(drift, fmt).join('\n'))
})

// Issue 47: the sustained figure of a long run.
test('a run of ten minutes or more has a sustained figure; a shorter one is said not to be one', () => {
  const { sustainedOf, sustainedLine } = require('../../lib/results/drift')
  const long = driftOf({ timeline: timelineOf({ seconds: 900, changeS: 450 }), group: 'ingest', unit: 'rows',
    loadEndS: 900, latencyIn })
  const sustained = sustainedOf(long, { tableEnd: { docs: 780_000, size_bytes: 1 } })
  assert.deepEqual([sustained.per_sec, sustained.p99_ms, sustained.duration_s, sustained.table_rows_end],
    [800, 40, 900, 780_000])
  assert.equal(sustained.drift.throughput_change_pct, -20)
  assert.equal(sustainedLine(long, sustained, fmt),
    '  sustained: 800 rows/s held at the end of 15 min on a table of 780,000 rows, p99 40 ms')
  const short = driftOf({ timeline: timelineOf({ seconds: 300 }), group: 'ingest', unit: 'rows', loadEndS: 300,
    latencyIn })
  assert.equal(sustainedOf(short), null)
  assert.equal(sustainedLine(short, null, fmt), '  not a sustained figure: 5 min of load (sustained needs 10 minutes ' +
    'or more)')
  // A run of --duration 10m whose last answer came half a second before the deadline ran ten minutes.
  const tenMinutes = driftOf({ timeline: timelineOf({ seconds: 600 }), group: 'ingest', unit: 'rows',
    loadEndS: 599.5, latencyIn })
  assert.equal(sustainedOf(tenMinutes).duration_s, 599.5)
  const underTen = driftOf({ timeline: timelineOf({ seconds: 600 }), group: 'ingest', unit: 'rows', loadEndS: 590,
    latencyIn })
  assert.equal(sustainedOf(underTen), null)
})
