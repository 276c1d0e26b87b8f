'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { runDesignLine, runLengthAfter, durationFor, countPoints } = require('../../lib/study/run-length')
const { contenderArgs } = require('../../lib/study/plan')
const { tempDir } = require('../helpers/temp-files')
const { timelineResult, swinging } = require('../helpers/timeline-results')

const contenders = [{ name: 'a' }, { name: 'b' }]
// A new user's options: 5,000-row batches, 4 in flight, 20-s runs.
const USER_ARGS = ['--batch_size', '5000', '--concurrent_requests', '4', '--duration', '20s']

/** Fork 1's results: each contender's requests in its window of `seconds`. */
function forkOne (t, requests, seconds = 20) {
  const dir = tempDir(t)
  fs.mkdirSync(path.join(dir, 'forks'), { recursive: true })
  contenders.forEach((c, i) => fs.writeFileSync(path.join(dir, 'forks', `1-${c.name}.json`),
    JSON.stringify({ workload: 'ingest', rows_per_sec: 11_000, requests: requests[i], seconds })))
  return dir
}

/** Fork 1's results with their timelines: each contender's units a second over its 20-s window. */
function forkOneTimed (t, perSecond, requests = 45) {
  const dir = tempDir(t)
  fs.mkdirSync(path.join(dir, 'forks'), { recursive: true })
  contenders.forEach((c, i) => fs.writeFileSync(path.join(dir, 'forks', `1-${c.name}.json`),
    JSON.stringify(timelineResult({ perSecond: perSecond[i], requests }))))
  return dir
}

const study = (more = {}) => ({ precision: '3%', budget: '20m', duet: true, run: { workload: 'ingest',
  args: USER_ARGS }, ...more })

test('before the first fork: how each run warms up and measures, and what happens to runs too short for it', () => {
  const ingest = (args, more = {}) => runDesignLine({ precision: '3%', run: { workload: 'ingest', args }, ...more })
  assert.equal(ingest(USER_ARGS), 'each run warms up until its rate is steady (at most 2m), then measures 20s: ' +
    'for ±3%, after fork 1, runs whose ratio moved too much within their windows for it measure longer, as far as ' +
    'the budget holds 4 more forks (run.lengthen: false keeps 20s)')
  assert.match(runDesignLine({ precision: '3%', run: { workload: 'ingest', args: USER_ARGS, lengthen: false } }),
    /: for ±3%, run\.lengthen: false keeps 20s; runs too short for it are said after fork 1$/)
  assert.match(ingest(['--duration', '30s', '--warmup', 'steady:2m']), /until its rate is steady \(at most 2m\), /)
  assert.equal(ingest(['--duration', '30s', '--warmup', '40s'], { precision: null }),
    'each run warms up for 40s, then measures 30s')
  assert.equal(ingest(['--duration', '30s', '--warmup', '0'], { precision: null }),
    'each run has no warm-up, then measures 30s')
  assert.equal(ingest(['--max_rows', '100000']), 'each run has no warm-up and ends at a count')
})

test('a count of requests moves a ratio by 0.58 / N a pair, narrowed over the forks as Student\'s t has it', () => {
  // 45 answers a run, 9 forks: t(8) 2.306 × 0.577 / 45 / 3.
  assert.equal(Math.round(countPoints(45, 9) * 1000) / 1000, 0.986)
  assert.ok(countPoints(90, 9) < countPoints(45, 9) / 1.99)
  assert.equal(countPoints(45, 1), Infinity)
})

test('a user\'s runs whose count takes under half the precision keep their length', (t) => {
  // 45 batches in a 20-s window, as a user's A/A duet measured (2.12 minutes a duet): ±1 point over the 9 forks
  // 20 minutes hold, within the ±1.5 of ±3%. Measured: lengthened to 90 s and 110 s, such runs came to ±2.1 and
  // ±8.1 points, where 9 of 20 s came to ±3.7 (docs/study.md).
  const dir = forkOne(t, [45, 47])
  assert.deepEqual(runLengthAfter({ study: study(), contenders, dir, fork: 1, wallS: 127, spentS: 127 }),
    { line: 'fork 1\'s runs measured as few as 45 requests in their 20-s windows: their count alone moves the ratio ' +
      'by ±1 points over the 9 forks the budget holds, within half the ±3% asked: each run keeps 20s' })
})

test('runs whose count takes more than half the precision measure longer from fork 2: the shortest length within',
  (t) => {
    // 28 batches in 20 s (the user): ±1.6 points over 9 forks; 30 s gives 42 and ±1.3 over 7.
    const length = runLengthAfter({ study: study(), contenders, dir: forkOne(t, [28, 31]), fork: 1, wallS: 127,
      spentS: 127 })
    assert.deepEqual({ ...length, line: undefined }, { duration: '30s', given: '20s', from_fork: 2,
      basis: 'count', projected_points: 1.3, line: undefined })
    assert.equal(length.line, 'fork 1\'s runs measured as few as 28 requests in their 20-s windows: their count ' +
      'alone moves the ratio by ±1.6 points over the 9 forks the budget holds, more than half the ±3% asked; from ' +
      'fork 2 on each run measures 30s instead of 20s (about 42 requests: ±1.3 points over 7 forks), and only those ' +
      'forks are compared (fork 1\'s results stay in forks/; run.lengthen: false keeps 20s)')
    assert.equal(durationFor(1, length), null, 'fork 1 ran at the duration given')
    assert.equal(durationFor(2, length), '30s')
    assert.equal(durationFor(1, length, { inherited: true }), '30s', 'a comparison after its calibration')
    assert.equal(durationFor(5, null), null)
  })

test('a duet whose ratio moves within its windows measures longer: the narrowest interval the budget reaches', (t) => {
  // 45 requests a run (their count alone: ±1 point), but the ratio swings ±10% from one 5-s block to the next: ±4.5
  // points over 9 forks of 20 s. A window of T s narrows that as 1 / √T and costs forks: 100 s reaches ±3.2 over 5,
  // 70 s ±3.24 over 6 (within 2% of it, and a fork more).
  const dir = forkOneTimed(t, [Array(20).fill(10_000), swinging(10_000, 0.1)])
  const length = runLengthAfter({ study: study(), contenders, dir, fork: 1, wallS: 127, spentS: 127 })
  assert.deepEqual({ ...length, line: undefined }, { duration: '70s', given: '20s', from_fork: 2,
    basis: 'window noise', projected_points: 3.2, line: undefined })
  assert.equal(length.line, 'fork 1\'s runs: their throughput ratio moved ±11.6% from one 5-s block of their 20-s ' +
    'windows to the next: at that noise the ratio\'s interval is ±4.5 points over the 9 forks the budget holds, more ' +
    'than half the ±3% asked; from fork 2 on each run measures 70s instead of 20s (±3.2 points over 6 forks, the ' +
    'narrowest the budget reaches with 4 more forks or more), and only those forks are compared (fork 1\'s results ' +
    'stay in forks/; run.lengthen: false keeps 20s)')
  // Paired forks, one run after another: each fork's every run longer, so fewer forks fit, and each run's own swing.
  const paired = runLengthAfter({ study: study({ duet: false }), contenders, dir, fork: 1, wallS: 127, spentS: 127 })
  assert.equal(paired.basis, 'window noise')
  assert.ok(Number.parseFloat(paired.duration) < 70, paired.line)
})

test('a duet whose ratio holds within its windows keeps its length', (t) => {
  const dir = forkOneTimed(t, [Array(20).fill(10_000), swinging(10_000, 0.01)])
  const length = runLengthAfter({ study: study(), contenders, dir, fork: 1, wallS: 127, spentS: 127 })
  assert.equal(length.duration, undefined)
  assert.match(length.line, /moved ±1\.2% from one 5-s block .*: at that noise the ratio's interval is ±0\.4 points /)
  assert.match(length.line, /within half the ±3% asked: each run keeps 20s$/)
})

test('runs of a few large batches are judged by their count: a 5-s block of one or two answers is not noise', (t) => {
  // 12 requests in 20 s: 8 take 13.3 s, so the blocks would be 15 s long, and a 20-s window holds one.
  const dir = forkOneTimed(t, [Array(20).fill(10_000), swinging(10_000, 0.5)], 12)
  const length = runLengthAfter({ study: study(), contenders, dir, fork: 1, wallS: 127, spentS: 127 })
  assert.equal(length.basis, 'count')
  assert.match(length.line, /^fork 1's runs measured as few as 12 requests in their 20-s windows: their count alone /)
  // Ten a second: 5-s blocks, the noise read.
  const many = forkOneTimed(t, [Array(20).fill(10_000), swinging(10_000, 0.5)], 200)
  assert.equal(runLengthAfter({ study: study(), contenders, dir: many, fork: 1, wallS: 127, spentS: 127 }).basis,
    'window noise')
})

test('a lengthening keeps four more forks in the budget, or is only said when the budget has no room', (t) => {
  const dir = forkOne(t, [10, 12])
  // 10 requests a run: within ±1.5 at 100 s over 5 forks; 15 minutes hold four more forks of 80 s only.
  assert.equal(runLengthAfter({ study: study(), contenders, dir, fork: 1, wallS: 127, spentS: 127 }).duration, '100s')
  const limited = runLengthAfter({ study: study({ budget: '15m' }), contenders, dir, fork: 1, wallS: 127,
    spentS: 127 })
  assert.equal(limited.duration, '80s')
  assert.match(limited.line, /each run measures 80s instead of 20s \(about 40 requests: ±[\d.]+ points over 4 forks, /)
  assert.match(limited.line, /the narrowest the budget reaches with 4 more forks or more\), and only those forks are /)
  // Five minutes after a fork of 127 s: no room.
  const none = runLengthAfter({ study: study({ budget: '5m' }), contenders, dir, fork: 1, wallS: 127, spentS: 127 })
  assert.equal(none.duration, undefined)
  assert.match(none.line, /; the budget leaves no room to measure longer and still run 4 more forks: smaller batches /)
})

test('runs are not lengthened with no precision asked, a run that ends at a count, or run.lengthen: false', (t) => {
  const short = forkOne(t, [28, 31])
  const kept = runLengthAfter({ study: study({ run: { workload: 'ingest', args: USER_ARGS, lengthen: false } }),
    contenders, dir: short, fork: 1, wallS: 127, spentS: 127 })
  assert.deepEqual(kept, { line: 'fork 1\'s runs measured as few as 28 requests in their 20-s windows: their count ' +
    'alone moves the ratio by ±1.6 points over the 9 forks the budget holds, more than half the ±3% asked: ' +
    '--duration 30s in run.args would bring it within (or smaller batches) (run.lengthen: false keeps 20s)' })
  assert.equal(runLengthAfter({ study: study({ precision: null }), contenders, dir: short, fork: 1, wallS: 127,
    spentS: 127 }), null)
  assert.equal(runLengthAfter({ study: study({ run: { workload: 'ingest', args: ['--max_rows', '100000'] } }),
    contenders, dir: short, fork: 1, wallS: 127, spentS: 127 }), null, 'a run that ends at a count')
})

test('a lengthened run is the run.args given with the --duration decided, every other option kept', () => {
  const comparison = study()
  const contender = { name: 'a', ports: [{ http: 4200, pg: 5432 }] }
  const given = contenderArgs(comparison, contender, {})
  const longer = contenderArgs(comparison, contender, {}, { duration: '90s' })
  const durations = (args) => args.flatMap((a, i) => (a === '--duration' ? [args[i + 1]] : []))
  assert.deepEqual(durations(given), ['20s'])
  assert.deepEqual(durations(longer), ['90s'])
  const withoutDuration = (args) => args.filter((a, i) => a !== '--duration' && args[i - 1] !== '--duration')
  assert.deepEqual(withoutDuration(longer), withoutDuration(given), 'the same options, the warm-up among them')
  assert.ok(longer.includes('steady:2m'))
})
