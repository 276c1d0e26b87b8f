'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { writeOnlyOf } = require('../../../lib/reports/sizing/planning')

// Issue 68: "measure it again … (a grid with --repeat 3)" was named for a grid that had run 3 rounds.
test('results that disagree name a next step not yet taken: more rounds than the grids ran, or --repeat 3', () => {
  const best = { per_sec: 30_000 }
  const ofRepeat = (repeat) => writeOnlyOf({ best, recommended: null, recommendations: [], disagreement: true,
    eligible: [{ grid: { repeat, source: 'grid-a' } }] }, 20)
  assert.deepEqual(ofRepeat(3), { per_sec: null, why: 'its results disagree (the warning below)',
    next: 'measure it again on a quiet cluster (its grids ran 3 rounds: --repeat 6 or a longer --duration)' })
  assert.equal(ofRepeat(1).next, 'measure it again on a quiet cluster (a grid with --repeat 3)')
})
