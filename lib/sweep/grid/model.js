'use strict'

const { cellsOf } = require('./plan')
const { cellFigures, analyseGrid } = require('./analysis')
const { roundEffect, roundEffectText, ADVICE } = require('./noise')
const { raceOf } = require('./racing')

// With three rounds or more, a round that ran below the others in most cells is left out of the verdict (two remain
// a cell); with two, it would leave one: the grid advises a rerun instead and recommends nothing.
const ROUNDS_TO_LEAVE_ONE_OUT = 3

// The grid as every output reads it: the study's settings (its header), each cell's figures from the runs recorded so
// far, and the verdicts over them. Rebuilt from the runs after every run, so that grid.json is always whole.

/**
 * `header`: what grid.json keeps of the study (vary, repeat, workload, slo_p99_ms, plateau_pct, …); `runsOf(id)`: the
 * runs recorded for a cell, oldest first.
 */
function gridOf (header, runsOf, { warmupRun = null } = {}) {
  const recorded = cellsOf(header.vary).map((cell) => ({ cell, runList: runsOf(cell.id) }))
  const effect = header.repeat >= 2 ? roundEffect(recorded) : null
  // A race's rounds are blocks: each cell is judged against the leader in the same rounds, so a slow round moves no
  // verdict and none is left out.
  const leftOut = effect && !header.race && header.repeat >= ROUNDS_TO_LEAVE_ONE_OUT ? effect.round : null
  const figured = recorded.map(({ cell, runList }) => ({
    ...cellFigures(cell, leftOut === null ? runList : runList.filter((r) => r.round !== leftOut)), runList }))
  const race = header.race ? raceOf(figured.map((c) => ({ id: c.id, settings: c.settings, runs: c.runList,
    excluded: c.excluded })), { minRounds: header.race.min_rounds, precisionPct: header.race.precision_pct }) : null
  // A cell the race dropped can never be best or recommended: shown worse than the leader, said why.
  const droppedWhy = new Map((race ? race.dropped : []).filter((d) => !figured.find((c) => c.id === d.id).excluded)
    .map((d) => [d.id, `dropped in round ${d.round}: ${d.why}`]))
  const judged = figured.map((c) => (droppedWhy.has(c.id) ? { ...c, excluded: droppedWhy.get(c.id), dropped: true }
    : c))
  const analysis = analyseGrid(header.vary, judged, { sloP99Ms: header.slo_p99_ms, plateauPct: header.plateau_pct })
  if (effect && leftOut === null && !header.race && (analysis.recommended || analysis.undecided)) {
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
    // A race is complete when it stopped (its precision, one cell left, its budget); a grid when every cell ran.
    complete: header.race ? Boolean(header.race_stop || (race && race.stop))
      : cells.every((c) => c.runs_done >= header.repeat),
    warmup_run: warmupRun,
    race: race && { ...header.race, rounds: race.rounds_complete, survivors: race.survivors,
      dropped: race.dropped, leader: race.leader,
      leader_interval: race.leader_interval && { low: Math.round(race.leader_interval.low),
        high: Math.round(race.leader_interval.high), half_pct: Math.round(race.leader_interval.half_pct * 10) / 10 },
      stop: race.stop ?? header.race_stop ?? null },
    subtitle: [header.workload, header.fixed_text ? `with ${header.fixed_text}` : '',
      header.race ? 'a race' : header.repeat > 1 ? `${header.repeat} runs a cell, in rounds` : '']
      .filter(Boolean).join('; '),
    round_effect: effect && { ...effect, text: roundEffectText(effect),
      action: header.race ? 'the race judged each cell against the leader round by round: no verdict moved'
        : leftOut === null ? 'a rerun advised' : `round ${leftOut} left out of the verdict` },
    ...analysis
  }
}

module.exports = { gridOf }
