'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { runFigures, cellFigures, analyseGrid, stopAlong } = require('../../../lib/sweep/grid/analysis')
const { cellsOf } = require('../../../lib/sweep/grid/plan')
const { scriptedResult } = require('../../helpers/grid-model')

const VARY = [{ name: 'batch_size', values: [100, 500, 2000, 5000] }, { name: 'concurrent_requests', values: [1, 4, 16,
  64] }]

/** Every cell of the scripted cluster, `repeat` rounds each, as the grid records them. */
function measuredCells ({ repeat = 1, failsAt } = {}) {
  return cellsOf(VARY).map((cell) => {
    const runs = Array.from({ length: repeat }, (_, i) => {
      const result = scriptedResult(cell.settings, repeat === 1 ? 2 : i + 1, { failsAt })
      return runFigures({ result, exitCode: result.rows_failed ? 1 : 0, round: i + 1,
        resultFile: `runs/${cell.id}-r${i + 1}.json`, wallS: 10 })
    })
    return cellFigures(cell, runs)
  })
}

test('a run\'s figures: throughput, field values, p50/p99 from the same run, the busiest node, the table at the start',
  () => {
  const figures = runFigures({ result: scriptedResult({ batch_size: 2000, concurrent_requests: 16 }, 2), exitCode: 0,
    round: 1, resultFile: 'runs/x.json', wallS: 12.34 })
  const keys = ['per_sec', 'field_values_per_sec', 'p50_ms', 'p99_ms', 'busiest_cpu_pct', 'write_queue_max',
    'in_flight',
    'table_at_start', 'wall_s']
  assert.deepEqual(keys.map((k) => figures[k]),
    [312_000, 3_120_000, 90, 180, 96, 16, 16, { size_bytes: 0, docs: 0, segments: 0 }, 12.3])
  const missing = runFigures({ result: null, exitCode: 3, round: 1, resultFile: 'runs/y.json' })
  assert.equal(missing.missing, true)
  assert.match(cellFigures({ id: 'y', settings: {} }, [missing]).excluded, /no result \(exit 3\)/)
})

test('the best cell is the fastest without failures; the plateau within 5% of it; recommended the cheapest there',
  () => {
  const cells = measuredCells({ failsAt: (batch, flight) => batch === 2000 && flight === 64 })
  const grid = analyseGrid(VARY, cells)
  assert.deepEqual(grid.best.settings, { batch_size: 5000, concurrent_requests: 16 })
  assert.equal(grid.best.per_sec, 320_000)
  assert.deepEqual(grid.plateau, ['batch_size-2000_concurrent_requests-16', 'batch_size-5000_concurrent_requests-16'])
  assert.equal(grid.plateau_rule, 'within 5% of the best')
  assert.deepEqual(grid.recommended.settings, { batch_size: 2000, concurrent_requests: 16 },
    'fewest in flight, then the smaller batch')
  assert.equal(grid.recommended.note, null)
  assert.deepEqual(grid.recommended.breaks.map((b) => b.reason), ['concurrent_requests 64: 400 rows failed'],
    'more batch stays fine without a latency target; more in flight fails')
  assert.equal(cells.find((c) => c.id === 'batch_size-2000_concurrent_requests-64').excluded, '400 rows failed')
})

test('with --slo the recommended cell meets the p99 target, and the first neighbour past it names what broke', () => {
  const grid = analyseGrid(VARY, measuredCells(), { sloP99Ms: 200 })
  assert.deepEqual(grid.recommended.settings, { batch_size: 2000, concurrent_requests: 16 })
  assert.equal(grid.recommended.p99_ms, 180)
  assert.deepEqual(grid.recommended.breaks.map((b) => b.reason), ['batch_size 5000: p99 420 ms over the 200 ms target',
    'concurrent_requests 64: p99 720 ms over the 200 ms target'])
  assert.equal(grid.recommended.first_break.dimension, 'batch_size')
  // A target the plateau misses: the fastest cell within it, said to be below the plateau.
  const tight = analyseGrid(VARY, measuredCells(), { sloP99Ms: 50 })
  assert.deepEqual(tight.recommended.settings, { batch_size: 2000, concurrent_requests: 4 })
  assert.match(tight.recommended.note,
    /every cell of the plateau misses the p99 target of 50 ms: the fastest cell within it, below the plateau/)
  const none = analyseGrid(VARY, measuredCells(), { sloP99Ms: 1 })
  assert.equal(none.recommended, null)
  // Every cell over the target: said as such, for a sizing to say first (issue 62).
  assert.match(none.slo_unmet, /^no cell met p99 ≤ 1 ms without failures; the nearest: batch_size \d+, /)
  assert.match(none.slo_unmet, /concurrent_requests \d+ at p99 [\d.]+ ms$/)
  assert.equal(grid.slo_unmet, null)
  assert.equal(tight.slo_unmet, null)
})

test('with repeats the plateau is the cells whose 95% interval overlaps the best\'s', () => {
  const cells = measuredCells({ repeat: 3 })
  const best = cells.find((c) => c.id === 'batch_size-5000_concurrent_requests-16')
  assert.equal(best.runs_done, 3)
  assert.equal(best.per_sec, 320_000, 'the median run')
  assert.equal(best.spread_pct, 2)
  // Runs of 316,800, 320,000 and 323,200: mean ± t(0.975, 2) · s / √3 = 320,000 ± 4.303 · 3,200 / 1.732.
  assert.deepEqual(best.ci95, { low: 312_050.76, high: 327_949.24 })
  const grid = analyseGrid(VARY, cells)
  assert.equal(grid.plateau_rule, "95% confidence intervals overlap the best's")
  assert.deepEqual(grid.plateau, ['batch_size-2000_concurrent_requests-16', 'batch_size-5000_concurrent_requests-16'])
  // Two runs: an interval 12.7 times their spread wide would take in most of the grid; the plateau stays within 5%.
  const twice = analyseGrid(VARY, measuredCells({ repeat: 2 }))
  assert.equal(twice.plateau_rule, 'within 5% of the best')
  assert.ok(twice.best.ci95 !== null, 'the interval is still reported')
})

test('sentences drawn from the numbers, as the sizing studies write them', () => {
  const grid = analyseGrid(VARY, measuredCells())
  assert.deepEqual(grid.sentences, [
    'batch_size 100 → 2000: ×3.9; beyond 2000 less than 5% (the best over the other settings)',
    'concurrent_requests 1 → 16: ×4; beyond 16 less than 5%, and down to -37.5% at worst (the best over the other ' +
      'settings)'
  ])
  // Where one dimension stops paying depends on the other: a clause per range.
  const shifted = measuredCells().map((c) => (c.settings.batch_size >= 2000 && c.settings.concurrent_requests === 64
    ? { ...c, per_sec: c.per_sec * 2 } : c))
  const sentences = analyseGrid(VARY, shifted).sentences
  assert.ok(sentences.includes('concurrent_requests stops paying at 16 for batch_size ≤ 500; still pays at 64 for ' +
    'batch_size ≥ 2000'), sentences.join('\n'))
})

test('where more stops paying along one line: the stop, the gain to it, and still climbing at the end', () => {
  const line = (values) => values.map((per_sec, i) => ({ value: i + 1, per_sec }))
  assert.deepEqual(stopAlong(line([10, 20, 20.5, 15]), 5).stop.value, 2)
  assert.equal(stopAlong(line([10, 20, 20.5, 15]), 5).fall_pct, -25)
  assert.equal(stopAlong(line([10, 20, 40]), 5).climbing, true)
  assert.equal(stopAlong(line([10, null, 40]), 5).stop.value, 3, 'a value without a candidate is passed over')
  assert.equal(stopAlong(line([10]), 5), null)
})

// Issue 68: the figure a sizing plans with stood on a cell over the grid's own SLO (p99 1,230.85 ms with slo p99=1s).
test('cells the runs cannot tell apart are one choice only within the SLO: a faster cell over it is never the figure',
  () => {
    const dims = [{ name: 'batch_size', values: [1000, 2000] }, { name: 'concurrent_requests', values: [4, 8] }]
    const cell = (batch, flight, perSec, low, high, p99) => ({ id: `b${batch}-c${flight}`, excluded: null,
      settings: { batch_size: batch, concurrent_requests: flight }, unit: 'rows', runs_done: 3, per_sec: perSec,
      per_sec_min: low, per_sec_max: high, spread_pct: 30, ci95: { low, high, clipped: false }, p99_ms: p99,
      in_flight: flight, batch_size: batch })
    // Four cells within noise of each other; the two at 8 in flight over a 1-s p99 target, one of them the best
    // bounded (its interval's low end the highest).
    const cells = [cell(1000, 4, 30_000, 24_000, 36_000, 600), cell(2000, 4, 31_000, 25_000, 37_000, 900),
      cell(1000, 8, 32_000, 27_000, 37_000, 1100), cell(2000, 8, 33_000, 28_000, 38_000, 1230.85)]
    const free = analyseGrid(dims, cells)
    assert.ok(free.undecided, 'the runs cannot tell these cells apart')
    assert.equal(free.equivalent.id, 'b2000-c8', 'without an SLO the best bounded')
    const bound = analyseGrid(dims, cells, { sloP99Ms: 1000 })
    assert.deepEqual(bound.equivalent.cells, ['b1000-c4', 'b2000-c4'])
    assert.equal(bound.equivalent.id, 'b2000-c4')
    assert.ok(bound.equivalent.p99_ms <= 1000)
    assert.equal(bound.equivalent.text, 'these cells are equivalent within noise; any of them (within p99 ≤ 1 s; 2 ' +
      'cells of the plateau over it left out)')
    // None within it: no equivalent cells, no figure, and the grid says so with the nearest.
    const none = analyseGrid(dims, cells, { sloP99Ms: 500 })
    assert.equal(none.equivalent, null)
    assert.equal(none.recommended, null)
    assert.equal(none.slo_unmet, 'no cell met p99 ≤ 500 ms without failures; the nearest: batch_size 1000, ' +
      'concurrent_requests 4 at p99 600 ms')
  })
