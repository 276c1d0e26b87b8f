'use strict'

// Every SVG chart the sweeps and find-capacity draw, at one value and at ten, with long names and a long subtitle.
// The axes must cover the values and no more; with Chromium, every text is measured where it was laid out: none may
// overlap another or be cut at the picture's edge (a screenshot of each is left beside it in the temp dir).

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { renderCapacityChart, capacityChartOption } = require('../../lib/sweep/capacity-chart')
const { renderSweepChart, formatCount } = require('../../lib/sweep/sweep-chart')
const { wrapLines } = require('../../lib/reports/html/svg-chart')
const { NO_CHROMIUM, textLayout } = require('../helpers/chromium')
const { tempDir } = require('../helpers/temp-files')

if (NO_CHROMIUM) console.log(`# ${NO_CHROMIUM}`)

const LONG_SUBTITLE = 'with --processes 4 --concurrent_requests 20 --shards 12 --replicas 1 --model tsbs-cpu --table ' +
  'doc.a_benchmark_table_with_a_long_name --ingest_rate 20000 --duration 10m --warmup 30s\n' +
  'sweet spot: batch_size=16000 (34,000 rows/s); larger values gain at most 2.5% (threshold 5%), and those values ' +
    'had failures'

function capacitySteps (n) {
  return Array.from({ length: n }, (_, i) => {
    const rate = 1000 * 2 ** i
    return { rate, achieved: i < n - 1 ? rate : rate * 0.7, p99_ms: 40 * 3 ** i, passed: i < n - 1 || n === 1 }
  })
}

function sweepPoints (n) {
  return Array.from({ length: n }, (_, i) => ({
    value: 500 * 2 ** i,
    throughput: 10_000 + i * 3000,
    p99Ms: 20 + i * i * 30,
    failed: i === n - 1 && n > 1 ? 4000 : 0,
    runs: 3,
    runThroughputs: [9000, 10_000, 11_000].map((t) => t + i * 3000),
    clusterWriteRejected: i * 100
  }))
}

const CHARTS = {
  'capacity-1': () => renderCapacityChart({ capacity: null, unit: 'queries', slo: { p99_ms: 2500 },
    steps: capacitySteps(1) }),
  'capacity-10': () => renderCapacityChart({ capacity: 256_000, unit: 'rows', slo: { p99_ms: 2500 },
    steps: capacitySteps(10) }),
  'sweep-1': () => {
    const points = sweepPoints(1)
    return renderSweepChart({ parameter: 'batch_size', unit: 'rows', title: 'batch-size sweep', subtitle: LONG_SUBTITLE,
      points, analysis: { sweetSpot: points[0] } })
  },
  'sweep-10': () => {
    const points = sweepPoints(10)
    return renderSweepChart({ parameter: 'batch_size', unit: 'rows',
      title: 'batch-size sweep: rows/s and p99 against batch_size', subtitle: LONG_SUBTITLE, points,
        analysis: { sweetSpot: points[8] } })
  }
}

const texts = (svg) => [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1])

test('capacity: the steps stand as far apart as their rates, a tick at each; the misses in the legend\'s red; the ' +
  'SLO line with its label', () => {
  // The new user's ramp: 25, 50, 100, 200, then bisection to 150, 125, 137.5, 131.25.
  const rates = [25, 50, 100, 200, 150, 125, 137.5, 131.25]
  const steps = rates.map((rate) => ({
    rate,
    achieved: Math.min(rate, 125),
    p99_ms: rate > 125 ? 900 : 40,
    passed: rate <= 125
  }))
  const option = capacityChartOption({ capacity: 125, unit: 'queries', slo: { p99_ms: 250 }, steps })
  assert.equal(option.xAxis.type, 'value')
  assert.deepEqual(option.xAxis.axisTick.customValues, [...rates].sort((a, b) => a - b))
  assert.deepEqual(option.series[0].data.map(([x]) => x), [...rates].sort((a, b) => a - b), 'each step at its own rate')
  const missed = option.series.find((s) => s.name === 'missed the SLO')
  assert.deepEqual(missed.data.map(([x]) => x), [131.25, 137.5, 150, 200])
  assert.equal(option.color[option.legend.data.indexOf('missed the SLO')], missed.itemStyle.color,
    'the legend\'s colour is the marks\'')
  const ten = texts(CHARTS['capacity-10']())
  assert.ok(ten.includes('SLO 2500 ms'))
  assert.ok(ten.includes('capacity 256000'))
  const one = texts(CHARTS['capacity-1']())
  assert.ok(one.includes('SLO 2500 ms'), 'the SLO is drawn even when the p99 stayed far below it')
})

test('sweep: a log axis labelled at every value tried and nowhere else; a long subtitle wrapped within the picture',
  () => {
  const ten = texts(CHARTS['sweep-10']())
  for (const value of sweepPoints(10).map((p) => p.value)) assert.ok(ten.includes(formatCount(value)),
    `${value} labelled`)
  assert.ok(!ten.includes('100k') && !ten.includes('1M'), 'no power of ten that was not tried')
  const lines = wrapLines(LONG_SUBTITLE)
  assert.ok(lines.length >= 3, 'the long subtitle takes several lines')
  assert.ok(lines.every((l) => l.length <= 120), 'each fits in the 900 px picture')
  assert.equal(lines.join(' '), LONG_SUBTITLE.replace('\n', ' '), 'wrapping loses no word')
})

for (const [name, draw] of Object.entries(CHARTS)) {
  test(`${name}: no text overlaps another or leaves the picture (Chromium)`, { skip: NO_CHROMIUM }, (t) => {
    const file = path.join(tempDir(t), `${name}.svg`)
    fs.writeFileSync(file, draw())
    const layout = textLayout(file, { width: 900, height: 500 })
    assert.ok(layout.texts > 10, `${layout.texts} texts measured`)
    assert.deepEqual(layout.overlaps, [])
    assert.deepEqual(layout.outside, [])
  })
}
