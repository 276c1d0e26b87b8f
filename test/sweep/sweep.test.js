'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { pointOf, combineRepeats, withChanges, analyse, maxSpreadPct, saturationReason, toCsv, csvField,
  parseValue } = require('../../lib/sweep/sweep')

// A result shaped like the benchmarks' --json output, with only the fields a sweep reads.
function ingestResult ({ ok, perSec, failed = 0, inDoubt = 0, abandoned = 0, p99 = 10, seconds = 1, partial = false }) {
  return {
    errors: abandoned > 0 ? [{ code: 'ABORTED', in_doubt: true, count: abandoned, message: 'request abandoned' }] : [],
    workload: 'ingest',
    seconds,
    rows_sent: ok + failed + inDoubt,
    rows_ok: ok,
    rows_failed: failed,
    rows_in_doubt: inDoubt,
    rows_per_sec: perSec,
    latency_ms: { p50: 1, p90: 5, p99, p999: p99 * 2, max: p99 * 3 },
    partial
  }
}

const sweepOf = (series) =>
  withChanges(
    series.map(([value, perSec, extra = {}]) =>
      pointOf({ value, exitCode: extra.failed ? 1 : 0, result: ingestResult({ ok: 1000, perSec, ...extra }) })
    )
  )

test('a point takes throughput, p99, failed and in doubt apart (and the client\'s abandoned requests) from the result',
  () => {
  const point = pointOf({
    value: 500,
    exitCode: 1,
    result: ingestResult({ ok: 900, perSec: 900, failed: 60, inDoubt: 40, abandoned: 30, p99: 12.5 })
  })
  assert.deepEqual(
    {
      unit: point.unit,
      ok: point.ok,
      sent: point.sent,
      throughput: point.throughput,
      p99: point.p99Ms,
      failed: point.failed,
      inDoubt: point.inDoubt,
      abandoned: point.abandoned
    },
    { unit: 'rows', ok: 900, sent: 1000, throughput: 900, p99: 12.5, failed: 60, inDoubt: 40, abandoned: 30 }
  )
  const query = pointOf({
    value: 8,
    exitCode: 0,
    result: {
      seconds: 2,
      queries_sent: 10,
      queries_ok: 10,
      queries_failed: 0,
      queries_in_doubt: 0,
      queries_per_sec: 5,
      latency_ms: { p99: 3 }
    }
  })
  assert.equal(query.unit, 'queries')
  assert.equal(pointOf({ value: 1, exitCode: 3, result: null }).missing, true)
  assert.throws(() => pointOf({ value: 1, exitCode: 0, result: { seconds: 1 } }), /neither rows_ok nor queries_ok/)
})

test('change is the percent difference from the value before', () => {
  const points = sweepOf([[500, 100], [1000, 150], [2000, 120]])
  assert.deepEqual(points.map((p) => p.changePct), [null, 50, -20])
})

test('the sweet spot is the smallest value beyond which nothing gains the threshold', () => {
  // 100 → 150 → 180 → 185 → 187: beyond 2000 the best later value is 187, +3.9% < 5%.
  const points = sweepOf([[500, 100], [1000, 150], [2000, 180], [4000, 185], [8000, 187]])
  const a = analyse(points, { thresholdPct: 5 })
  assert.equal(a.best.value, 8000)
  assert.equal(a.sweetSpot.value, 2000)
  assert.equal(a.plateauReached, true)
  assert.equal(a.gainBeyondPct, 3.9)
  // A stricter threshold moves it: beyond 4000 the gain is +1.1%.
  assert.equal(analyse(points, { thresholdPct: 2 }).sweetSpot.value, 4000)
})

test('slow steady growth is not a plateau: steps of +4% add up beyond the threshold', () => {
  // Each step alone gains less than 5%, but from 1 or 2 the last value is still 12.5% / 8.2%
  // faster; only beyond 3 is the gain under 5% (+4.0%).
  const a = analyse(sweepOf([[1, 100], [2, 104], [3, 108.2], [4, 112.5]]), { thresholdPct: 5 })
  assert.equal(a.sweetSpot.value, 3)
  assert.equal(a.gainBeyondPct, 4)
})

test('when the curve still climbs at the last value, no plateau is claimed and there is no sweet spot', () => {
  const a = analyse(sweepOf([[1, 100], [2, 200], [4, 400]]), { thresholdPct: 5 })
  assert.equal(a.plateauReached, false)
  assert.equal(a.limit, 'range')
  assert.equal(a.sweetSpot, null, 'one verdict: not reached, so nothing to mark')
  assert.equal(a.best.value, 4)
})

test('a larger value whose small gain costs a p99 jump does not move the sweet spot; the guard can be lifted', () => {
  // The sweep: 10,000 -> 20,000 rows a batch gains 9.9% for a p99 of 9.3 s instead of 2.9 s.
  const points = sweepOf([[5000, 100, { p99: 1000 }], [10000, 140, { p99: 2900 }], [20000, 153.86, { p99: 9300 }]])
  const guarded = analyse(points, { thresholdPct: 5 })
  assert.equal(guarded.sweetSpot.value, 10000, '5,000 -> 10,000 gains 40%: worth its p99 of 2.9x')
  assert.equal(guarded.limit, 'latency')
  assert.deepEqual(guarded.latencyJump, { value: 20000, gainPct: 9.9, fromP99Ms: 2900, toP99Ms: 9300, times: 3.2 })
  assert.equal(guarded.best.value, 20000, 'the best throughput is still the best throughput')
  const lifted = analyse(points, { thresholdPct: 5, latencyGuard: 0 })
  assert.deepEqual([lifted.limit, lifted.sweetSpot], ['range', null])
})

test('when every value past the best one fails, the best is the sweet spot and the limit says why', () => {
  const a = analyse(
    sweepOf([
      [500, 100],
      [1000, 150],
      [2000, 200],
      [4000, 210, { failed: 5 }],
      [8000, 180, { failed: 50 }]
    ])
  )
  assert.equal(a.sweetSpot.value, 2000)
  assert.equal(a.limit, 'failures')
  assert.equal(a.plateauReached, false)
  assert.equal(analyse(sweepOf([[1, 100], [2, 200]])).limit, 'range')
})

test('values with failures are never the best value or the sweet spot', () => {
  const points = sweepOf([[500, 100], [1000, 150], [2000, 400, { failed: 10 }], [4000, 152]])
  const a = analyse(points)
  assert.equal(a.best.value, 4000)
  assert.equal(a.sweetSpot.value, 1000)
  assert.equal(analyse(sweepOf([[1, 100, { failed: 1 }]])).best, null)
})

test('a ramp stops on failures, on p99, or when a step gains less than the minimum', () => {
  const rising = sweepOf([[1, 100], [2, 190]])
  assert.equal(saturationReason(rising), null)
  assert.match(saturationReason(sweepOf([[1, 100], [2, 103]])), /\+3% from 1 to 2 \(target at least \+5%\)/)
  assert.match(saturationReason(sweepOf([[1, 100], [2, 80]])), /-20% from 1 to 2/)
  assert.match(saturationReason(sweepOf([[1, 100], [2, 300, { failed: 20 }]]), { maxFailurePct: 1 }),
    /1\.96% of rows failed at 2 \(limit 1%\)/)
  assert.match(saturationReason(sweepOf([[1, 100], [2, 300, { p99: 800 }]]), { maxP99Ms: 500 }),
    /^p99 800 ms at 2, over the SLO of 500 ms \(--max_p99_ms\)$/)
  const rejecting = sweepOf([[1, 100], [2, 300]])
  rejecting[1].clusterRejected = 1855
  assert.equal(saturationReason(rejecting), '1855 thread-pool rejections in sys.nodes at 2')
  const saturatedClient = sweepOf([[1, 100], [2, 300]])
  saturatedClient[1].clientSaturated = true
  assert.equal(saturationReason(saturatedClient), 'the load generator was saturated at 2: add --processes')
  assert.equal(saturationReason(sweepOf([[1, 100]])), null, 'one step has nothing to compare with')
  // Stepping --rate: the target is the yardstick, not the step before.
  const rated = (value, achieved) =>
    pointOf({
      value,
      exitCode: 0,
      result: { ...ingestResult({ ok: 1000, perSec: achieved }), rate: { target_per_sec: value } }
    })
  assert.equal(saturationReason([rated(100, 100.4), rated(200, 199)]), null, '0.5% short is within 1%')
  assert.match(saturationReason([rated(100, 100), rated(200, 150)]),
    /achieved 150 rows\/s at a target of 200 \(25% short, limit 1%\)/)
})

test('CSV: one row per value, header named after the parameter and the unit', () => {
  const csv = toCsv('batch_size', sweepOf([[500, 100], [1000, 150, { failed: 5 }]]))
  assert.equal(csv, [
    'batch_size,seconds,rows,rows_per_sec,change_pct,p99_ms,failed,in_doubt,abandoned,exit_code,partial,runs,' +
      'rows_per_sec_min,rows_per_sec_max,cluster_write_rejected',
    '500,1,1000,100,,10,0,0,0,0,false,1,100,100,',
    '1000,1,1000,150,50,10,5,0,0,1,false,1,150,150,',
    ''
  ].join('\n'))
})

test('repeated runs of a value fold into their median run; failures of any run count', () => {
  const run = (value, perSec, extra = {}) =>
    pointOf({ value, exitCode: extra.failed ? 1 : 0, result: ingestResult({ ok: 1000, perSec, ...extra }) })
  const points = combineRepeats([
    run(500, 90),
    run(500, 130),
    run(500, 100),
    run(1000, 150),
    run(1000, 170, { failed: 3, p99: 99 }),
    run(1000, 160)
  ])
  assert.deepEqual(points.map((p) => [p.value, p.throughput, p.throughputMin, p.throughputMax, p.runs, p.failed]), [
    [500, 100, 90, 130, 3, 0],
    [1000, 160, 150, 170, 3, 3]
  ])
  assert.equal(points[1].p99Ms, 10, 'the median run\'s p99, not the failed run\'s')
  assert.equal(points[1].exitCode, 1)
  assert.equal(analyse(withChanges(points)).best.value, 500, 'a value with a failed repetition is no candidate')
  assert.deepEqual(maxSpreadPct(points), { value: 500, spreadPct: 40 }, '(130 - 90) / 100')
  assert.equal(maxSpreadPct(withChanges(sweepOf([[1, 100]]))), null, 'single runs have no spread')
  // Two runs: the lower of the middle two, so a lucky run never decides alone.
  assert.equal(combineRepeats([run(1, 100), run(1, 200)])[0].throughput, 100)
})

test('values that look like numbers become numbers; others stay text', () => {
  assert.deepEqual(['500', '2.5', '0-1', 'abc'].map(parseValue), [500, 2.5, '0-1', 'abc'])
})

test('--max_p99_ms and a saturated load generator rule values out as the sweet spot', () => {
  const { analyse } = require('../../lib/sweep/sweep')
  const point = (value, throughput, p99Ms, clientSaturated = false) => ({
    value,
    throughput,
    p99Ms,
    failed: 0,
    missing: false,
    partial: false,
    clientSaturated
  })
  const points = [point(1000, 100, 3.5), point(2000, 140, 6), point(4000, 145, 11.9)]
  assert.equal(analyse(points, { thresholdPct: 5 }).sweetSpot.value, 2000)
  assert.equal(analyse(points, { thresholdPct: 5, maxP99Ms: 5 }).sweetSpot.value, 1000,
    'batch 4000 and 2000 answer too slowly')
  const saturated = [point(1, 100, 3), point(2, 180, 3), point(4, 300, 3, true)]
  assert.equal(analyse(saturated, { thresholdPct: 5 }).best.value, 2, 'the saturated client limited value 4')
})

test('CSV cells a spreadsheet would run as formulas are neutralised; numbers stay numbers', () => {
  assert.equal(csvField('=HYPERLINK("http://x")'), `"'=HYPERLINK(""http://x"")"`)
  assert.equal(csvField('+1+2'), "'+1+2")
  assert.equal(csvField('-cmd'), "'-cmd")
  assert.equal(csvField('@SUM(A1)'), "'@SUM(A1)")
  assert.equal(csvField('-5'), '-5')
  assert.equal(csvField(-5), '-5')
  assert.equal(csvField('1e3'), '1e3')
  assert.equal(csvField('a,b'), '"a,b"')
})

test('values beyond the sweet spot whose only problem is requests abandoned by the client are not called saturation',
  () => {
  const run = (value, perSec, extra = {}) =>
    pointOf({
      value,
      exitCode: extra.abandoned || extra.failed ? 1 : 0,
      result: ingestResult({ ok: 1000, perSec, ...extra })
    })
  const abandoned = analyse(
    withChanges([run(1000, 100), run(5000, 200), run(10000, 300, { inDoubt: 40000, abandoned: 40000 })])
  )
  assert.equal(abandoned.sweetSpot.value, 5000)
  assert.equal(abandoned.limit, 'abandoned')
  const lost = analyse(withChanges([run(1000, 100), run(5000, 200), run(10000, 300, { inDoubt: 10 })]))
  assert.equal(lost.limit, 'in_doubt')
  const failed = analyse(withChanges([run(1000, 100), run(5000, 200), run(10000, 300, { failed: 10 })]))
  assert.equal(failed.limit, 'failures')
})
