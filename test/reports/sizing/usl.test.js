'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { fitUsl } = require('../../../lib/reports/sizing/usl')
const { sizingOf } = require('../../../lib/reports/sizing')
const { renderSizingHtml } = require('../../../lib/reports/sizing/html')
const { tempDir } = require('../../helpers/temp-files')

const usl = (lambda, sigma, kappa) => (n) => (lambda * n) / (1 + sigma * (n - 1) + kappa * n * (n - 1))

test('the Universal Scalability Law fitted from four sizes or more: its parameters, the limiting term, the peak',
  () => {
  const contended = fitUsl([1, 2, 4, 8, 16].map((nodes) => ({ nodes, per_sec: usl(1000, 0.05, 0.002)(nodes) })))
  const keys = ['lambda', 'sigma', 'kappa', 'r2', 'limited_by', 'peak_nodes']
  assert.deepEqual(keys.map((k) => contended[k]), [1000, 0.05, 0.002, 1, 'contention', 21.8])
  const coherent = fitUsl([3, 6, 9, 12].map((nodes) => ({ nodes, per_sec: usl(500, 0.001, 0.01)(nodes) })))
  assert.equal(coherent.limited_by, 'coherency')
  assert.equal(coherent.peak_nodes, 10, '√((1 − 0.001) / 0.01)')
  const linear = fitUsl([3, 6, 9, 12].map((nodes) => ({ nodes, per_sec: 800 * nodes })))
  assert.deepEqual([linear.sigma, linear.kappa, linear.limited_by, linear.peak_nodes], [0, 0,
    'nothing measured (linear)', null])
  // Better than linear (caches) fits no non-negative term but λ: a line through the mean, said as it is.
  const superlinear = fitUsl([1, 2, 3, 4].map((nodes) => ({ nodes, per_sec: 100 * nodes ** 1.2 })))
  assert.deepEqual([superlinear.sigma, superlinear.kappa], [0, 0])
  assert.ok(superlinear.r2 < 1)
  assert.equal(fitUsl([3, 6, 9].map((nodes) => ({ nodes, per_sec: 800 * nodes }))), null, 'three sizes: no fit')
  assert.equal(fitUsl([3, 3, 6, 9].map((nodes) => ({ nodes, per_sec: 800 * nodes }))), null, 'sizes, not points, count')
})

const GB = 2 ** 30
const point = (nodes, perSec, { shared = false, cores = 8 } = {}) => ({
  source: `${nodes}.json`, workload: 'ingest', model: 'cpu', unit: 'rows', throughput: perSec,
    field_values_per_sec: null,
  p99_ms: 40 + nodes, replicas: 0, settings: { batch_size: 5000 }, problems: [],
  protocol: 'http', row_shape: {}, runs: 1, ci95: null, recommended: null, undecided: null,
  shape: { nodes, cores_per_node: cores, heap_bytes_per_node: 8 * GB, shared_machine: shared }
})

test('sizing fits the law per machine size from four sizes, leaves out shared machines, and says when it cannot',
  () => {
  const f = usl(100_000, 0.03, 0.001)
  const [group] = sizingOf([3, 6, 9, 12].map((n) => point(n, f(n)))).groups
  assert.equal(group.usl.length, 1)
  const fit = group.usl[0]
  assert.deepEqual([fit.cores_per_node, fit.sizes, fit.sigma, fit.kappa], [8, [3, 6, 9, 12], 0.03, 0.001])
  assert.equal(group.usl[0].curve.length, 18)
  assert.equal(group.usl_note, null)
  const [withShared] = sizingOf([3, 6, 9].map((n) => point(n, f(n))).concat(point(12, f(12), { shared: true }))).groups
  assert.deepEqual(withShared.usl, [])
  assert.equal(withShared.usl_note,
    'the Universal Scalability Law needs 4 cluster sizes or more of the same machines, ' +
    'none sharing one: 3 here; 1 left out: nodes sharing a machine; no fit')
  const bigger = [9, 12].map((n) => point(n, f(n), { cores: 16 }))
  const [mixed] = sizingOf([3, 6].map((n) => point(n, f(n))).concat(bigger)).groups
  assert.deepEqual(mixed.usl, [], 'two machine sizes of two cluster sizes each: no fit')
  assert.match(mixed.usl_note, /: 2 here \(the most of one machine size; 2 machine sizes given\); no fit$/)
})

test('sizing.html: real tables, throughput against size with intervals, the linear line and the fit, p99 beside it',
  (t) => {
  const f = usl(100_000, 0.03, 0.001)
  const withInterval = (n) => ({ ...point(n, f(n)), ci95: { low: f(n) * 0.95, high: f(n) * 1.05 } })
  const sizing = sizingOf([3, 6, 9].map(withInterval).concat(point(12, f(12), { shared: true })))
  const file = path.join(tempDir(t), 'sizing.html')
  fs.writeFileSync(file, renderSizingHtml(sizing))
  const html = fs.readFileSync(file, 'utf8')
  assert.equal((html.match(/<svg/g) || []).length, 2)
  assert.doesNotMatch(html, /<pre>/, 'tables, not the terminal\'s box drawing')
  assert.equal((html.match(/<tr>/g) || []).length, 1 + 4, 'a head and a row per cluster shape')
  assert.match(html, /<th>best measured rows\/s<\/th>/)
  assert.match(html, /linear \(3 nodes × N\)/)
  assert.match(html, /95% interval of the best/)
  assert.match(html, /nodes sharing a machine \(no scaling figure\)/)
  assert.match(html, /p99 at each size/)
})
