'use strict'

const { round } = require('../../base/format')

// The figure a shape's plan may use, and when the evidence carries none, why (in order of weight) and what to run
// next, following from what was run.

const whole = (x) => Math.round(x).toLocaleString('en-US')

/**
 * The write-only figure a plan may use: the headroom below the lower end of the 95% interval at the recommended
 * settings; or, where the evidence cannot carry one, none and why, with what to run next.
 */
function writeOnlyOf ({ best, recommended, recommendations, eligible, disagreement }, headroomPct) {
  const none = (why, next) => ({ per_sec: null, why, next })
  if (!best) return none('no result within the rules', 'a grid on this shape: crate-bench sweep grid … --repeat 3')
  // What the grids already ran decides what to run next: never the --repeat they had.
  // What the grids ran, not what they were asked: a grid its budget stopped after one round ran one.
  const repeated = Math.max(0, ...eligible.filter((p) => p.grid).map((p) => p.grid.rounds ?? p.grid.repeat ?? 0))
  const more = repeated >= 3 ? `repeat more (--repeat ${repeated * 2}: ${repeated} a cell was not enough here)`
    : 'repeat more (--repeat 5)'
  // Measured again, a step not yet taken: a grid of 3 rounds already was "a grid with --repeat 3".
  const again = repeated >= 3 ? `measure it again on a quiet cluster (its grids ran ${repeated} rounds: --repeat ` +
    `${repeated * 2} or a longer --duration)` : 'measure it again on a quiet cluster (a grid with --repeat 3)'
  // Every cell over the SLO comes first: no noise, repeat or quieter cluster changes that.
  const overSlo = eligible.find((p) => p.grid && p.grid.slo_unmet)
  if (overSlo) {
    return none(`every cell of ${overSlo.grid.source} is over its SLO (${overSlo.grid.slo_unmet})`,
      'a lighter load (smaller batches, fewer requests in flight) or more nodes, or a looser --slo')
  }
  if (disagreement) {
    return none('its results disagree (the warning below)', again)
  }
  const undecided = eligible.filter((p) => p.grid && p.undecided)
  const equivalent = !recommended && undecided.length === 1 && eligible.filter((p) => p.grid).length === 1
    ? undecided[0].equivalent : null
  if (equivalent) return equivalentFigure(equivalent, headroomPct, more)
  if (!recommended) {
    return undecided.length
      ? none(`the grid could not tell its cells apart (${undecided.map((p) => p.grid.source).join(', ')})`,
        `${more}, lengthen --duration or quiet the cluster`)
      : none(eligible.some((p) => p.grid) ? 'no grid of this shape recommended a cell'
        : 'single runs recommend no settings', 'a grid on this shape: crate-bench sweep grid … --repeat 3')
  }
  if (undecided.length) {
    return none(`its grids do not agree: ${undecided.map((p) => p.grid.source).join(', ')} could not tell its cells ` +
      'apart where another recommended one', again)
  }
  if (recommendations.some((r) => r.untested)) {
    return none('one run a cell: the recommended cell is untested (no interval)', 'the grid again with --repeat 3')
  }
  if (!recommended.ci95) return none('the recommended figure has no interval', 'the grid again with --repeat 3')
  if (recommended.ci95.clipped || !(recommended.ci95.low > 0)) {
    return none('the recommended cell\'s 95% interval reaches 0: its runs differ too much to carry a figure',
      `${more}, lengthen --duration or quiet the cluster`)
  }
  if (recommendations.some((r) => r.busy)) {
    return none(`the recommended cell ran on busy nodes (${recommendations.find((r) => r.busy).busy})`,
      'run it again on quiet nodes')
  }
  return { per_sec: round(recommended.ci95.low * (1 - headroomPct / 100)), why: null, next: null,
    rule: `${headroomPct}% below the lower end of the 95% interval at the recommended settings` }
}

/**
 * Cells a grid could not tell apart are one choice for sizing: any of them, planned with the lower end of the
 * best-bounded one's 95% interval less the headroom; none where that interval reaches 0 or its runs were busy.
 */
function equivalentFigure (e, headroomPct, more) {
  const none = (why, next) => ({ per_sec: null, why, next })
  const cells = `${e.cells ?? 'its'} cells equivalent within noise`
  if (!e.ci95 || e.ci95.clipped || !(e.ci95.low > 0)) {
    return none(`the grid's ${cells} have no interval above 0`, `${more}, lengthen --duration or quiet the cluster`)
  }
  if (e.busy) return none(`the grid's ${cells} ran on busy nodes (${e.busy})`, 'run it again on quiet nodes')
  const settings = Object.entries(e.settings || {}).map(([k, v]) => `${k} ${v}`).join(', ')
  return { per_sec: round(e.ci95.low * (1 - headroomPct / 100)), why: null, next: null, equivalent: true,
    rule: `${headroomPct}% below the lower end of the 95% interval of ${settings}, the best bounded of ${cells} ` +
      '(these cells are equivalent within noise; any of them)' }
}

/**
 * The one figure to plan with: the lowest of what the inputs carry for the shape (the write-only figure, the mixed
 * capacity, a sustained run's end rate less the headroom), its rule naming which set it; none where a figure the
 * shape has cannot be carried (the plan must be the lowest of all of them), or where it has none.
 */
function planningOf (entry, headroomPct, unit) {
  const candidates = []
  const blocked = []
  const w = entry.write_only
  if (w.per_sec !== null) {
    candidates.push({ kind: 'write-only', per_sec: w.per_sec, text: `write-only ${whole(w.per_sec)}` })
  }
  else if (entry.best || entry.results > 0) blocked.push(`write-only: ${w.why}`)
  const m = entry.mixed
  if (m && m.busy) blocked.push(`mixed capacity: its steps ran on busy nodes (${m.busy})`)
  else if (m && typeof m.per_sec === 'number') {
    candidates.push({ kind: 'mixed', per_sec: m.per_sec, text: `the mixed capacity beside ${m.query_rate} queries/s` +
      `${m.lower_bound ? ' (a lower bound: every run passed)' : ''}` })
  } else if (m) blocked.push('mixed capacity: the search found none the runs carry')
  const s = entry.sustained
  if (s && s.held && !s.lower_bound) {
    const perSec = round(s.per_sec * (1 - headroomPct / 100))
    candidates.push({ kind: 'sustained', per_sec: perSec, text: `${headroomPct}% below the rate held at the end of ` +
      `${Math.round(s.duration_s / 60)} min` })
  }
  const mixedBlocked = blocked.some((b) => b.startsWith('mixed'))
  const failedSustained = s && !s.held ? s : null
  if (blocked.length || candidates.length === 0) {
    return { per_sec: null, set_by: null, rule: null, none: blocked.length ? blocked.join('; ')
      : 'no figure the runs carry', next: mixedBlocked && !w.next ? 'the mixed capacity again on quiet nodes'
      : w.next ?? null, above_failed_sustained: null }
  }
  const lowest = candidates.reduce((a, c) => (c.per_sec < a.per_sec ? c : a))
  const others = candidates.filter((c) => c !== lowest).map((c) => c.text)
  const rule = lowest.kind === 'write-only' ? w.rule : lowest.text
  const failedRate = failedSustained ? failedSustained.target_per_sec ?? failedSustained.per_sec : null
  return { per_sec: lowest.per_sec, set_by: lowest.kind,
    rule: `${rule}${others.length ? `; ${others.join('; ')}` : ''}`, none: null, next: null,
    // A long run that did not hold a rate at or below the plan: the plan stands above what the cluster kept up.
    above_failed_sustained: failedRate !== null && lowest.per_sec >= failedRate
      ? `the figure to plan with is above ${whole(failedRate)} ${unit}/s, a rate ${failedSustained.source} did not ` +
        `hold (${failedSustained.not_held_why})` : null }
}

module.exports = { writeOnlyOf, planningOf }
