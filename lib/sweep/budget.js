'use strict'

const { fmt } = require('../base/format')
const { parseDuration, formatMs } = require('../base/values')

// The rules of time every study that repeats its runs shares (a racing grid's rounds, a comparison's forks, a
// study's shapes): the budget a run of them may take when none is given, the most forks a comparison runs, whether
// one more round or fork fits what is left, the time left, and how a time is said.

// A race or a comparison asked a precision and no budget stops at this much time of runs.
const DEFAULT_BUDGET = '1h'
// A comparison that neither reaches its precision nor spends its budget stops at this many forks.
const MAX_FORKS = 100

/** A budget's text ('30m', '2h', or none: DEFAULT_BUDGET) as seconds; a bad one is a usage error naming `key`. */
const budgetSeconds = (text, key = 'budget') => parseDuration(text ?? DEFAULT_BUDGET, key) / 1000

const mean = (values) => values.reduce((a, b) => a + b, 0) / values.length

/**
 * Whether `runs` more runs fit in what is left of `budgetS` (null: no budget) after `spentS`, at the mean of the
 * `walls` done so far: the first always runs (nothing is known of a run's time before it).
 */
function fitsBudget ({ runs = 1, budgetS, spentS, walls }) {
  if (budgetS === null || walls.length === 0) return true
  return spentS + mean(walls) * runs <= budgetS
}

/**
 * The time left for `left` more runs (cells, shapes, forks): the mean of the `walls` done so far, or the plan's
 * `planS` a run before any ran (null when there is none: an estimate the progress line shows, never a figure).
 */
function timeLeftS (left, walls, planS = null) {
  if (walls.length) return mean(walls) * left
  return planS === null ? null : planS * left
}

/** A time as a person reads it on a progress line: "40 s", "12 min", "2.5 h". */
const minutes = (s) => (s >= 5400 ? `${fmt(Math.round(s / 360) / 10)} h` : s >= 90 ? `${Math.round(s / 60)} min`
  : `${Math.round(s)} s`)

/**
 * "the budget of 20m is spent (18m 5s of 6 forks; another would take about 3m 20s)": a race's and a comparison's
 * stop, in one wording. `budget` as the user gave it, `spentS` what ran, `of` what it ran ("6 forks", "runs"),
 * `nextS` what one more step would take and `next` what that step is ("another", "another round").
 */
const budgetSpentText = ({ budget, spentS, of, nextS, next = 'another' }) => `the budget of ${budget} is spent ` +
  `(${formatMs(Math.round(spentS) * 1000)} of ${of}; ${next} would take about ${formatMs(Math.round(nextS) * 1000)})`

module.exports = { DEFAULT_BUDGET, MAX_FORKS, budgetSeconds, fitsBudget, timeLeftS, minutes, budgetSpentText }
