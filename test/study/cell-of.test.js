'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { cellOf, mixedStart } = require('../../lib/study/sizing-study')

// Issue 68: the mixed capacity and the sustained run ran at the grid's fastest cell (p99 2,678 ms against a 1,000-ms
// SLO) while the write-only figure came from another cell.
test('the later parts run at the cell the figure to plan with stands on, never at a cell over the study\'s SLO', () => {
  const cell = (batch, flight, perSec, p99) => ({ id: `b${batch}-c${flight}`, unit: 'rows', rows_per_sec: perSec,
    p99_ms: p99, excluded: null, settings: { batch_size: batch, concurrent_requests: flight },
    median_result_file: `runs/b${batch}-c${flight}-r2.json`, ci95: { low: perSec * 0.9, high: perSec * 1.1 } })
  const cells = [cell(1000, 4, 30_000, 600), cell(5000, 4, 36_000, 900), cell(5000, 16, 41_000, 2678)]
  const fastest = cells[2]
  assert.deepEqual(cellOf({ unit: 'rows', slo_p99_ms: 1000, cells, best: fastest, recommended: cells[1] }),
    { settings: { batch_size: 5000, concurrent_requests: 4 }, per_sec: 36_000, which: 'recommended' })
  assert.equal(cellOf({ unit: 'rows', cells, recommended: { ...cells[0], untested: 'one run' } }).which,
    'recommended (untested: one run a cell)')
  assert.deepEqual(cellOf({ unit: 'rows', slo_p99_ms: 1000, cells, best: fastest, recommended: null,
    equivalent: cells[0] }).settings, cells[0].settings)
  // The grid recommended nothing: the fastest cell within the SLO, not the fastest.
  assert.deepEqual(cellOf({ unit: 'rows', slo_p99_ms: 1000, cells, best: fastest, recommended: null }),
    { settings: cells[1].settings, per_sec: 36_000, which: 'fastest within the SLO (the grid recommended none)' })
  assert.deepEqual(cellOf({ unit: 'rows', slo_p99_ms: null, cells, best: fastest, recommended: null }).settings,
    cells[2].settings)
  assert.equal(cellOf({ unit: 'rows', slo_p99_ms: 500, cells, best: fastest, recommended: null }), null,
    'no cell within the SLO: nothing to run the later parts at')
})

test('the mixed capacity starts from a quarter of its cell\'s write-only rate, unless the study file says where',
  () => {
  assert.deepEqual(mixedStart({ mixed: {} }, { per_sec: 36_000 }), { start: 9000, from: 'a quarter of the cell\'s ' +
    '36,000 rows/s write-only' })
  assert.deepEqual(mixedStart({ mixed: { start: 1000 } }, { per_sec: 36_000 }), { start: 1000,
    from: 'the study file' })
  assert.equal(mixedStart({ mixed: {} }, { per_sec: null }).start, null)
})
