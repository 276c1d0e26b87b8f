'use strict'

const { cellsOf } = require('./plan')
const { cellFigures, analyseGrid } = require('./analysis')
const { roundEffect, roundEffectText, ADVICE } = require('./noise')

// With three rounds or more, a round that ran below the others in most cells is left out of the verdict (two remain
// a cell); with two, it would leave one: the grid advises a rerun instead and recommends nothing.
const ROUNDS_TO_LEAVE_ONE_OUT = 3

// The grid as every output reads it: the study's settings (its header), each cell's figures from the runs recorded so
// far, and the verdicts over them. Rebuilt from the runs after every run, so that grid.json is always whole.

/**
 * `header`: what grid.json keeps of the study (vary, repeat, workload, slo_p99_ms, plateau_pct, …); `runsOf(id)`: the
 * runs recorded for a cell, oldest first.
 */
function gridOf (header, runsOf) {
  const recorded = cellsOf(header.vary).map((cell) => ({ cell, runList: runsOf(cell.id) }))
  const effect = header.repeat >= 2 ? roundEffect(recorded) : null
  const leftOut = effect && header.repeat >= ROUNDS_TO_LEAVE_ONE_OUT ? effect.round : null
  const judged = recorded.map(({ cell, runList }) => ({
    ...cellFigures(cell, leftOut === null ? runList : runList.filter((r) => r.round !== leftOut)), runList }))
  const analysis = analyseGrid(header.vary, judged, { sloP99Ms: header.slo_p99_ms, plateauPct: header.plateau_pct })
  if (effect && leftOut === null && (analysis.recommended || analysis.undecided)) {
    // The round names the cause better than the spread it makes.
    const wouldRecommend = analysis.recommended ? analysis.recommended.id : analysis.undecided.would_recommend
    analysis.undecided = { why: `${roundEffectText(effect)}; two rounds leave one run a cell without it`,
      advice: `run the grid again (${ADVICE})`, would_recommend: wouldRecommend }
    analysis.recommended = null
    analysis.sureness = null
  }
  // Every run recorded counts as done (the resume reads them); runs_judged is what the verdict stood on.
  const cells = judged.map((c) => ({ ...c, runs_done: c.runList.length, runs_judged: c.runs_done }))
  const measured = cells.find((c) => c.unit)
  return {
    header,
    vary: header.vary,
    slo_p99_ms: header.slo_p99_ms,
    unit: measured ? measured.unit : null,
    cells,
    complete: cells.every((c) => c.runs_done >= header.repeat),
    subtitle: [header.workload, header.fixed_text ? `with ${header.fixed_text}` : '',
      header.repeat > 1 ? `${header.repeat} runs a cell, in rounds` : ''].filter(Boolean).join('; '),
    round_effect: effect && { ...effect, text: roundEffectText(effect),
      action: leftOut === null ? 'a rerun advised' : `round ${leftOut} left out of the verdict` },
    ...analysis
  }
}

module.exports = { gridOf }
