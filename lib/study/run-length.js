'use strict'

const { fmt, round } = require('../base/format')
const { formatMs, parseDuration } = require('../base/values')
const { BenchmarkOptions } = require('../sweep/benchmark-options')
const { steadyCapOf } = require('../cli/warmup-options')
const { withSteadyWarmup } = require('../sweep/benchmark-run')
const { budgetSeconds } = require('../sweep/budget')
const { studentTQuantile } = require('../reports/compare/welch')
const { forkResult } = require('./forks')

// How long each run of a comparison that asks a precision measures. A throughput is a count of answers over a
// window, and the window's two ends each cut an answer's share of it: a count of N answers moves a duet's ratio by
// about 0.58 / N (as a share) between otherwise equal runs. After the first fork, runs whose count alone would take
// more than half the precision asked, over the forks the budget holds, measure longer from the next fork on: the
// shortest length that brings it within that half, as far as the budget still holds MIN_MORE_FORKS more forks; the
// first fork is then their pilot, compared no more (forks.js pairedForks). No longer than that: on this machine an
// A/A duet's ratio moved ±4.4% from duet to duet whatever the length (a fresh node's luck, the machine's other work),
// so the forks a longer run costs narrow the interval more than its count does (docs/study.md: 110-s and 90-s runs
// were ±2.1 and ±8.1 points where 20-s ones were ±3.7). run.lengthen: false keeps the --duration given, and says it.

// The sd of a ratio of two runs' counts, in answers: each run's window ends cut ±0.5 answer at each end (uniform),
// 1/6 of an answer squared each run, two runs.
const RATIO_COUNT_SD = Math.sqrt(2 / 6)
// The runs measure longer only when their count alone takes more than this share of the precision asked.
const COUNT_SHARE = 0.5
// Forks a lengthened comparison still runs within its budget: fewer, and a longer run buys less than the forks lost
// (a 95% interval of 4 pairs is twice as wide as one of 9 at the same spread: t(3) / 2 against t(8) / 3).
const MIN_MORE_FORKS = 4
// Lengthened runs measure whole tens of seconds, at most an hour.
const STEP_S = 10
const MAX_LENGTH_S = 3600

const durationOf = (args) => BenchmarkOptions.parse(args).get('duration')

/** Seconds of a duration as run.args give it, or null (none, or one the benchmark will name as bad). */
function secondsOf (text) {
  if (text === undefined || text === null) return null
  try {
    return parseDuration(text, 'duration') / 1000
  } catch {
    return null
  }
}

/**
 * How each run of a comparison is made, said before the first fork: its warm-up, its measured window and, with a
 * precision asked, what happens after fork 1 to runs whose count of requests is too coarse for it.
 */
function runDesignLine (study) {
  const options = BenchmarkOptions.parse(withSteadyWarmup(study.run.args))
  const warmup = options.get('warmup')
  const capMs = steadyCapOf(warmup)
  const warm = capMs !== null ? `warms up until its rate is steady (at most ${formatMs(capMs)})`
    : warmup !== undefined && String(warmup) !== '0' ? `warms up for ${warmup}` : 'has no warm-up'
  const durationText = options.get('duration')
  if (durationText === undefined) return `each run ${warm} and ends at a count`
  const head = `each run ${warm}, then measures ${durationText}`
  if (secondsOf(durationText) === null || !study.precision) return head
  const after = study.run.lengthen === false ? `run.lengthen: false keeps ${durationText}; runs too short for it ` +
    'are said after fork 1' : 'after fork 1, runs whose count of requests alone would take more than half of it ' +
    `measure longer, as far as the budget holds ${MIN_MORE_FORKS} more forks (run.lengthen: false keeps ` +
    `${durationText})`
  return `${head}: for ±${study.precision}, ${after}`
}

/** The fewest requests a run of fork `fork` measured, with its window: { requests, seconds }, or null. */
function fewestOf ({ contenders, dir, fork }) {
  const counts = contenders.map((c) => forkResult(dir, fork, c.name)).filter(Boolean)
    .map((r) => ({ requests: r.requests, seconds: r.seconds })).filter((r) => Number.isFinite(r.requests))
  if (counts.length === 0) return null
  return counts.reduce((a, r) => (r.requests < a.requests ? r : a))
}

/** The half-width (points) of a ratio over `forks` pairs of runs of `requests` answers each, from the count alone. */
const countPoints = (requests, forks) => (forks < 2 || !(requests > 0) ? Infinity
  : studentTQuantile(0.975, forks - 1) * RATIO_COUNT_SD / requests / Math.sqrt(forks) * 100)

/**
 * After fork `fork` of a comparison that asks a precision: whether its runs' count of requests alone takes more than
 * COUNT_SHARE of the precision over the forks the budget holds, and what the forks that follow do about it. `wallS`:
 * the fork's time, `spentS`: the forks' time so far (this fork's in it). Null when the runs give no count (or end at
 * one); { line } when they keep their length (within it, run.lengthen: false, or no room in the budget); { duration,
 * given, from_fork, requests_expected, count_points, line } when the runs that follow measure `duration`.
 */
function runLengthAfter ({ study, contenders, dir, fork, wallS, spentS }) {
  if (!study.precision) return null
  const given = durationOf(study.run.args)
  const givenS = secondsOf(given)
  const fewest = fewestOf({ contenders, dir, fork })
  if (givenS === null || !fewest || !(fewest.seconds > 0) || !(wallS > 0)) return null
  const precision = Number.parseFloat(study.precision)
  const allowed = precision * COUNT_SHARE
  const perS = Math.max(1, fewest.requests) / fewest.seconds
  const leftS = budgetSeconds(study.budget) - spentS
  // Each further fork takes its time so far plus the longer windows: one run's more in a duet, every contender's
  // one after another in paired forks. A lengthened study compares only the forks at the new length.
  const runsPerFork = study.duet ? 1 : contenders.length
  const forksAt = (lengthS) => (lengthS === givenS ? fork + Math.floor(leftS / wallS)
    : Math.floor(leftS / (wallS + (lengthS - givenS) * runsPerFork)))
  const pointsAt = (lengthS) => countPoints(perS * lengthS, forksAt(lengthS))
  const nowPoints = countPoints(fewest.requests, forksAt(givenS))
  const seen = `fork ${fork}'s runs measured as few as ${fewest.requests} requests in their ${fmt(fewest.seconds)}-s ` +
    `windows: their count alone moves the ratio by ±${fmt(round(nowPoints, 1))} points over the ` +
    `${forksAt(givenS)} forks the budget holds`
  if (nowPoints <= allowed) {
    return { line: `${seen}, within half the ±${study.precision} asked: each run keeps ${given}` }
  }
  const lengths = []
  for (let s = givenS + STEP_S; s <= MAX_LENGTH_S; s += STEP_S) lengths.push(s)
  const enough = lengths.find((s) => pointsAt(s) <= allowed && forksAt(s) >= 2)
  const within = lengths.filter((s) => forksAt(s) >= MIN_MORE_FORKS)
  const lengthS = within.includes(enough) ? enough : within.at(-1)
  const instead = enough ? `--duration ${enough}s in run.args would bring it within${study.run.workload === 'ingest'
    ? ' (or smaller batches)' : ''}` : `${study.run.workload === 'ingest' ? 'smaller batches or ' : ''}more budget ` +
    'would bring it within'
  const over = `${seen}, more than half the ±${study.precision} asked`
  if (study.run.lengthen === false) return { line: `${over}: ${instead} (run.lengthen: false keeps ${given})` }
  if (lengthS === undefined || !(pointsAt(lengthS) < nowPoints)) {
    return { line: `${over}; the budget leaves no room to measure longer and still run ${MIN_MORE_FORKS} more ` +
      `forks: ${instead}${enough ? ', with more budget' : ''}` }
  }
  const duration = `${lengthS}s`
  const points = round(pointsAt(lengthS), 1)
  return { duration, given, from_fork: fork + 1, requests_expected: Math.floor(perS * lengthS), count_points: points,
    line: `${over}; from fork ${fork + 1} on each run measures ${duration} instead of ${given} (about ` +
      `${Math.floor(perS * lengthS)} requests: ±${fmt(points)} points over ${forksAt(lengthS)} forks` +
      `${lengthS !== enough ? `, as long as the budget holds ${MIN_MORE_FORKS} more` : ''}), and only those forks ` +
      `are compared (fork ${fork}'s results stay in forks/; run.lengthen: false keeps ${given})` }
}

/**
 * The --duration fork `fork` of a comparison runs at: the one run.args give, or a lengthened one from the fork it
 * was decided for on (`runLength`: runLengthAfter's, kept in study.json; `inherited`: decided by the calibration
 * before this comparison, which then runs every fork at it). Null: the one given.
 */
function durationFor (fork, runLength, { inherited = false } = {}) {
  if (!runLength || !runLength.duration) return null
  return inherited || fork >= runLength.from_fork ? runLength.duration : null
}

module.exports = { runDesignLine, runLengthAfter, durationFor, countPoints, fewestOf, MIN_MORE_FORKS }
