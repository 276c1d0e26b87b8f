'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { ProgressLine } = require('../../lib/run/progress')
const { Series, Totals } = require('../../lib/results/stats')
const { joined } = require('../helpers/patterns')

function deltaOf (ok, periodMs, latencyMicros) {
  const s = new Series()
  s.ok = ok
  s.requests = 1
  s.recordLatency(latencyMicros)
  return {
    series: { insert: s.toDelta() },
    errors: [],
    firstSentAt: 0,
    lastAnsweredAt: 0,
    unitsSent: ok,
    unitsInFlight: 0,
    lateRequests: 0,
    periodMs
  }
}

test('the live rate is each worker\'s latest report over the period it covers, summed', () => {
  const written = []
  const progress = new ProgressLine({ stream: { write: (text) => written.push(text) }, unit: 'rows', enabled: true })
  progress.extra = () => '  cluster write rejections 7'
  const totals = new Totals()
  progress.startedAt = Date.now() - 3000
  // Worker 0 reports late (1.5 s of rows), worker 1 on time: the rate must not count the lag.
  for (const [worker, delta] of [[0, deltaOf(1500, 1500, 2000)], [1, deltaOf(1000, 1000, 40_000)]]) {
    totals.addDelta(delta)
    progress.addDelta(delta, worker)
  }
  progress.render(totals)
  const line = written.at(-1)
  assert.ok(line.startsWith('\r\u001b[K'), 'the line overwrites itself')
  assert.match(line.slice(4),
    /^ {3}3s {2}rows ok 2,500 {2}rows\/s 2,000 {2}failed 0 {2}p99 40(\.\d{1,2})? ms {2}cluster write rejections 7$/)
  // A worker's next report replaces its rate; p99 covers only the reports since the last line.
  progress.addDelta(deltaOf(500, 1000, 1000), 1)
  progress.render(totals)
  assert.match(written.at(-1), /rows\/s 1,500 {2}failed 0 {2}p99 1(\.\d+)? ms/)
})

test('bounded runs show how far they are; --rate shows its target; p99 as in the report', () => {
  const written = []
  const stream = { write: (text) => written.push(text) }
  const now = () => 1_012_400
  const totals = new Totals()
  const delta = deltaOf(2500, 1000, 1_328_127)
  totals.addDelta(delta)
  const timed = new ProgressLine({ stream, unit: 'rows', enabled: true, durationMs: 30_000, targetRate: 3000, now })
  timed.startedAt = 1_000_000
  timed.addDelta(delta, 0)
  timed.render(totals)
  assert.ok(written.at(-1).startsWith('\r\u001b[K'))
  assert.match(written.at(-1).slice(4),
    /^ {2}12s\/30s {2}rows ok 2,500 {2}rows\/s 2,500 \(target 3,000\) {2}failed 0 {2}p99 1,328\.\d{1,2} ms$/)
  const counted = new ProgressLine({ stream, unit: 'rows', enabled: true, totalUnits: 10_000, now })
  counted.startedAt = 1_000_000
  counted.render(totals)
  assert.match(written.at(-1), / {2}12s {2}25% {2}rows ok 2,500/)
  // Under --stages (or a rate changed on the live page) the target is what the profile asks now.
  let asked = 1200.4
  const staged = new ProgressLine({ stream, unit: 'rows', enabled: true, durationMs: 30_000, targetRate: () => asked,
    now })
  staged.startedAt = 1_000_000
  staged.render(totals)
  assert.match(written.at(-1), /\(target 1,200\)/)
  asked = 4000
  staged.render(totals)
  assert.match(written.at(-1), /\(target 4,000\)/)
})

test('disabled: nothing is written', () => {
  const written = []
  const progress = new ProgressLine({ stream: { write: (text) => written.push(text) }, unit: 'rows', enabled: false })
  progress.start(Date.now(), new Totals())
  progress.addDelta(deltaOf(1, 1000, 1), 0)
  progress.stop()
  assert.deepEqual(written, [])
})

test('through --warmup the line shows the warm-up\'s clock and its ' +
  'answers; then the measured part\'s against --duration', () => {
  const written = []
  let time = 1_000_000
  const progress = new ProgressLine({ stream: { write: (text) => written.push(text) }, unit: 'queries', enabled: true,
    durationMs: 60_000, warmupMs: 10_000, now: () => time })
  progress.startedAt = time
  const totals = new Totals()
  const warm = deltaOf(0, 1000, 1000)
  const s = new Series()
  s.ok = 100
  s.requests = 100
  s.recordLatency(3000)
  warm.series = {}
  warm.warmupSeries = { q: s.toDelta() }
  warm.warmup = { requests: 100, units: 100, ok: 100, failed: 0, inDoubt: 0 }
  totals.addDelta(warm)
  progress.addDelta(warm, 0)
  time += 5_000
  progress.render(totals)
  assert.match(written.at(-1).slice(4),
    /^warm-up 5s\/10s {2}queries ok 100 \(warm-up, in no figure\) {2}queries\/s 100 {2}failed 0 {2}p99 3(\.\d+)? ms$/)
  time += 65_000
  progress.render(totals)
  assert.match(written.at(-1).slice(4), /^ {2}60s\/60s {2}queries ok 0 /,
    'the measured clock ends at --duration, not at 70 s')
})

test('in a log (stderr no terminal): a plain line every logEveryMs, the rate since the line before, the client\'s RSS',
  () => {
  const written = []
  let time = 1_000_000
  const progress = new ProgressLine({ stream: { write: (text) => written.push(text) }, unit: 'rows', enabled: true,
    durationMs: 43_200_000, targetRate: 20_000, now: () => time, logEveryMs: 60_000, memory: () => 75 * 1048576 })
  progress.startedAt = time
  const totals = new Totals()
  const minute = deltaOf(1_200_000, 60_000, 14_000)
  totals.addDelta(minute)
  progress.addDelta(minute, 0)
  time += 60_000
  progress.render(totals)
  assert.match(written.at(-1),
    joined(
      /^ {2}60s\/43200s {2}rows ok 1,200,000 {2}rows\/s 20,000 \(target /,
      /20,000\) {2}failed 0 {2}p99 14(\.\d+)? ms {2}client rss 75 MB\n$/))
  // The next minute served half as much: its rate, not the run's average, and no escape codes in the log.
  const slower = deltaOf(600_000, 60_000, 9_000)
  totals.addDelta(slower)
  progress.addDelta(slower, 0)
  time += 60_000
  progress.render(totals)
  assert.match(written.at(-1), /^ {1}120s\/43200s {2}rows ok 1,800,000 {2}rows\/s 10,000 .*p99 9(\.\d+)? ms/)
  assert.ok(written.every((line) => !line.includes('\u001b')), 'no escape codes in a log')
  progress.timer = setInterval(() => {}, 1000)
  progress.stop()
  assert.equal(written.length, 2, 'stopping writes nothing into a log')
})

test('where the progress goes: a refreshing line on a terminal; a line a minute in a log, a second with --progress',
  () => {
    const { progressLogEveryMs } = require('../../lib/run/load-stage')
    assert.equal(progressLogEveryMs({ isTTY: true }, null), null)
    assert.equal(progressLogEveryMs({ isTTY: true }, true), null)
    assert.equal(progressLogEveryMs({}, null), 60_000)
    assert.equal(progressLogEveryMs({}, true), 1000)
  })

test('only a line refreshed in place is cleared before a warning is written above it', () => {
  const stream = { write () {} }
  assert.equal(new ProgressLine({ stream, unit: 'rows', enabled: true }).refreshing, true)
  assert.equal(new ProgressLine({ stream, unit: 'rows', enabled: true, logEveryMs: 60_000 }).refreshing, false)
  assert.equal(new ProgressLine({ stream, unit: 'rows', enabled: false }).refreshing, false)
})

test('through a steady warm-up the line shows its cap; once warm, the measured part\'s clock starts where it ended',
  () => {
  const written = []
  let time = 1_000_000
  const progress = new ProgressLine({ stream: { write: (text) => written.push(text) }, unit: 'rows', enabled: true,
    durationMs: 20_000, warmupMs: 60_000, warmupSteady: true, now: () => time })
  progress.startedAt = time
  const totals = new Totals()
  time += 12_000
  progress.render(totals)
  assert.match(written.at(-1).slice(4), /^warm-up 12s \(until steady, at most 60s\) {2}rows ok 0 \(warm-up/)
  progress.warmed(14_000)
  time += 7_000
  progress.render(totals)
  assert.match(written.at(-1).slice(4), /^ {3}5s\/20s {2}rows ok 0 /)
})
