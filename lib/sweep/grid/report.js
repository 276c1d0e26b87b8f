'use strict'

const { fmt, fmtWhole } = require('../../base/format')
const { table } = require('../../reports/table')
const { tableGrowth } = require('../../reports/table-growth')
const { panelsOf } = require('./heatmap')
const { settingsText, durationText, missesSlo } = require('./analysis')

// The grid in words and tables: one table per panel (the first dimension down, the second across), the best and the
// recommended cell marked, then the verdicts and the sentences.

/** per_sec, per_sec_min, per_sec_max as rows_per_sec, … (or queries_per_sec): grid.json names its unit. */
function unitNamed (object, unit) {
  return Object.fromEntries(Object.entries(object).map(([k, v]) => [k.startsWith('per_sec') && unit
    ? `${unit}_${k}` : k, v]))
}

/** grid.json's runs as the analysis reads them (rows_per_sec back to per_sec). */
function unitUnnamed (object) {
  const key = (k) => k.replace(/^(rows|queries)_per_sec/, 'per_sec')
  return Object.fromEntries(Object.entries(object).map(([k, v]) => [key(k), v]))
}

/**
 * A cell: its median throughput and marks, its p99 (› over the --slo), the spread of its runs and the busiest node's
 * CPU: a full cluster reads near 100%, a limiting client far below.
 */
function cellText (cell, grid) {
  if (cell.runs_done === 0) return '…'
  if (cell.excluded !== null || !(cell.per_sec > 0)) return `✗ ${fmtWhole(cell.per_sec)}`
  const overSlo = missesSlo(cell, grid.slo_p99_ms)
  const marks = [cell.busy_machine ? 'busy' : null, cell.id === (grid.best && grid.best.id) ? 'best' : null,
    cell.id === (grid.recommended && grid.recommended.id) ? 'rec.' : null,
    grid.plateau.includes(cell.id) && cell.id !== (grid.best && grid.best.id) && !overSlo ? '~' : null,
    overSlo ? '› slo' : null].filter(Boolean)
  const p99 = typeof cell.p99_ms === 'number' ? `p99 ${durationText(cell.p99_ms)}` : ''
  const spread = typeof cell.spread_pct === 'number' ? `±${fmt(Math.round(cell.spread_pct / 2))}%` : ''
  const cpu = typeof cell.busiest_cpu_pct === 'number' ? `cpu ${fmt(Math.round(cell.busiest_cpu_pct))}%` : ''
  return [`${fmtWhole(cell.per_sec)}${marks.length ? ` (${marks.join(', ')})` : ''}`, p99,
    [spread, cpu].filter(Boolean).join(' ')].filter(Boolean).join('\n')
}

/** The grid's tables, verdicts and sentences, for the terminal. */
function gridText (grid) {
  const [rows, columns] = grid.vary
  const unit = grid.unit || 'units'
  const out = []
  for (const fixed of panelsOf(grid.vary)) {
    const named = settingsText(fixed)
    const where = named ? `; ${named}` : ''
    out.push(`${unit}/s (median run) and its p99, ${rows.name} down, ${columns.name} across${where}`)
    const t = table([`${rows.name} \\ ${columns.name}`, ...columns.values.map(String)])
    for (const r of rows.values) {
      t.push([String(r), ...columns.values.map((c) => {
        const cell = grid.cells.find((x) => x.settings[rows.name] === r && x.settings[columns.name] === c &&
          Object.entries(fixed).every(([k, v]) => x.settings[k] === v))
        return cellText(cell, grid)
      })])
    }
    out.push(t.toString())
  }
  out.push('best: highest throughput without failures; ~: on the plateau; rec.: recommended; › slo: p99 over --slo; ' +
    '✗: ruled out; busy: other work took the machine, or nodes busy beyond the load or before it; ' +
    '±: half the spread of its runs; ' +
    'cpu: the busiest node\'s peak')
  out.push(...verdictLines(grid))
  return `${out.join('\n')}\n`
}

function verdictLines (grid) {
  const unit = grid.unit || 'units'
  const lines = []
  const ruledOut = grid.cells.filter((c) => c.runs_done > 0 && c.excluded !== null)
  if (ruledOut.length) {
    lines.push(`ruled out: ${ruledOut.map((c) => `${settingsText(c.settings)} (${c.excluded})`).join('; ')}`)
  }
  const busy = grid.cells.filter((c) => c.busy_machine)
  if (busy.length) {
    lines.push(`busy machine: ${busy.length} of ${grid.cells.length} cells ran while ${busy[0].busy_machine}` +
      `${busy.length > 1 ? ` (and the others alike: ${busy.slice(1).map((c) => settingsText(c.settings)).join('; ')})`
        : ''}`)
  }
  if (grid.warmup_run) {
    const w = grid.warmup_run
    lines.push(`warm-up run: ${settingsText(w.settings)}: ${fmtWhole(w.per_sec)} ${unit}/s (its own run before the ` +
      'first measured one; no cell\'s)')
  }
  if (grid.race) lines.push(raceLine(grid.race, grid.cells.length))
  const growth = tableGrowth(grid)
  if (growth) {
    lines.push(`table grew: from ${fmtWhole(growth.first)} to ${fmtWhole(growth.last)} rows through the study ` +
      `(×${fmt(Math.round((growth.last / growth.first) * 10) / 10)}): the later runs measured a larger table than ` +
      'the first (a larger --prefill, or fewer runs, keeps it nearer one size)')
  }
  if (!grid.best) {
    lines.push('no best cell: every cell run had failures, a saturated load generator or no result')
    return lines
  }
  const b = grid.best
  const fields = b.field_values_per_sec ? `, ${fmtWhole(b.field_values_per_sec)} field values/s` : ''
  const bestCell = grid.cells.find((c) => c.id === b.id)
  const spread = bestCell && typeof bestCell.spread_pct === 'number' ? `, its runs ${fmtWhole(bestCell.per_sec_min)}–` +
    `${fmtWhole(bestCell.per_sec_max)} (spread ${fmt(bestCell.spread_pct)}%)` : ''
  lines.push(`best: ${settingsText(b.settings)}: ${fmtWhole(b.per_sec)} ${unit}/s${intervalText(b.ci95)}${spread}` +
    `${fields}, p99 ${fmt(b.p99_ms)} ms`)
  if (grid.round_effect) lines.push(`rounds: ${grid.round_effect.text}; ${grid.round_effect.action}`)
  lines.push(`plateau (${grid.plateau_rule}): ${grid.plateau.length} cell${grid.plateau.length === 1 ? '' : 's'}`)
  const target = grid.slo_p99_ms === null ? 'no --slo: judged on throughput and errors only'
    : `p99 within ${durationText(grid.slo_p99_ms)}, no failures`
  const r = grid.recommended
  if (grid.undecided) {
    lines.push(`recommended: none: ${grid.undecided.why}; ${grid.undecided.advice}`)
  } else if (!r) {
    lines.push(`recommended: none (${target})`)
  } else {
    lines.push(`recommended${r.untested ? ': UNTESTED' : ''} (${target}): ${settingsText(r.settings)}: ` +
      `${fmtWhole(r.per_sec)} ${unit}/s, p99 ${fmt(r.p99_ms)} ms${r.note ? ` (${r.note})` : ''}` +
      `${r.untested ? ` — ${r.untested}` : ''}`)
    lines.push(r.first_break ? `  beyond it: ${r.first_break.reason}`
      : '  beyond it: no neighbour with more load broke within the grid')
    if (grid.sureness && !r.untested) lines.push(`  how sure: ${grid.sureness}`)
  }
  if (grid.equivalent) {
    const e = grid.equivalent
    lines.push(`equivalent within noise: ${e.cells.length} cells (${e.cells.map((id) => settingsText(grid.cells
      .find((c) => c.id === id).settings)).join('; ')}): any of them; the best bounded, ${settingsText(e.settings)}, ` +
      `holds ${fmtWhole(e.ci95.low)} ${unit}/s at the low end of its 95% interval: the figure a sizing plans with`)
  }
  if (!grid.complete && grid.race) {
    lines.push('race not finished: the same command goes on from the runs recorded')
  } else if (!grid.complete) {
    const left = grid.cells.filter((c) => c.runs_done === 0).length
    lines.push(`partial grid: ${left} of ${grid.cells.length} cells not run yet; the sentences below compare only ` +
      'the cells measured')
  }
  if (grid.undecided && grid.sentences.length) {
    lines.push('the sentences below compare medians that the runs cannot tell apart: read them as hints, not findings')
  }
  for (const sentence of grid.sentences) lines.push(`- ${sentence}`)
  return lines
}

/** "race: 5 rounds; 2 of 4 cells left, 2 dropped; stopped: the leader's 95% interval is within ±4.1% …". */
function raceLine (race, cells) {
  const left = `${race.survivors.length} of ${cells} cells left${race.dropped.length ? `, ${race.dropped.length} ` +
    'dropped (ruled out below)' : ''}`
  const leader = race.leader_interval ? `; the leader's 95% interval ±${fmt(race.leader_interval.half_pct)}%` : ''
  return `race: ${race.rounds} round${race.rounds === 1 ? '' : 's'}; ${left}${leader}; ${race.stop
    ? `stopped: ${race.stop.text}` : 'not stopped yet'}`
}

/** " (95% interval 1,200–3,400, wide)": no throughput below zero, and an interval that says little says so. */
function intervalText (ci) {
  if (!ci) return ''
  const notes = [ci.clipped ? 'clipped at 0' : null, ci.wide ? 'wide' : null].filter(Boolean)
  return ` (95% interval ${fmtWhole(ci.low)}–${fmtWhole(ci.high)}${notes.length ? `, ${notes.join(', ')}` : ''})`
}

/** grid.json: the study's settings, every cell with its runs, and the verdicts, throughput named by its unit. */
function gridJson (grid) {
  const unit = grid.unit
  const verdict = (v) => v && unitNamed(v, unit)
  // The race's stop is said once, in `race`.
  const header = { ...grid.header }
  delete header.race_stop
  return {
    ...header,
    unit,
    complete: grid.complete,
    runs_done: grid.cells.reduce((s, c) => s + c.runs_done, 0),
    // A race's runs are as many as its rounds take: none planned.
    runs_total: grid.race ? null : grid.cells.length * grid.header.repeat,
    race: grid.race ?? null,
    warmup_run: grid.warmup_run ?? null,
    cells: grid.cells.map(({ runList, ...c }) => unitNamed({ ...c, runs: runList.map((r) => unitNamed(r, unit)) },
      unit)),
    best: verdict(grid.best),
    plateau: grid.plateau,
    plateau_rule: grid.plateau_rule,
    recommended: verdict(grid.recommended),
    undecided: grid.undecided ?? null,
    equivalent: grid.equivalent ?? null,
    slo_unmet: grid.slo_unmet ?? null,
    sureness: grid.sureness ?? null,
    round_effect: grid.round_effect ?? null,
    sentences: grid.sentences
  }
}

module.exports = { gridText, gridJson, unitNamed, unitUnnamed }
