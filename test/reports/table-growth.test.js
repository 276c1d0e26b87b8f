'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { tableGrowth } = require('../../lib/reports/table-growth')
const { gridOf } = require('../../lib/sweep/grid/model')
const { gridText } = require('../../lib/sweep/grid/report')
const { runFigures } = require('../../lib/sweep/grid/analysis')
const { scriptedResult } = require('../helpers/grid-model')

const cells = (...docsPerCell) => ({ cells: docsPerCell.map((docs) => ({
  table_at_start: docs.map((d) => ({ docs: d })) })) })

test('a filled table that grew several-fold through a study is named; an empty or steady one is not', () => {
  assert.deepEqual(tableGrowth(cells([1_000_000, 2_000_000], [3_500_000])), { first: 1_000_000, last: 3_500_000 })
  assert.equal(tableGrowth(cells([1_000_000, 2_000_000], [2_900_000])), null, 'under three times')
  assert.equal(tableGrowth(cells([0, 0], [0])), null, 'every run on an empty table of its own')
  assert.equal(tableGrowth({ cells: 'forged' }), null)
})

test('the grid says when its prefilled table grew several-fold under its cells', () => {
  const vary = [{ name: 'batch_size', values: [500, 2000] }, { name: 'concurrent_requests', values: [4, 16] }]
  let docs = 1_000_000
  const grid = gridOf({ workload: 'ingest', vary, repeat: 1, slo_p99_ms: null, plateau_pct: 5, fixed_text: '' },
    (id) => {
      const [, batch, flight] = /batch_size-(\d+)_concurrent_requests-(\d+)/.exec(id).map(Number)
      const result = scriptedResult({ batch_size: batch, concurrent_requests: flight }, 2)
      result.table_storage = { start: { docs, size_bytes: 1, segments: 1 } }
      docs *= 2
      return [runFigures({ result, exitCode: 0, round: 1, resultFile: `runs/${id}-r1.json` })]
    })
  assert.match(gridText(grid), /^table grew: from 1,000,000 to 8,000,000 rows through the study \(×8\): the later /m)
})
