'use strict'

const { studentTCdf, studentTQuantile, mean, variance } = require('./welch')

// Paired comparisons: runs of base and new taken together (one fork of a study, one round of a grid, one duet) meet
// the same machine, so their ratio cancels what the machine did to both; the verdict is on those ratios, not on two
// pooled means whose spread holds every drift of the machine. Ratios are judged on the log scale (a ratio of 0.5 and
// one of 2 are the same distance from 1), and read back as a change in %.

const DEFAULT_CONFIDENCE = 0.95
// The power a "no difference" states its smallest visible change at: a change of that size is seen 4 times in 5.
const POWER = 0.8

const pctOfRatio = (ratio) => (ratio - 1) * 100

/**
 * The smallest change a test of standard error `se` (on the scale the change is measured in) with `df` degrees of
 * freedom sees with POWER at the two-sided `confidence`: (t(1 − α/2) + t(power)) × se.
 */
function detectableMargin (se, df, confidence = DEFAULT_CONFIDENCE) {
  if (!(df > 0)) return null
  return (studentTQuantile(1 - (1 - confidence) / 2, df) + studentTQuantile(POWER, df)) * se
}

/**
 * The paired test of `pairs` ([base, new], each > 0): the geometric mean ratio new / base as a change in %, its
 * interval at `confidence`, the two-sided p-value, and the smallest change the pairs could have seen (`detectable_pct`,
 * at 80% power). Null for fewer than two pairs or a value not above zero (a ratio of it means nothing).
 */
function pairedRatio (pairs, confidence = DEFAULT_CONFIDENCE) {
  if (pairs.length < 2 || pairs.some(([b, n]) => !(b > 0) || !(n > 0))) return null
  const logs = pairs.map(([b, n]) => Math.log(n / b))
  const m = mean(logs)
  const df = logs.length - 1
  const se = Math.sqrt(variance(logs)) / Math.sqrt(logs.length)
  if (se === 0) {
    return { change_pct: pctOfRatio(Math.exp(m)), low_pct: pctOfRatio(Math.exp(m)), high_pct: pctOfRatio(Math.exp(m)),
      p_value: m === 0 ? 1 : 0, detectable_pct: 0, pairs: pairs.length, df }
  }
  const margin = studentTQuantile(1 - (1 - confidence) / 2, df) * se
  const pValue = 2 * (1 - studentTCdf(Math.abs(m / se), df))
  return {
    change_pct: pctOfRatio(Math.exp(m)),
    low_pct: pctOfRatio(Math.exp(m - margin)),
    high_pct: pctOfRatio(Math.exp(m + margin)),
    p_value: pValue,
    // A rise of r% and a fall to 1 / (1 + r) are the same log distance: the rise, the larger, is said.
    detectable_pct: pctOfRatio(Math.exp(detectableMargin(se, df, confidence))),
    pairs: pairs.length,
    df
  }
}

/**
 * The half-width of a paired ratio's interval in % (the larger side, on the log scale's asymmetry): what `precision`
 * asks a comparison to reach.
 */
const halfWidthPct = (r) => (r ? Math.max(r.high_pct - r.change_pct, r.change_pct - r.low_pct) : null)

module.exports = { pairedRatio, detectableMargin, halfWidthPct, POWER }
