'use strict'

const { randomInt } = require('node:crypto')
const { runsLeft } = require('./plan')
const { raceOf, nextRound } = require('./racing')
const { fitsBudget, budgetSpentText } = require('../budget')
const { formatMs } = require('../../base/values')

// The runs a grid goes through, one at a time, as generators: the consumer records each run before it asks for the
// next, so that a race decides its next round from every run of the last. Rounds: every cell `repeat` times, round by
// round (lib/sweep/grid/plan.js). A race: rounds of the cells left, in a new random order each, until it stops.

// A race that neither reaches its precision nor spends its budget (a budget of days over runs of seconds) stops here.
const MAX_RACE_ROUNDS = 100

/** The runs of a grid of fixed rounds not yet done. */
function * roundSteps (cells, repeat, done) {
  yield * runsLeft(cells, repeat, done)
}

/**
 * The runs of a race, a round at a time. `cellsNow()`: the cells with their runs so far ({ id, settings, runs,
 * excluded }); `spentS()`: the time the grid's runs took so far (a resume counts the earlier ones); `walls()`: the
 * runs' wall times, for a round's estimate. `stopped(stop)` is told why it ended: the race's own stop, the budget, the
 * cap.
 */
function * raceSteps ({ cellsNow, race: { minRounds, precisionPct, budgetS }, spentS, walls, stopped,
  random = randomInt }) {
  for (;;) {
    const cells = cellsNow()
    const race = raceOf(cells, { minRounds, precisionPct })
    if (race.stop) return stopped(race.stop)
    if (race.rounds_complete >= MAX_RACE_ROUNDS) {
      return stopped({ reason: 'rounds', text: `${MAX_RACE_ROUNDS} rounds run, the most a race runs` })
    }
    const round = nextRound(race, cells, random)
    const times = walls()
    if (!fitsBudget({ runs: round.length, budgetS, spentS: spentS(), walls: times })) {
      return stopped({ reason: 'budget', text: budgetSpentText({ budget: formatMs(budgetS * 1000), spentS: spentS(),
        of: 'runs', next: 'another round', nextS: round.length * times.reduce((a, b) => a + b, 0) / times.length }) })
    }
    yield * round
  }
}

module.exports = { roundSteps, raceSteps, MAX_RACE_ROUNDS }
