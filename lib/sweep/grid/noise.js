'use strict'

const { round, fmtWhole, pairsText: settingsText } = require('../../base/format')

// Whether a grid's runs can carry its verdict: a round that ran below the others in most cells (a cluster warming up
// or drifting), and cells the runs cannot tell apart (a recommendation that would only be the rule's construction).

const ADVICE = 'repeat more (--repeat 5), lengthen --duration or quiet the cluster'
// A round is named when chance cannot explain how many cells it was the lowest in: by chance each of R rounds is the
// lowest of a cell one time in R, so k cells of n or more have a binomial tail; named below 5% over all the rounds.
const ROUND_CHANCE = 0.05
const MIN_CELLS_FOR_ROUNDS = 3
// ...and by at least this much at the median of those cells: a whisker below is noise, not a warming cluster.
const ROUND_MIN_DEFICIT_PCT = 10

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

/**
 * The round that ran below the other rounds in most cells, beyond their spread (below the lowest of the others), or
 * null. `cells`: [{ runList }] as the grid records them. Returns { round, cells, of, below_pct, rounds } where
 * below_pct is the median shortfall against the others' median, over the cells where it was below.
 */
function roundEffect (cells) {
  const byRound = new Map()
  let considered = 0
  for (const cell of cells) {
    const runs = (cell.runList || []).filter((r) => !r.missing && r.per_sec > 0)
    if (new Set(runs.map((r) => r.round)).size < 2) continue
    considered++
    for (const run of runs) {
      const others = runs.filter((r) => r.round !== run.round).map((r) => r.per_sec)
      if (!byRound.has(run.round)) byRound.set(run.round, [])
      if (run.per_sec < Math.min(...others)) {
        byRound.get(run.round).push(((median(others) - run.per_sec) / median(others)) * 100)
      }
    }
  }
  if (considered < MIN_CELLS_FOR_ROUNDS) return null
  let worst = null
  const rounds = byRound.size
  for (const [roundNumber, deficits] of byRound) {
    if (binomialTail(considered, deficits.length, 1 / rounds) * rounds >= ROUND_CHANCE) continue
    const below = median(deficits)
    if (below < ROUND_MIN_DEFICIT_PCT) continue
    if (!worst || deficits.length > worst.cells || (deficits.length === worst.cells && below > worst.below_pct)) {
      worst = { round: roundNumber, cells: deficits.length, of: considered, below_pct: round(below, 1) }
    }
  }
  if (!worst) return null
  worst.rounds = [...byRound.keys()].sort((a, b) => a - b)
  return worst
}

/** P(X ≥ k) for X ~ Binomial(n, p). */
function binomialTail (n, k, p) {
  let tail = 0
  let choose = 1
  for (let i = 0; i <= n; i++) {
    if (i > 0) choose = (choose * (n - i + 1)) / i
    if (i >= k) tail += choose * p ** i * (1 - p) ** (n - i)
  }
  return tail
}

/** "round 1 was 55% below rounds 2–3 in 7 of 8 cells". */
function roundEffectText (effect) {
  const others = effect.rounds.filter((r) => r !== effect.round)
  const named = others.length === 1 ? `round ${others[0]}`
    : others.length === 2 ? `rounds ${others[0]} and ${others[1]}` : `rounds ${others[0]}–${others[others.length - 1]}`
  return `round ${effect.round} was ${effect.below_pct}% below ${named} in ${effect.cells} of ${effect.of} cells: ` +
    'the cluster was warming up or drifting'
}

/**
 * Whether the runs can tell the recommended cell from the best: null when they can (or when there is nothing to
 * tell), else { why, advice }. Judged only where a cell was run more than once: one run a cell says nothing of its
 * noise (the verdict then says so itself). `candidates`: the cells that could be best; `plateauPct` the plateau's
 * width without intervals.
 */
function undecided ({ best, recommended, plateau, candidates, plateauPct, unit }) {
  if (!best || !recommended) return null
  const repeated = candidates.filter((c) => c.runs_done >= 2 && typeof c.spread_pct === 'number')
  if (repeated.length === 0) return null
  const noisiest = repeated.reduce((a, c) => (c.spread_pct > a.spread_pct ? c : a))
  const noise = `the runs of a cell differ by up to ${noisiest.spread_pct}% (${settingsText(noisiest.settings)})`
  const belowBestPct = round(((best.per_sec - recommended.per_sec) / best.per_sec) * 100, 1)
  const apart = (why) => ({ why: `${noise}: ${why}; the grid cannot tell its cells apart`, advice: ADVICE })
  if (recommended.id !== best.id && belowBestPct > plateauPct && best.ci95 && best.ci95.low <= recommended.per_sec) {
    return apart(`the best cell's interval (${interval(best.ci95, unit)}) reaches the median of ` +
      `${settingsText(recommended.settings)}, ${belowBestPct}% below it`)
  }
  if (candidates.length >= 4 && plateau.length > candidates.length / 2 && noisiest.spread_pct > plateauPct) {
    return apart(`${plateau.length} of ${candidates.length} cells are on the plateau`)
  }
  // The best against the runner-up: where their runs overlap, either could be the best, and the cheaper of them the
  // recommendation; a noisy cell far below them blurs nothing.
  const runnerUp = candidates.filter((c) => c !== best).reduce((a, c) => (!a || c.per_sec > a.per_sec ? c : a), null)
  if (runnerUp && best.runs_done >= 2 && runnerUp.runs_done >= 2 && runnerUp.per_sec_max >= best.per_sec_min) {
    const gapPct = round(((best.per_sec - runnerUp.per_sec) / best.per_sec) * 100, 1)
    const pair = [best, runnerUp].reduce((a, c) => (c.spread_pct > a.spread_pct ? c : a))
    return { why: `the runs of a cell differ by up to ${pair.spread_pct}% (${settingsText(pair.settings)}), more ` +
      `than the ${gapPct}% between the best cell and the runner-up (${settingsText(runnerUp.settings)}), whose runs ` +
      `overlap: the grid cannot tell its cells apart`, advice: ADVICE }
  }
  return null
}

const interval = (ci, unit) => `${fmtWhole(ci.low)}–${fmtWhole(ci.high)} ${unit || 'units'}/s`

/** How sure a decided verdict is, in words: one run a cell cannot know its noise. */
function surenessOf (cells) {
  const runs = cells.filter((c) => c.runs_done > 0).map((c) => c.runs_done)
  if (runs.length === 0) return null
  if (Math.min(...runs) < 2) {
    return 'one run a cell: the grid cannot know its noise, and the recommendation is as sure as the cluster was ' +
      'quiet; --repeat 3 or more judges it'
  }
  return null
}

module.exports = { roundEffect, roundEffectText, undecided, surenessOf, binomialTail, ADVICE }
