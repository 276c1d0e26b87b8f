'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { pairedRatio, halfWidthPct } = require('../../../lib/reports/compare/paired')
const { compareRuns } = require('../../../lib/reports/compare')
const { verdictText } = require('../../../lib/reports/compare/wording')

const run = (perSec, p99) => ({ workload: 'ingest', options: {}, seconds: 1, rows_ok: perSec, rows_per_sec: perSec,
  rows_failed: 0, rows_in_doubt: 0, errors: [], workers: [], client: {}, latency_ms: { p50: p99 / 4, p99, p999: p99 } })

// Each fork's machine is ±40% of another's; new is 5% below base within each fork, give or take 0.5%.
const MACHINE = [1, 0.6, 1.4, 0.8, 1.2]
const base = MACHINE.map((m) => run(10_000 * m, 100))
const next = MACHINE.map((m, i) => run(10_000 * m * (0.95 + [0.005, -0.005, 0, 0.004, -0.004][i]), 100))

test('paired forks see a 5% drop that pooled runs of a drifting machine cannot tell from nothing', () => {
  const pooled = compareRuns(base, next)
  const pooledRate = pooled.figures.find((f) => f.figure === 'rows/s')
  assert.equal(pooledRate.verdict, 'no significant difference')
  assert.ok(pooledRate.detectable_pct > 40, `pooled, a change under ${pooledRate.detectable_pct}% is unseen`)
  const paired = compareRuns(base, next, { paired: true })
  const rate = paired.figures.find((f) => f.figure === 'rows/s')
  assert.equal(rate.verdict, 'worse')
  assert.equal(rate.paired, true)
  assert.ok(rate.ci_pct[0] > -6 && rate.ci_pct[1] < -4, `its interval ${rate.ci_pct}`)
  assert.match(paired.method, /^paired: the ratio new \/ base of each pair/)
  assert.throws(() => compareRuns(base, next.slice(1), { paired: true }), /paired runs come in pairs: 5 base, 4 new/)
})

test('every "no significant difference" says the smallest change it could have seen', () => {
  const same = compareRuns(base, MACHINE.map((m, i) => run(10_000 * m * (1 + [0.01, -0.01, 0.005, -0.005, 0][i]), 100)),
    { paired: true })
  const rate = same.figures.find((f) => f.figure === 'rows/s')
  assert.equal(rate.verdict, 'no significant difference')
  assert.ok(rate.detectable_pct > 0.5 && rate.detectable_pct < 3, String(rate.detectable_pct))
  assert.equal(verdictText(rate), `no significant difference; a change under ${rate.detectable_pct}% would not have ` +
    'been seen')
  // A figure equal in every run: no change, and none it could miss.
  const p99 = same.figures.find((f) => f.figure === 'p99 ms')
  assert.deepEqual([p99.verdict, p99.detectable_pct], ['no significant difference', 0])
  assert.equal(verdictText({ verdict: 'worse', detectable_pct: 3 }), 'worse')
})

test('pairedRatio: the geometric mean ratio, its interval on the log scale, none without two pairs above zero', () => {
  const r = pairedRatio([[100, 110], [200, 220], [50, 55]])
  assert.deepEqual([r.change_pct, r.low_pct, r.high_pct, r.p_value, r.detectable_pct].map((x) => Math.round(x * 1e6)),
    [10e6, 10e6, 10e6, 0, 0])
  const noisy = pairedRatio([[100, 104], [100, 96], [100, 101], [100, 99]])
  assert.ok(noisy.low_pct < 0 && noisy.high_pct > 0 && noisy.p_value > 0.5)
  assert.ok(halfWidthPct(noisy) > 2 && halfWidthPct(noisy) < 8, String(halfWidthPct(noisy)))
  assert.equal(pairedRatio([[100, 110]]), null)
  assert.equal(pairedRatio([[0, 1], [100, 110]]), null)
})
