'use strict'

// Welch's t-test: are two sets of runs different, without assuming equal variances? Student's t
// distribution from the regularized incomplete beta function (continued fraction, as in Numerical
// Recipes); its quantile by bisection.

function logGamma (x) {
  const c = [
    76.18009172947146, -86.50532032941678, 24.01409824083091, -1.231739572450155, 0.001208650973866179,
    -0.5395239384953e-5
  ]
  let y = x
  const tmp = x + 5.5 - (x + 0.5) * Math.log(x + 5.5)
  let ser = 1.000000000190015
  for (const k of c) ser += k / ++y
  return -tmp + Math.log((2.5066282746310002 * ser) / x)
}

function betaContinuedFraction (a, b, x) {
  const tiny = 1e-300
  let c = 1
  let d = 1 - ((a + b) * x) / (a + 1)
  if (Math.abs(d) < tiny) d = tiny
  d = 1 / d
  let h = d
  for (let m = 1; m <= 300; m++) {
    const m2 = 2 * m
    let aa = (m * (b - m) * x) / ((a + m2 - 1) * (a + m2))
    d = 1 + aa * d
    c = 1 + aa / c
    d = 1 / (Math.abs(d) < tiny ? tiny : d)
    c = Math.abs(c) < tiny ? tiny : c
    h *= d * c
    aa = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1))
    d = 1 + aa * d
    c = 1 + aa / c
    d = 1 / (Math.abs(d) < tiny ? tiny : d)
    c = Math.abs(c) < tiny ? tiny : c
    const delta = d * c
    h *= delta
    if (Math.abs(delta - 1) < 1e-12) break
  }
  return h
}

/** The regularized incomplete beta function I_x(a, b). */
function incompleteBeta (x, a, b) {
  if (x <= 0) return 0
  if (x >= 1) return 1
  const front = Math.exp(logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log(1 - x))
  return x < (a + 1) / (a + b + 2)
    ? (front * betaContinuedFraction(a, b, x)) / a
    : 1 - (front * betaContinuedFraction(b, a, 1 - x)) / b
}

/** P(T <= t) for Student's t with df degrees of freedom. */
function studentTCdf (t, df) {
  const tail = 0.5 * incompleteBeta(df / (df + t * t), df / 2, 0.5)
  return t >= 0 ? 1 - tail : tail
}

/** The t with P(T <= t) = p. */
function studentTQuantile (p, df) {
  let low = -1000
  let high = 1000
  for (let i = 0; i < 200; i++) {
    const mid = (low + high) / 2
    if (studentTCdf(mid, df) < p) low = mid
    else high = mid
  }
  return (low + high) / 2
}

// A running mean: a sum of large values would overflow where their mean does not.
const mean = (xs) => xs.reduce((m, x, i) => m + (x - m) / (i + 1), 0)
const variance = (xs) => {
  const m = mean(xs)
  return xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1)
}

/**
 * Welch's test of new against base: the difference of means, its two-sided p-value and a
 * confidence interval (default 95%). Equal samples without spread differ with certainty or not at all.
 */
function welch (base, next, confidence = 0.95) {
  const diff = mean(next) - mean(base)
  const vb = variance(base) / base.length
  const vn = variance(next) / next.length
  const se = Math.sqrt(vb + vn)
  if (se === 0) return { diff, pValue: diff === 0 ? 1 : 0, low: diff, high: diff, df: Infinity, se }
  const df = (vb + vn) ** 2 / ((vb ** 2) / (base.length - 1) + (vn ** 2) / (next.length - 1))
  const t = diff / se
  const pValue = 2 * (1 - studentTCdf(Math.abs(t), df))
  const margin = studentTQuantile(1 - (1 - confidence) / 2, df) * se
  return { diff, pValue, low: diff - margin, high: diff + margin, df, se }
}

/** Half the width of the two-sided Student's t interval of the mean of `xs` (two values or more) at `confidence`. */
const meanMargin = (xs, confidence = 0.95) =>
  studentTQuantile(1 - (1 - confidence) / 2, xs.length - 1) * (Math.sqrt(variance(xs)) / Math.sqrt(xs.length))

module.exports = { welch, studentTCdf, studentTQuantile, mean, variance, meanMargin }
