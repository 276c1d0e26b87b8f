'use strict'

// The bench's grid part times the grid's own bookkeeping on a grid the grid would make: every cell judged, a
// recommendation and sentences, as after the last run of a real grid. Its figures are the bench's, not a test's.

const test = require('node:test')
const assert = require('node:assert/strict')
const { gridState } = require('../../bench/grid-bookkeeping')
const { gridOf } = require('../../lib/sweep/grid/model')
const { gridJson } = require('../../lib/sweep/grid/report')

test('the bench\'s grid is whole: every cell a run, judged, with verdicts and sentences', () => {
  const { header, runsOf } = gridState(12)
  const grid = JSON.parse(JSON.stringify(gridJson(gridOf(header, runsOf))))
  assert.equal(grid.cells.length, 144)
  assert.equal(grid.complete, true)
  assert.ok(grid.cells.every((c) => c.runs_done === 1 && c.rows_per_sec > 0))
  assert.ok(grid.best && grid.best.settings, 'a best cell')
  assert.ok(grid.sentences.length >= 2, grid.sentences.join(' | '))
})
