'use strict'

const { round } = require('../../base/format')

// The Universal Scalability Law, fitted to a cluster's throughput at several sizes: X(N) = λN / (1 + σ(N−1) + κN(N−1)).
// σ is contention (work that queues for one thing: a shared lock, a primary), κ coherency (work every node does for
// every other: replication, cluster state), λ the throughput of one node. An estimate from a few points, and said so.

const MIN_SIZES = 4

/** Least squares of y on the columns of `rows` (normal equations, Gaussian elimination); null when singular. */
function leastSquares (rows, ys) {
  const k = rows[0].length
  const a = Array.from({ length: k }, (_, i) => Array.from({ length: k + 1 }, (_, j) =>
    rows.reduce((s, r, n) => s + r[i] * (j < k ? r[j] : ys[n]), 0)))
  for (let col = 0; col < k; col++) {
    let pivot = col
    for (let r = col + 1; r < k; r++) if (Math.abs(a[r][col]) > Math.abs(a[pivot][col])) pivot = r
    if (Math.abs(a[pivot][col]) < 1e-12) return null
    ;[a[col], a[pivot]] = [a[pivot], a[col]]
    for (let r = 0; r < k; r++) {
      if (r === col) continue
      const f = a[r][col] / a[col][col]
      for (let c = col; c <= k; c++) a[r][c] -= f * a[col][c]
    }
  }
  return a.map((row, i) => row[k] / row[i])
}

/**
 * The fit over `points` ({ nodes, per_sec }, four sizes or more), linearised as N/X = (1 + σ(N−1) + κN(N−1)) / λ
 * with σ, κ ≥ 0 (a term that fits negative is dropped and the rest refitted). Null below four sizes.
 */
function fitUsl (points) {
  const sizes = new Set(points.map((p) => p.nodes))
  if (sizes.size < MIN_SIZES) return null
  const ys = points.map((p) => p.nodes / p.per_sec)
  const terms = [() => 1, (n) => n - 1, (n) => n * (n - 1)]
  let best = null
  for (const keep of [[0, 1, 2], [0, 2], [0, 1], [0]]) {
    const solved = leastSquares(points.map((p) => keep.map((t) => terms[t](p.nodes))), ys)
    if (!solved || solved.some((v) => v < 0)) continue
    const coef = [0, 0, 0]
    keep.forEach((t, i) => { coef[t] = solved[i] })
    best = coef
    break
  }
  if (!best) return null
  const [a, b, c] = best
  const lambda = 1 / a
  // Rounding noise of a straight line is no term.
  const sigma = b / a < 1e-9 ? 0 : b / a
  const kappa = c / a < 1e-12 ? 0 : c / a
  const predict = (n) => (lambda * n) / (1 + sigma * (n - 1) + kappa * n * (n - 1))
  const mean = points.reduce((s, p) => s + p.per_sec, 0) / points.length
  const total = points.reduce((s, p) => s + (p.per_sec - mean) ** 2, 0)
  const residual = points.reduce((s, p) => s + (p.per_sec - predict(p.nodes)) ** 2, 0)
  const largest = Math.max(...sizes)
  const contention = sigma * (largest - 1)
  const coherency = kappa * largest * (largest - 1)
  return {
    sizes: [...sizes].sort((x, y) => x - y),
    lambda: round(lambda),
    sigma: round(sigma, 4),
    kappa: round(kappa, 6),
    r2: total > 0 ? round(1 - residual / total, 3) : null,
    // Where adding nodes stops adding throughput: √((1 − σ) / κ); none without coherency.
    peak_nodes: kappa > 0 && sigma < 1 ? round(Math.sqrt((1 - sigma) / kappa), 1) : null,
    // Less than 1% lost at the largest size is linear, whatever term the fit found.
    limited_by: contention + coherency < 0.01 ? 'nothing measured (linear)'
      : coherency > contention ? 'coherency' : 'contention',
    predict
  }
}

module.exports = { fitUsl, leastSquares, MIN_SIZES }
