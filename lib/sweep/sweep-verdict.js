'use strict'

// A sweep's verdict in words and its table: the summary a report writes, the best value, the sweet spot and why,
// what was ruled out, one row per value.

const { fmt, round } = require('../base/format')
const { maxSpreadPct, unitOf, LATENCY_GUARD } = require('./sweep')
const { table: plainTable } = require('../reports/table')

function summaryOf (args, points, analysis) {
  const unit = unitOf(points)
  const brief = (p) => p && { value: p.value, throughput: p.throughput, p99_ms: p.p99Ms, failed: p.failed }
  return {
    parameter: args.parameter,
    unit,
    threshold_pct: args.threshold,
    points: points.map((p) => ({
      value: p.value,
      seconds: p.seconds,
      [unit]: p.ok,
      [`${unit}_per_sec`]: p.throughput,
      change_pct: p.changePct,
      p99_ms: p.p99Ms,
      failed: p.failed,
      in_doubt: p.inDoubt,
      abandoned: p.abandoned,
      exit_code: p.exitCode,
      partial: p.partial,
      runs: p.runs,
      [`${unit}_per_sec_range`]: [p.throughputMin, p.throughputMax]
    })),
    best: brief(analysis.best),
    sweet_spot: brief(analysis.sweetSpot),
    plateau_reached: analysis.plateauReached,
    sweet_spot_limit: analysis.limit,
    ruled_out: analysis.ruledOut || [],
    gain_beyond_sweet_spot_pct: analysis.gainBeyondPct,
    latency_guard: args.latency_guard ?? LATENCY_GUARD,
    latency_jump: analysis.latencyJump ? { value: analysis.latencyJump.value, gain_pct: analysis.latencyJump.gainPct,
      p99_ms_from: analysis.latencyJump.fromP99Ms, p99_ms_to: analysis.latencyJump.toP99Ms,
      p99_times: analysis.latencyJump.times } : null,
    with_failures: points.filter((p) => p.failed > 0 || p.missing).map((p) => p.value),
    with_in_doubt: points.filter((p) => p.inDoubt > p.abandoned).map((p) => p.value),
    with_abandoned: points.filter((p) => p.abandoned > 0 && !(p.inDoubt > p.abandoned)).map((p) => p.value),
    max_p99_ms: args.max_p99_ms ?? null,
    over_max_p99: args.max_p99_ms == null ? [] : points.filter((p) => p.p99Ms > args.max_p99_ms).map((p) => p.value),
    client_saturated: points.filter((p) => p.clientSaturated).map((p) => p.value),
    single_runs: !points.some((p) => p.runs > 1),
    widest_spread: maxSpreadPct(points),
    csv: `${args.out}.csv`,
    chart: `${args.out}.svg`
  }
}

/** Why each value was ruled out, counted: failures, partial runs, runs that did not run. */
function whyNoValue (points, unit) {
  const count = (test) => points.filter(test).length
  const measured = (p) => p.seconds !== null && !p.partial
  const reasons = [
    [count((p) => p.exit_code !== 0 && p.seconds === null), 'could not run'],
    [count((p) => p.seconds !== null && p.partial), 'partial'],
    [count((p) => p.seconds !== null && !p.partial && p.failed > 0), `failed ${unit}`],
    [count((p) => measured(p) && !(p.failed > 0) && p.in_doubt > p.abandoned), `${unit} in doubt`],
    [
      count((p) => measured(p) && !(p.failed > 0) && p.abandoned > 0 && p.in_doubt === p.abandoned),
      'requests abandoned by the client at --graceful_stop'
    ],
    [
      count((p) => measured(p) && p.failed === 0 && !(p.in_doubt > 0) && !(p[`${unit}_per_sec`] > 0)),
      `no ${unit} acknowledged`
    ]
  ]
  return reasons.filter(([n]) => n > 0).map(([n, what]) => `${n} ${what}`).join(', ')
}

/**
 * The best value within the rules, and the faster value a rule ruled out, if any, with that rule: a best throughput
 * beside a faster figure in the table must say why.
 */
function bestLine (summary, parameter) {
  const unit = summary.unit
  const line = `best throughput: ${parameter}=${summary.best.value} (${fmt(summary.best.throughput)} ${unit}/s)`
  const reasons = new Map((summary.ruled_out || []).map((r) => [String(r.value), r.reason]))
  const faster = summary.points.filter((p) => reasons.has(String(p.value)) && p[`${unit}_per_sec`] >
    summary.best.throughput)
  if (faster.length === 0) return line
  const fastest = faster.reduce((a, b) => (b[`${unit}_per_sec`] > a[`${unit}_per_sec`] ? b : a))
  return `${line} of the values within the rules; ${parameter}=${fastest.value} was faster ` +
    `(${fmt(fastest[`${unit}_per_sec`])} ${unit}/s) but is ruled out: ${reasons.get(String(fastest.value))}`
}

/** The values after the sweet spot with the rule that ruled each out: "5000 (p99 … over --max_p99_ms 3000), …". */
function ruledOutBeyond (summary) {
  const values = summary.points.map((p) => String(p.value))
  const after = values.indexOf(String(summary.sweet_spot.value))
  return (summary.ruled_out || []).filter((r) => values.indexOf(String(r.value)) > after)
    .map((r) => `${r.value} (${r.reason})`).join(', ')
}

const msText = (ms) => (ms >= 1000 ? `${fmt(Math.round(ms / 100) / 10)} s` : `${fmt(Math.round(ms))} ms`)

/** The last step of a curve still climbing: larger values to try, unless its p99 jumped more than it gained. */
function lastStepText (summary) {
  const measured = summary.points.filter((p) => p[`${summary.unit}_per_sec`] > 0 && p.p99_ms > 0)
  const [before, last] = measured.slice(-2)
  if (!before || !last) return 'so try larger values'
  const gain = round(((last[`${summary.unit}_per_sec`] - before[`${summary.unit}_per_sec`]) /
    before[`${summary.unit}_per_sec`]) * 100, 1)
  const times = round(last.p99_ms / before.p99_ms, 1)
  if (summary.latency_guard > 0 && times > summary.latency_guard) {
    return `but ${before.value} -> ${last.value} gained ${gain}% for a p99 ${times}x (${msText(before.p99_ms)} -> ` +
      `${msText(last.p99_ms)}): larger values cost latency faster than they add throughput`
  }
  return 'so try larger values'
}

const beyond = (gainPct) =>
  gainPct > 0 ? `larger values gain at most ${gainPct}%` : `larger values are no faster (best ${gainPct}%)`

function verdictLines (summary, parameter) {
  const lines = []
  const unit = summary.unit
  if (!summary.best) {
    lines.push(`no sweet spot: no value ran complete and without failures (${whyNoValue(summary.points, unit)})`)
  } else {
    lines.push(bestLine(summary, parameter))
    const spot = summary.sweet_spot && `sweet spot: ${parameter}=${summary.sweet_spot.value} ` +
      `(${fmt(summary.sweet_spot.throughput)} ${unit}/s)`
    const larger = () => ruledOutBeyond(summary)
    const jump = summary.latency_jump
    if (summary.sweet_spot_limit === 'latency') {
      lines.push(`${spot}; ${parameter}=${jump.value} is ${jump.gain_pct}% faster, but its p99 is ${jump.p99_times}x ` +
        `(${msText(jump.p99_ms_from)} -> ${msText(jump.p99_ms_to)}): not worth it (--latency_guard ` +
        `${summary.latency_guard}; 0 lifts it)`)
    } else if (summary.sweet_spot_limit === 'plateau') {
      lines.push(`${spot}; ${beyond(summary.gain_beyond_sweet_spot_pct)} (threshold ${summary.threshold_pct}%)`)
    } else if (summary.sweet_spot_limit === 'saturation') {
      lines.push(`${spot}: the last value before the ramp saturated at ${summary.saturation.value} ` +
        `(${summary.saturation.reason})`)
    } else if (summary.sweet_spot_limit === 'max_p99') {
      lines.push(`${spot}; every larger value is over --max_p99_ms ${summary.max_p99_ms}: ${larger()}`)
    } else if (summary.sweet_spot_limit === 'failures') {
      lines.push(`${spot}; every larger value had failures, the cluster saturates beyond it: ${larger()}`)
    } else if (summary.sweet_spot_limit === 'in_doubt' || summary.sweet_spot_limit === 'abandoned') {
      const hint = summary.sweet_spot_limit === 'abandoned'
        ? ' (requests the client abandoned at --graceful_stop are in doubt, not failed by the cluster: give a longer ' +
          '--graceful_stop or --duration to judge them)'
        : ` (${unit} in doubt, not failed: see their runs to judge them)`
      lines.push(`${spot}; the larger values are ruled out: ${larger()}${hint}`)
    } else if (summary.points.length > 1) {
      lines.push(`sweet spot: not reached; throughput still grows by ${summary.threshold_pct}% or more at the ` +
        `largest values tried, ${lastStepText(summary)}`)
    } else lines.push('one value tried: nothing to compare it with')
  }
  if (summary.with_failures.length > 0) {
    lines.push(`values with failures (not candidates): ${summary.with_failures.join(', ')}`)
  }
  if (summary.with_in_doubt.length > 0) {
    lines.push(`values with ${unit} in doubt, answers lost (not candidates): ${summary.with_in_doubt.join(', ')}`)
  }
  if (summary.with_abandoned.length > 0) {
    lines.push(
      `values whose only problem was requests abandoned at --graceful_stop (not candidates): ` +
      summary.with_abandoned.join(', ')
    )
  }
  if (summary.over_max_p99.length > 0) {
    lines.push(
      `values with p99 over --max_p99_ms ${summary.max_p99_ms} ms (not candidates): ${summary.over_max_p99.join(', ')}`
    )
  }
  if (summary.client_saturated.length > 0) {
    lines.push(
      `values where the load generator was saturated (not candidates; add ` +
      `--processes): ${summary.client_saturated.join(', ')}`
    )
  }
  if (summary.single_runs && summary.points.length > 1 && summary.best) {
    lines.push(
      'warning: one run per value cannot tell noise from signal (runs on a busy machine differ by 20%): use --repeat 3'
    )
  }
  const spread = summary.widest_spread
  if (spread && spread.spreadPct > summary.threshold_pct) {
    lines.push(
      `warning: the runs at ${parameter}=${spread.value} differ by ${spread.spreadPct}% of their median, more than ` +
      `the ${summary.threshold_pct}% threshold: differences of that size between values are noise (run longer, or ` +
      `--repeat more)`
    )
  }
  return lines
}

function renderTable (parameter, points) {
  const unit = unitOf(points)
  const repeated = points.some((p) => p.runs > 1)
  const head = [parameter, 'time (s)', unit, `speed (${unit}/s)`, '% change', 'p99 (ms)', 'failed']
  if (repeated) head.splice(4, 0, 'range over runs')
  const table = plainTable(head)
  for (const p of points) {
    const row = [
      String(p.value),
      fmt(p.seconds),
      fmt(p.ok),
      fmt(p.throughput),
      p.changePct === null ? '-' : `${p.changePct > 0 ? '+' : ''}${p.changePct}%`,
      fmt(p.p99Ms),
      p.missing ? `no result (exit ${p.exitCode})` : fmt(p.failed)
    ]
    if (repeated) row.splice(4, 0, `${fmt(p.throughputMin)} – ${fmt(p.throughputMax)} (${p.runs} runs)`)
    table.push(row)
  }
  const note = repeated
    ? `\neach value ran ${Math.max(...points.map((p) => p.runs))} times; time, ${unit}, speed and p99 are the ` +
      `median run's, failed adds up all runs`
    : ''
  return `${table.toString()}${note}`
}

module.exports = { summaryOf, verdictLines, renderTable }
