'use strict'

// The steady warm-up's judge, fed deltas as workers send them (one a second, on the load's clock): no clock is read.

const test = require('node:test')
const assert = require('node:assert/strict')
const { SteadyWarmup, MIN_REQUESTS } = require('../../lib/run/steady-warmup')

const START = 1_000_000

/** A worker's delta for second `s` of the load: `requests` answered in the warm-up, `ok` rows of them. */
const deltaAt = (s, requests, ok) => ({ at: START + (s + 1) * 1000 + 3, periodMs: 1000,
  warmupSeries: { x: { requests, ok } } })

/** Feeds `perSecond(s)` ([requests, ok] per worker) for seconds 0..to-1; the verdict after each, by second. */
function fed (judge, to, perSecond, workers = 1) {
  const verdicts = []
  for (let s = 0; s < to; s++) {
    for (let w = 0; w < workers; w++) judge.add(w, deltaAt(s, ...perSecond(s)))
    verdicts.push(judge.verdict((s + 1) * 1000 + 3))
  }
  return verdicts
}

test('a rate that climbs, then holds, is steady once two windows of the held rate agree', () => {
  const judge = new SteadyWarmup({ startAt: START, workers: 1, maxMs: 60_000 })
  // 1,000 rows/s a second more each second for 8 s (a JIT compiling), then 9,000 rows/s: 10 requests a second.
  const verdicts = fed(judge, 30, (s) => [10, s < 8 ? 1000 * (s + 1) : 9000])
  const first = verdicts.findIndex(Boolean)
  // Windows of 10 s (100 requests each): seconds 6-15 (8,700 rows/s: the climb's last two seconds in it) and 16-25
  // are the first two within 5%; 5-14 and 15-24 were 8,400 and 9,000 (+7.1%).
  assert.equal(first, 25)
  const v = verdicts[first]
  assert.deepEqual([v.steady, v.window_s, v.before_per_sec, v.last_per_sec, v.change_pct, v.tolerance_pct],
    [true, 10, 8700, 9000, 3.4, 5])
  assert.match(v.line,
    /^steady: 8,700 -> 9,000 rows\/s over two windows of 10 s \(\+3\.4%, within ±5% counts as steady\)$/)
  assert.match(v.rule, /within 5% .* each window at least 10 s and 20 requests; at most 60 s$/)
})

test('a window holds at least MIN_REQUESTS answers: few large batches widen it, and one request\'s share widens ' +
  'the tolerance', () => {
  const judge = new SteadyWarmup({ startAt: START, workers: 1, maxMs: 120_000 })
  // 2 requests a second (5,000-row batches), 10,000 rows/s flat from the start.
  const verdicts = fed(judge, 40, () => [2, 10_000])
  const first = verdicts.findIndex(Boolean)
  assert.equal(first, 2 * (MIN_REQUESTS / 2) - 1, 'two windows of 10 s: 20 requests each')
  assert.equal(verdicts[first].window_s, 10)
  assert.equal(verdicts[first].tolerance_pct, 10, '2 requests of 20: 10%')
})

test('a second counts only when every worker reported it', () => {
  const judge = new SteadyWarmup({ startAt: START, workers: 2, maxMs: 60_000 })
  for (let s = 0; s < 22; s++) judge.add(0, deltaAt(s, 10, 5000))
  assert.equal(judge.completeSeconds(), 0, 'worker 1 reported nothing yet')
  assert.equal(judge.verdict(22_003), null)
  for (let s = 0; s < 22; s++) judge.add(1, deltaAt(s, 10, 5000))
  assert.equal(judge.completeSeconds(), 22)
  assert.equal(judge.verdict(22_003).steady, true)
})

test('a rate that keeps moving is not steady; at the cap the verdict says so with the last windows it compared', () => {
  const judge = new SteadyWarmup({ startAt: START, workers: 1, maxMs: 30_000, unit: 'queries' })
  // 10% more each second: never within 5%.
  const verdicts = fed(judge, 30, (s) => [10, Math.round(1000 * 1.1 ** s)])
  assert.ok(verdicts.slice(0, 29).every((v) => v === null))
  const v = verdicts[29]
  assert.equal(v.steady, false)
  assert.equal(v.window_s, 10)
  assert.ok(v.change_pct > 150)
  assert.match(v.line,
    /^not steady at the warm-up's cap of 30 s: [\d,.]+ -> [\d,.]+ queries\/s over two windows of 10 s/)
})

test('too few answers for two windows by the cap: not steady, and why', () => {
  const judge = new SteadyWarmup({ startAt: START, workers: 1, maxMs: 10_000 })
  const verdicts = fed(judge, 10, () => [1, 5000])
  assert.deepEqual([verdicts[9].steady, verdicts[9].window_s], [false, null])
  assert.match(verdicts[9].line, /too few answers for two windows of 20 requests each/)
})

test('a rate that falls is no more steady than one that climbs', () => {
  const judge = new SteadyWarmup({ startAt: START, workers: 1, maxMs: 60_000 })
  const verdicts = fed(judge, 20, (s) => [10, s < 10 ? 10_000 : 8_000])
  assert.equal(verdicts[19], null, '-20%')
})
