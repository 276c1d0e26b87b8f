'use strict'

// What find-capacity writes and prints of a search (capacity-command.js runs it): the steps' table and the verdict's
// lines on the terminal; capacity.summary.json, capacity.csv and capacity.svg in its folder.

const fs = require('node:fs')
const path = require('node:path')
const { table } = require('../reports/table')
const { fmt } = require('../base/format')
const { csvField } = require('./sweep')

function render (config, found, unit) {
  const t = table([
    `target ${unit}/s`,
    'achieved',
    'p99 ms',
    'failed',
    'rejections',
    'client saturated',
    'passed',
    'why not'
  ])
  // The first reason, short, and how many more: the table stays within 120 columns; every reason is in the summary
  // JSON and under the table.
  const short = (reason) => {
    if (!reason) return ''
    const [first, ...more] = reason.split('; ')
    const text = first.length > 60 ? `${first.slice(0, 59)}…` : first
    return more.length ? `${text} (+${more.length} more)` : text
  }
  for (const s of found.steps) {
    t.push([
      `${fmt(s.rate)}${s.repeat ? ` (run ${s.repeat})` : ''}`,
      `${fmt(s.achieved)} (${fmt(s.achieved_pct)}%)`,
      fmt(s.p99_ms),
      fmt(s.failed),
      s.rejections === null ? 'n/a' : fmt(s.rejections),
      s.client_saturated ? 'YES' : 'no',
      s.passed ? 'yes' : 'NO',
      short(s.reason)
    ])
  }
  const lines = [t.toString()]
  // A step that missed for several reasons: each of them, under the table.
  for (const s of found.steps.filter((step) => step.reason && step.reason.includes('; '))) {
    lines.push(`  ${fmt(s.rate)} ${unit}/s missed for each of: ${s.reason}`)
  }
  if (found.steps.some((s) => s.achieved_pct > 100.5)) {
    lines.push('note: a step achieved more than its target: answers to requests sent during its warm-up arrived in ' +
      'the measured window (a backlog the warm-up left); its rate is still judged against the target')
  }
  const slo = `p99 <= ${config.sloP99Ms} ms, at most ${config.maxFailed} failed, no rejections`
  const edge = found.edge
  const busy = found.steps.filter((s) => s.busy)
  if (busy.length) {
    lines.push(`warning: ${busy.length} of ${found.steps.length} steps ran on busy nodes (${busy[0].busy}): the ` +
      'capacity is not the cluster\'s alone')
  }
  if (found.capacity_kind === 'lower_bound') {
    const runs = found.steps.filter((s) => s.rate === found.capacity).length
    const above = found.steps.filter((s) => s.rate === found.capacity_below)
    lines.push(`capacity: at least ${fmt(found.capacity)} ${unit}/s (every one of its ${runs} runs passed), below ` +
      `${fmt(found.capacity_below)} (${above.filter((s) => s.passed).length} of ${above.length} runs passed): the ` +
      `runs disagree above it, so this is a lower bound (${slo}); plan with ${fmt(found.capacity)}`)
  } else if (found.limit === 'disputed_start') {
    lines.push(`no capacity the runs carry: at ${fmt(config.start)} ${unit}/s some runs passed and some missed, and ` +
      `no rate below it passed every run (${slo}); try a lower --start`)
  } else if (edge && !edge.pass_held) {
    lines.push(`no capacity the runs carry: at ${fmt(edge.pass_rate)} ${unit}/s only ${edge.pass_passed} of ` +
      `${edge.pass_runs} runs passed: the noise is larger than a step; the capacity is below ${fmt(edge.pass_rate)} ` +
      `${unit}/s (${slo}). Lengthen --duration, quiet the cluster, or widen --precision`)
  } else if (found.capacity === null && found.stopped) {
    lines.push(`no capacity: the search stopped before a step passed (${slo})`)
  } else if (found.capacity === null) {
    lines.push(
      `no capacity: the cluster misses the SLO (${slo}) already at ${fmt(config.start)} ${unit}/s; try a lower --start`
    )
  } else {
    const miss = found.steps.find((s) => s.rate === found.first_miss && !s.passed) ??
      found.steps.find((s) => s.rate === found.first_miss)
    if (edge && edge.pass_runs > 1) {
      lines.push(`capacity: ${fmt(edge.range.low)}–${fmt(edge.range.high)} ${unit}/s within the SLO (${slo}): ` +
        `${fmt(edge.pass_rate)} passed ${edge.pass_passed} of ${edge.pass_runs} runs, ${fmt(edge.miss_rate)} ` +
        `${edge.miss_passed} of ${edge.miss_runs}${edge.miss_passed > 0 ? ' (the capacity may reach it: the ' +
          'edge is noisy)' : ''}; plan with ${fmt(edge.range.low)}`)
    } else {
      lines.push(`capacity: ${fmt(found.capacity)} ${unit}/s within the SLO (${slo}), from one run a step ` +
        '(--edge_repeat 3 runs the edge again)')
    }
    // A mixed search steps the ingest: its own p99 at the capacity is on a line too (the SLO judged the queries').
    const at = found.steps.find((s) => s.rate === found.capacity && s.passed && typeof s.ingest_p99_ms === 'number')
    if (at) {
      lines.push(`the ingest's own p99 at ${fmt(found.capacity)} ${unit}/s: ${fmt(at.ingest_p99_ms)} ms (the SLO ` +
        'judges the queries\')')
    }
    if (miss) lines.push(`first miss: ${fmt(miss.rate)} ${unit}/s: ${miss.reason}`)
    if (found.limit === 'max_steps') {
      lines.push(`note: no step missed within --max_steps ${config.maxSteps}: the capacity is at least this`)
    }
    if (found.limit === 'max_steps_before_precision') {
      lines.push(`limit: --max_steps ${config.maxSteps} ended the search before its ±${config.precisionPct}% ` +
        `precision: between ${fmt(found.capacity)} (passed) and ${fmt(found.first_miss)} ${unit}/s (missed), an ` +
        `edge ${fmt(found.edge_width_pct)}% wide; plan with ${fmt(found.capacity)}, or give more --max_steps`)
    }
  }
  if (found.stopped) lines.push(`stopped: ${found.stopped}`)
  return `${lines.join('\n')}\n`
}

/** capacity.summary.json, capacity.csv and capacity.svg of a search; returns the summary. */
function writeResults (config, found, unit) {
  const summary = {
    workload: config.workload,
    ...(config.workload === 'mixed' ? { query_rate: config.queryRate } : {}),
    capacity: found.capacity,
    // 'edge': between the last rate every run passed and the first that missed; 'lower_bound': at least, below.
    capacity_kind: found.capacity_kind,
    capacity_below: found.capacity_below,
    capacity_range: found.edge ? found.edge.range : found.capacity_below !== null
      ? { low: found.capacity, high: found.capacity_below } : null,
    busy_steps: found.steps.filter((s) => s.busy).length,
    busy: (found.steps.find((s) => s.busy) || {}).busy ?? null,
    edge: found.edge,
    unit: `${unit}/s`,
    slo: { p99_ms: config.sloP99Ms, max_failed: config.maxFailed, min_achieved_pct: config.minAchievedPct },
    limit: found.limit,
    edge_width_pct: found.edge_width_pct ?? null,
    stopped: found.stopped,
    steps: found.steps
  }
  fs.writeFileSync(path.join(config.out, 'capacity.summary.json'), `${JSON.stringify(summary, null, 2)}\n`)
  const header = 'rate,achieved,achieved_pct,p99_ms,failed,rejections,client_saturated,passed,reason'
  const rows = found.steps.map((s) =>
    [
      s.rate,
      s.achieved,
      s.achieved_pct,
      s.p99_ms,
      s.failed,
      s.rejections,
      s.client_saturated,
      s.passed,
      s.reason || ''
    ].map(csvField).join(',')
  )
  fs.writeFileSync(path.join(config.out, 'capacity.csv'), `${[header, ...rows].join('\n')}\n`)
  fs.writeFileSync(
    path.join(config.out, 'capacity.svg'),
    require('./capacity-chart').renderCapacityChart({ ...summary, unit })
  )
  return summary
}

module.exports = { render, writeResults }
