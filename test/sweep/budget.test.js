'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { fitsBudget, timeLeftS, minutes, budgetSeconds, budgetSpentText, DEFAULT_BUDGET } =
  require('../../lib/sweep/budget')

test('a round or a fork runs when the budget left holds it at the runs\' mean time; the first always', () => {
  assert.equal(fitsBudget({ runs: 4, budgetS: 100, spentS: 0, walls: [] }), true)
  assert.equal(fitsBudget({ runs: 4, budgetS: 100, spentS: 60, walls: [10, 10] }), true)
  assert.equal(fitsBudget({ runs: 4, budgetS: 100, spentS: 61, walls: [10, 10] }), false)
  assert.equal(fitsBudget({ runs: 4, budgetS: null, spentS: 1e9, walls: [10] }), true)
  // A comparison's fork: one more at the forks' mean time.
  assert.equal(fitsBudget({ budgetS: 300, spentS: 212, walls: [106] }), false)
  assert.equal(fitsBudget({ budgetS: 318, spentS: 212, walls: [106] }), true)
})

test('the time left: the mean of the runs done, else the plan\'s, else none', () => {
  assert.equal(timeLeftS(4, []), null)
  assert.equal(timeLeftS(4, [10, 30]), 80)
  assert.equal(timeLeftS(3, [], 50), 150)
  assert.equal(timeLeftS(3, [100], 50), 300, 'the runs done win over the plan')
})

test('a time as a progress line says it, and the budget a race or a comparison takes when none is given', () => {
  assert.equal(minutes(40), '40 s')
  assert.equal(minutes(150), '3 min')
  assert.equal(minutes(9000), '2.5 h')
  assert.equal(budgetSeconds('20m'), 1200)
  assert.equal(budgetSeconds(undefined), budgetSeconds(DEFAULT_BUDGET))
  assert.throws(() => budgetSeconds('soon', 'grid.budget'), /grid\.budget/)
})

test('a budget spent is said in one wording by a race and by a comparison', () => {
  assert.equal(budgetSpentText({ budget: '20m', spentS: 1080.4, of: '6 forks', nextS: 180 }),
    'the budget of 20m is spent (18m of 6 forks; another would take about 3m)')
  assert.equal(budgetSpentText({ budget: '4m', spentS: 230, of: 'runs', next: 'another round', nextS: 60 }),
    'the budget of 4m is spent (3.83m of runs; another round would take about 1m)')
})
