'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { stageResults } = require('../../lib/results/stages')
const { parseStages, LoadProfile, granularityWarnings } = require('../../lib/data/load-profile')
const { newHistogram, recordMicros, encodeHistogram } = require('../../lib/results/stats')
const { parseThreshold } = require('../../lib/results/thresholds')

/** One interval of the timeline: `ok` rows answered, each after `ms`. */
function interval (t, ok, ms, extra = {}) {
  const h = newHistogram()
  for (let i = 0; i < ok; i++) recordMicros(h, ms * 1000)
  return { t_s: t, ingest: { ok, failed: 0, in_doubt: 0, per_sec: ok, latency_hist: encodeHistogram(h), ...extra } }
}

const stages = parseStages('2s:100,2s:200')

test('each stage takes its whole intervals; the drain after the end belongs to the last; the units add up', () => {
  const series = [interval(0, 100, 2), interval(1, 100, 4), interval(2, 200, 3), interval(3, 180, 5),
    interval(4, 20, 9, { failed: 5, in_doubt: 2 })]
  const r = stageResults({ stages, profile: LoadProfile.ofStages(stages), timeline: { series }, group: 'ingest',
    unit: 'rows' })
  assert.deepEqual(r.stages.map((s) => [s.start_s, s.end_s, s.rows_ok, s.rows_failed, s.rows_in_doubt]),
    [[0, 2, 200, 0, 0], [2, 4, 400, 5, 2]])
  assert.deepEqual(r.stages.map((s) => [s.target_per_sec, s.achieved_per_sec, s.achieved_pct]),
    [[100, 100, 100], [200, 200, 100]])
  // Percentiles of the stage's merged histograms, not of its intervals' percentiles.
  const near = (actual, expected) => assert.ok(Math.abs(actual - expected) < 0.01, `${actual} != ${expected}`)
  near(r.stages[0].latency_ms.p50, 2)
  near(r.stages[0].latency_ms.p99, 4)
  near(r.stages[1].latency_ms.p50, 3)
  near(r.stages[1].latency_ms.max, 9)
  assert.equal(r.first_not_kept_up, null)
})

test('the first stage below 95% of its target, with a threshold missed, or with rejections is named', () => {
  const slow = stageResults({ stages, timeline: { series: [interval(0, 100, 2), interval(1, 100, 2),
    interval(2, 190, 2), interval(3, 180, 2)] }, group: 'ingest', unit: 'rows' })
  assert.deepEqual(slow.first_not_kept_up, { stage: 2, reason: 'achieved 185/s, below 95% of the target 200/s' })
  const threshold = stageResults({ stages, timeline: { series: [interval(0, 100, 2), interval(1, 100, 2),
    interval(2, 200, 80), interval(3, 200, 80)] }, group: 'ingest', unit: 'rows',
  thresholds: [parseThreshold('p99<50ms'), parseThreshold('rows_per_sec>1'), parseThreshold('q:p99<1ms')] })
  assert.equal(threshold.first_not_kept_up.stage, 2)
  assert.match(threshold.first_not_kept_up.reason, /--threshold p99<50ms missed \(80\.\d+\)/)
  assert.equal(threshold.stages[0].thresholds.length, 1, 'only whole-run latency and count checks apply to a stage')
  const nodes = [
    { t_s: -0.5, name: 'a', process_cpu_pct: 5, write_rejected: 0, search_rejected: 0 },
    { t_s: 1, name: 'a', process_cpu_pct: 30, write_rejected: 0, search_rejected: 0 },
    { t_s: 3, name: 'a', process_cpu_pct: 90, write_rejected: 7, search_rejected: 0 },
    { t_s: 1, name: 'b', process_cpu_pct: 20, write_rejected: 0, search_rejected: 0 }
  ]
  const rejected = stageResults({ stages, timeline: { series: [interval(0, 100, 2), interval(1, 100, 2),
    interval(2, 200, 2), interval(3, 200, 2)] }, group: 'ingest', unit: 'rows', nodes })
  assert.deepEqual(rejected.stages.map((s) => s.nodes), [
    [{ name: 'a', cpu_pct: 30, write_rejected: 0, search_rejected: 0 },
      { name: 'b', cpu_pct: 20, write_rejected: 0, search_rejected: 0 }],
    [{ name: 'a', cpu_pct: 90, write_rejected: 7, search_rejected: 0 },
      { name: 'b', cpu_pct: null, write_rejected: 0, search_rejected: 0 }]
  ])
  assert.deepEqual(rejected.first_not_kept_up, { stage: 2, reason: '7 thread-pool rejections on the nodes' })
})

test('a stage at rate 0 has no target to miss; a run without stages has no stage figures', () => {
  const paused = parseStages('1s:0,1s:100')
  const r = stageResults({ stages: paused, profile: LoadProfile.ofStages(paused), timeline: { series: [
    { t_s: 0 }, interval(1, 100, 2)] }, group: 'ingest', unit: 'rows' })
  assert.deepEqual(r.stages.map((s) => [s.target_per_sec, s.achieved_pct, s.kept_up.kept]), [[0, null, true],
    [100, 100, true]])
  assert.equal(stageResults({ stages: null, timeline: { series: [] } }), null)
})

test('a run stopped in stage 2: stage 2 judged on what ran, stages after it not run, never a knee', () => {
  const four = parseStages('5s:500,5s:1000,10s:2000,10s:3000')
  // Every request answered in 2-11 ms; the run stopped at 7.5 s, the drain answered by 7.6 s.
  const series = [0, 1, 2, 3, 4].map((t) => interval(t, 500, 2))
    .concat([interval(5, 1000, 3), interval(6, 1000, 11), interval(7, 500, 4)])
  const r = stageResults({ stages: four, profile: LoadProfile.ofStages(four), timeline: { series }, group: 'ingest',
    unit: 'rows', stoppedAtS: 7.5 })
  assert.deepEqual(r.stages.map((s) => [s.status, s.ran_s, s.kept_up.kept]),
    [['ran', 5, true], ['stopped', 2.5, true], ['not run', 0, null], ['not run', 0, null]])
  assert.equal(r.stages[1].target_per_sec, 1000, 'the target over the 2.5 s that ran')
  assert.equal(r.stages[1].achieved_per_sec, 1000)
  assert.deepEqual([r.stages[2].target_per_sec, r.stages[2].achieved_per_sec], [null, null])
  assert.equal(r.first_not_kept_up, null)
  // Stopped 0.4 s into a stage: too little ran to judge it either way.
  const early = stageResults({ stages: four, profile: LoadProfile.ofStages(four),
    timeline: { series: series.slice(0, 6) }, group: 'ingest', unit: 'rows', stoppedAtS: 5.4 })
  assert.equal(early.stages[1].kept_up.kept, null)
  assert.match(early.stages[1].kept_up.reason, /stopped 0\.4 s into it/)
})

test('a stage of a few batches: a shortfall of one request per process is no knee; one of more still is', () => {
  const few = parseStages('5s:5,5s:50')
  // Batches of 100 rows: stage 2 asks 250 rows, 2.5 batches; 2 answered (40/s) is within one batch of it.
  const series = [interval(0, 0, 2), interval(2, 100, 2), interval(5, 100, 2), interval(7, 100, 2)]
  const r = stageResults({ stages: few, profile: LoadProfile.ofStages(few), timeline: { series }, group: 'ingest',
    unit: 'rows', granularity: 100 })
  assert.equal(r.stages[1].achieved_per_sec, 40)
  assert.equal(r.stages[1].kept_up.kept, true)
  assert.equal(r.first_not_kept_up, null)
  const short = stageResults({ stages: few, profile: LoadProfile.ofStages(few),
    timeline: { series: series.slice(0, 3) }, group: 'ingest', unit: 'rows', granularity: 100 })
  assert.equal(short.first_not_kept_up.stage, 2, 'two batches short is a knee')
  const warnings = granularityWarnings(few, { unitsPerRequest: 100, processes: 1, unit: 'rows' })
  assert.equal(warnings.length, 2)
  assert.match(warnings[1], /^warning: stage 2 \(5s:50\) asks 250 rows: 2\.5 requests of 100, over 1 process;/)
  assert.equal(granularityWarnings(few, { unitsPerRequest: 1, processes: 1, unit: 'queries' }).length, 0)
  assert.equal(granularityWarnings(parseStages('5s:2'), { unitsPerRequest: 1, processes: 1, unit: 'queries' }).length,
    1)
})

test('a stage that kept its rate by queueing is not kept up: p50 or p99 over 4x the first kept stage\'s', () => {
  const three = parseStages('2s:100,2s:200,2s:400')
  // 29 ms, then 40 ms, then 483 ms: the rate of stage 3 met only by waiting.
  const series = [interval(0, 100, 29), interval(1, 100, 29), interval(2, 200, 40), interval(3, 200, 40),
    interval(4, 400, 483), interval(5, 400, 483)]
  const r = stageResults({ stages: three, profile: LoadProfile.ofStages(three), timeline: { series },
    group: 'ingest', unit: 'rows' })
  assert.deepEqual(r.stages.map((s) => s.kept_up.kept), [true, true, false])
  assert.match(r.stages[2].kept_up.reason, /^queueing: p50 483 ms, 16\.7x stage 1's 29 ms/)
  assert.deepEqual(r.stages[2].latency_vs_first, { stage: 1, p50_x: 16.7, p99_x: 16.7 })
  assert.equal(r.first_not_kept_up.stage, 3)
  // Judging throughput alone, as a user may ask: kept.
  const alone = stageResults({ stages: three, profile: LoadProfile.ofStages(three), timeline: { series },
    group: 'ingest', unit: 'rows', queueingFactor: 0 })
  assert.equal(alone.stages[2].kept_up.kept, true)
  // A fast cluster's 2 ms that became 11 ms is no queue (under 20 ms more).
  const fast = stageResults({ stages: three, profile: LoadProfile.ofStages(three), timeline: { series: [
    interval(0, 100, 2), interval(1, 100, 2), interval(2, 200, 2), interval(3, 200, 2), interval(4, 400, 11),
    interval(5, 400, 11)] }, group: 'ingest', unit: 'rows' })
  assert.equal(fast.stages[2].kept_up.kept, true)
})

test('a ramp is judged where it fell behind, not on its mean (which a backlog answered in it can make up)', () => {
  const ramp = parseStages('10s:1000..5000')
  // The cluster does 3,000 rows/s; the first second also answers 5,000 rows left from before the ramp.
  const series = [...Array(10).keys()].map((t) => interval(t, Math.min(3000, 1200 + 400 * t) + (t === 0 ? 5000 : 0), 5))
  const r = stageResults({ stages: ramp, profile: LoadProfile.ofStages(ramp), timeline: { series }, group: 'ingest',
    unit: 'rows', granularity: 100 })
  const [stage] = r.stages
  assert.equal(stage.achieved_pct, 100, 'its mean was met')
  assert.equal(stage.kept_up.kept, false)
  assert.deepEqual(stage.fell_behind, { at_s: 7, window_s: 3, target_per_sec: 3200, achieved_per_sec: 2933.33 })
  assert.equal(stage.kept_up.reason, 'fell behind at 3,200/s, 7 s into the ramp (achieved 2,933/s there)')
  // A ramp the cluster follows all the way is kept.
  const followed = stageResults({ stages: ramp, profile: LoadProfile.ofStages(ramp), timeline: { series: [
    ...Array(10).keys()].map((t) => interval(t, 1200 + 400 * t, 5)) }, group: 'ingest', unit: 'rows' })
  assert.equal(followed.stages[0].kept_up.kept, true)
})

test('--threshold stages_kept_up=all: passes when every judged stage kept up, fails on a knee', () => {
  const { evaluateThresholds } = require('../../lib/results/thresholds')
  const threshold = parseThreshold('stages_kept_up=all')
  const stagesOf = (...kept) => kept.map((k) => ({ kept_up: { kept: k } }))
  const [pass] = evaluateThresholds([threshold], { stages: stagesOf(true, true, null) }, 'rows')
  assert.deepEqual([pass.actual, pass.passed], ['2 of 2 kept up', true])
  const [fail] = evaluateThresholds([threshold], { stages: stagesOf(true, false) }, 'rows')
  assert.deepEqual([fail.actual, fail.passed], ['1 of 2 kept up', false])
  assert.equal(evaluateThresholds([threshold], {}, 'rows')[0].passed, false)
})
