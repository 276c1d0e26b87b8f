'use strict'

const { fmt, round } = require('../base/format')
const { formatMs, parseDuration } = require('../base/values')
const { BenchmarkOptions } = require('../cli/benchmark-options')
const { steadyCapOf } = require('../cli/warmup-options')
const { budgetSeconds } = require('../sweep/budget')
const { studentTQuantile } = require('../reports/compare/welch')
const { forkResult } = require('./forks')
const { ratioNoise, blockFor, fewestIn } = require('./window-noise')

// How long each run of a comparison that asks a precision measures. After the first fork, its runs' ratio is
// projected over the forks the budget holds: from the noise of the ratio within their measured windows where their
// timelines give it (window-noise.js: it narrows as 1 / √length), else from their count of answers alone (a window's
// two ends each cut an answer's share of it: 0.58 / N a pair). Runs whose projection takes more than half the
// precision asked measure longer from the next fork on: the shortest length that brings it within that half, or else
// the length whose forks reach the narrowest interval, as long as the budget still holds MIN_MORE_FORKS more forks;
// the first fork is then their pilot, compared no more (forks.js pairedForks). Measured on this machine's A/A duets
// (docs/study.md), the ratio's noise within a duet's window is most of what moves it from duet to duet, so a longer
// window narrows the interval more than the forks it costs widen it, up to a point the projection finds.
// run.lengthen: false keeps the --duration given, and says it.

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
  const options = BenchmarkOptions.parse(study.run.args).withSteadyWarmup()
  const warmup = options.get('warmup')
  const capMs = steadyCapOf(warmup)
  const warm = capMs !== null ? `warms up until its rate is steady (at most ${formatMs(capMs)})`
    : warmup !== undefined && String(warmup) !== '0' ? `warms up for ${warmup}` : 'has no warm-up'
  const durationText = options.get('duration')
  if (durationText === undefined) return `each run ${warm} and ends at a count`
  const head = `each run ${warm}, then measures ${durationText}`
  if (secondsOf(durationText) === null || !study.precision) return head
  const after = study.run.lengthen === false ? `run.lengthen: false keeps ${durationText}; runs too short for it ` +
    'are said after fork 1' : 'after fork 1, runs whose ratio moved too much within their windows for it measure ' +
    `longer, as far as the budget holds ${MIN_MORE_FORKS} more forks (run.lengthen: false keeps ${durationText})`
  return `${head}: for ±${study.precision}, ${after}`
}

/** Each contender's result of fork `fork`, null where it has none. */
const resultsOf = ({ contenders, dir, fork }) => contenders.map((c) => forkResult(dir, fork, c.name))

/** The half-width (points) of a ratio over `forks` pairs of runs of `requests` answers each, from the count alone. */
const countPoints = (requests, forks) => (forks < 2 || !(requests > 0) ? Infinity
  : studentTQuantile(0.975, forks - 1) * RATIO_COUNT_SD / requests / Math.sqrt(forks) * 100)

/**
 * How fork 1's ratio moves with its runs' length, as a projection over forks ({ basis, seen, pointsAt }): from the
 * runs' timelines where they give one (window-noise.js: the ratio's noise per second of window, which a window of
 * T seconds narrows as 1 / √T); else from their count of requests alone (0.58 / N a pair).
 */
function projectionOf ({ study, results, fork, givenS, fewest }) {
  const blockS = blockFor(fewest)
  const noise = results.every(Boolean) ? ratioNoise(results, { windowS: givenS, together: Boolean(study.duet),
    blockS }) : null
  if (noise) {
    return { basis: 'window noise', pointsAt: (lengthS, forks) => noisePoints(noise.per_second_var / lengthS, forks),
      seen: `fork ${fork}'s runs: their throughput ratio moved ±${fmt(round(noise.block_sd_pct, 1))}% from one ` +
        `${noise.block_s}-s block of their ${fmt(givenS)}-s windows to the next: at that noise the ratio's interval ` +
        'is' }
  }
  const perS = Math.max(1, fewest.requests) / fewest.seconds
  return { basis: 'count', perS, pointsAt: (lengthS, forks) => countPoints(perS * lengthS, forks),
    seen: `fork ${fork}'s runs measured as few as ${fewest.requests} requests in their ${fmt(fewest.seconds)}-s ` +
      'windows: their count alone moves the ratio by' }
}

/** The half-width (points) of a ratio over `forks` pairs whose log ratio has the variance `pairVariance` a pair. */
const noisePoints = (pairVariance, forks) => (forks < 2 ? Infinity
  : studentTQuantile(0.975, forks - 1) * Math.sqrt(pairVariance / forks) * 100)

// Lengths whose projections are this close to the narrowest count as narrow: the shortest of them is taken (the
// most forks, should some of a duet's spread not shrink with its length).
const NARROW_SHARE = 1.02

/**
 * After fork `fork` of a comparison that asks a precision: whether its runs' ratio, projected over the forks the
 * budget holds (projectionOf), takes more than COUNT_SHARE of the precision, and what the forks that follow do about
 * it: from the next fork on, the shortest length that brings it within that half, or else the length whose forks
 * reach the narrowest interval, as long as the budget still holds MIN_MORE_FORKS more. `wallS`: the fork's time,
 * `spentS`: the forks' time so far (this fork's in it). Null when the runs give no count (or end at one); { line }
 * when they keep their length (within it, run.lengthen: false, or no room in the budget); { duration, given,
 * from_fork, basis, projected_points, line } when the runs that follow measure `duration`.
 */
function runLengthAfter ({ study, contenders, dir, fork, wallS, spentS }) {
  if (!study.precision) return null
  const given = durationOf(study.run.args)
  const givenS = secondsOf(given)
  const results = resultsOf({ contenders, dir, fork })
  const fewest = fewestIn(results)
  if (givenS === null || !fewest || !(fewest.seconds > 0) || !(wallS > 0)) return null
  const precision = Number.parseFloat(study.precision)
  const allowed = precision * COUNT_SHARE
  const leftS = budgetSeconds(study.budget) - spentS
  // Each further fork takes its time so far plus the longer windows: one run's more in a duet, every contender's
  // one after another in paired forks. A lengthened study compares only the forks at the new length.
  const runsPerFork = study.duet ? 1 : contenders.length
  const forksAt = (lengthS) => (lengthS === givenS ? fork + Math.floor(leftS / wallS)
    : Math.floor(leftS / (wallS + (lengthS - givenS) * runsPerFork)))
  const projection = projectionOf({ study, results, fork, givenS, fewest })
  const pointsAt = (lengthS) => projection.pointsAt(lengthS, forksAt(lengthS))
  const nowPoints = pointsAt(givenS)
  const seen = `${projection.seen} ±${fmt(round(nowPoints, 1))} points over the ` +
    `${forksAt(givenS)} forks the budget holds`
  if (nowPoints <= allowed) {
    return { line: `${seen}, within half the ±${study.precision} asked: each run keeps ${given}` }
  }
  const lengths = []
  for (let s = givenS + STEP_S; s <= MAX_LENGTH_S; s += STEP_S) lengths.push(s)
  const enough = lengths.find((s) => pointsAt(s) <= allowed && forksAt(s) >= 2)
  const within = lengths.filter((s) => forksAt(s) >= MIN_MORE_FORKS)
  const narrowest = Math.min(...within.map(pointsAt))
  const narrow = within.find((s) => pointsAt(s) <= narrowest * NARROW_SHARE)
  const lengthS = within.includes(enough) ? enough : narrow
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
  const expected = projection.basis === 'count' ? `about ${Math.floor(projection.perS * lengthS)} requests: ` : ''
  const why = lengthS === enough ? '' : `, the narrowest the budget reaches with ${MIN_MORE_FORKS} more forks or more`
  return { duration, given, from_fork: fork + 1, basis: projection.basis, projected_points: points,
    line: `${over}; from fork ${fork + 1} on each run measures ${duration} instead of ${given} (${expected}` +
      `±${fmt(points)} points over ${forksAt(lengthS)} forks${why}), and only those forks are compared (fork ` +
      `${fork}'s results stay in forks/; run.lengthen: false keeps ${given})` }
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

module.exports = { runDesignLine, runLengthAfter, durationFor, countPoints, noisePoints, resultsOf, MIN_MORE_FORKS }
