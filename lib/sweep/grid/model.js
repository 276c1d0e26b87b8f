'use strict'

const { cellsOf } = require('./plan')
const { cellFigures, analyseGrid } = require('./analysis')

// The grid as every output reads it: the study's settings (its header), each cell's figures from the runs recorded so
// far, and the verdicts over them. Rebuilt from the runs after every run, so that grid.json is always whole.

/**
 * `header`: what grid.json keeps of the study (vary, repeat, workload, slo_p99_ms, plateau_pct, …); `runsOf(id)`: the
 * runs recorded for a cell, oldest first.
 */
function gridOf (header, runsOf) {
  const cells = cellsOf(header.vary).map((cell) => {
    const runList = runsOf(cell.id)
    return { ...cellFigures(cell, runList), runList }
  })
  const analysis = analyseGrid(header.vary, cells, { sloP99Ms: header.slo_p99_ms, plateauPct: header.plateau_pct })
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
    ...analysis
  }
}

module.exports = { gridOf }
