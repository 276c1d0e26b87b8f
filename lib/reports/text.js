'use strict'

const { fmt, visible } = require('../base/format')
const { SATURATED_CPU_PCT, SATURATED_LOOP_DELAY_MS } = require('../results/result')
const { loadWorkload } = require('../workloads')
const { driftLines, sustainedLine } = require('../results/drift')
const { busyMachineLine } = require('./cluster-limits')
const { table } = require('./table')
const { rateShortfallLine, timeoutWarning } = require('./limits-text')
const { clusterSection } = require('./cluster-section')
const { cpuSourceText } = require('../results/cpu-cost')
const { GATHER_SHARE, MAX_GATHER_MS } = require('../cluster/pg-gulps')



function renderReport (workload, result) {
  const unit = workload.unit
  const out = []
  if (result.partial) out.push(`PARTIAL RESULT: ${result.partial_reasons.join('; ')}`)

  const summary = table(['summary', 'value'])
  if (result.warmup) summary.push(warmupRow(result.warmup, unit))
  summary.push(
    [
      'time (first request sent -> last answer)',
      `${fmt(result.seconds)} s (sending ${fmt(result.sending_seconds)} s, then ${fmt(result.drain_seconds)} s for ` +
      `the last answers)`
    ],
    [workload.okLabel, fmt(result[`${unit}_ok`])],
    [`${unit} failed`, fmt(result[`${unit}_failed`])]
  )
  if (result[`${unit}_in_doubt`] > 0) {
    summary.push([`${unit} in doubt (sent, answer lost)`, fmt(result[`${unit}_in_doubt`])])
  }
  if (result.rate) {
    summary.push(
      [`${unit}/s, target (${targetSource(result)})`, fmt(result.rate.target_per_sec)],
      [`${unit}/s, achieved`, `${fmt(result.rate.achieved_per_sec)} (${fmt(result.rate.achieved_pct)}% of target)`],
      ['late requests (no free slot at their time)', fmt(result.rate.late_requests)],
      ['dropped requests (due, never sent before the end or their stage)',
        `${fmt(result.rate.dropped_requests ?? 0)} (${fmt(result.rate.dropped_units ?? 0)} ${unit})`]
    )
    if (result.rate.withdrawn_requests > 0) {
      summary.push(['withdrawn requests (due at a rate changed before they went out; not in the target)',
        `${fmt(result.rate.withdrawn_requests)} (${fmt(result.rate.withdrawn_units)} ${unit})`])
    }
  }
  summary.push(
    ...(result.rate ? [] : [[`${unit}/s`, fmt(result[`${unit}_per_sec`])]]),
    ...(workload.summaryLines ? workload.summaryLines(result, fmt) : []),
    ['requests', `${fmt(result.requests)} (${fmt(result.requests_failed)} failed)`]
  )
  out.push(summary.toString())
  if (workload.warningLines) out.push(...workload.warningLines(result, fmt))
  if (result.rate && result.rate.achieved_pct < 99) out.push(rateShortfallLine(result, unit))

  if (result.stages) out.push(stagesTable(result, unit))

  const latency = table(['request latency (ms)', 'p50', 'p90', 'p99', 'p99.9', 'max', 'mean'])
  const l = result.latency_ms
  // Over pg a request ends when its ReadyForQuery is read: a batch's answer comes row by row before it.
  const pg = result.options && result.options.protocol === 'pg'
  const end = pg ? 'ReadyForQuery read' : 'answer'
  latency.push([
    result.rate ? `client, scheduled start -> ${end}` : `client, ${pg ? 'first byte written' : 'send'} -> ${end}`,
    fmt(l.p50),
    fmt(l.p90),
    fmt(l.p99),
    fmt(l.p999),
    fmt(l.max),
    fmt(l.mean)
  ])
  const s = result.server_ms
  if (s.p50 !== null) {
    latency.push([
      'server (answer "duration")',
      fmt(s.p50),
      fmt(s.p90),
      fmt(s.p99),
      fmt(s.p999),
      fmt(s.max),
      fmt(s.mean)
    ])
  }
  out.push(latency.toString())
  if (pg && workload.unit === 'rows' && (result.options.pg_insert ?? 'batch') === 'batch') {
    out.push(`  over pg a batch's rows are answered one by one, read in gulps ${GATHER_SHARE * 100}% of the ` +
      `request's time apart (at most ${MAX_GATHER_MS} ms): a latency ends when its ReadyForQuery is read, at most ` +
      'that late (docs/pg-or-http.md)')
  }
  out.push(...driftLines(result.drift, fmt))
  const sustained = sustainedLine(result.drift, result.sustained, fmt)
  if (sustained) out.push(sustained)

  const detail = workload.detailTable ? workload.detailTable(result, table, fmt) : null
  if (detail) out.push(detail)

  if (result.workers.length > 0) {
    const workers = table([
      'worker',
      `${unit} ok`,
      `${unit} failed`,
      'requests',
      'own seconds',
      `${unit}/s`,
      'stopped because'
    ])
    for (const w of result.workers) {
      workers.push([
        w.worker,
        fmt(w[`${unit}_ok`]),
        fmt(w[`${unit}_failed`]),
        fmt(w.requests),
        fmt(w.seconds),
        fmt(w[`${unit}_per_sec`]),
        describeWorkerStop(w)
      ])
    }
    out.push(workers.toString())
  }

  const nearTimeout = timeoutWarning(result, unit)
  if (nearTimeout) out.push(nearTimeout)
  const busy = busyMachineLine(result)
  if (busy) out.push(`warning: ${busy}`)
  if (result.cluster) out.push(...clusterSection(result.cluster, result[`${unit}_failed`]))

  if (result.events.length > 0) out.push(eventsTable(result.events))

  if (result.errors.length > 0) {
    out.push('Failures and answers lost, grouped by error code and message:')
    out.push(errorsTable(result, unit))
  }

  if (result.thresholds && result.thresholds.length > 0) out.push(thresholdsTable(result.thresholds))

  const c = result.client
  const perUnit = Object.keys(c).find((k) => k.startsWith('cpu_us_per_'))
  out.push(
    `client: ${fmt(c.cpu_seconds)} s CPU in all processes, ${fmt(c[perUnit])} µs ` +
    `per ${unit === 'rows' ? 'row' : 'query'}, peak RSS ${fmt(c.max_rss_mb_per_process)} MB per process`
  )
  const m = result.machine
  if (m) {
    const nodes = m.cluster_processes === 0 ? 'the cluster\'s nodes not on this machine'
      : `the cluster's nodes here ${fmt(m.cluster_pct)}%`
    out.push(`this machine (${m.cores} cores) during the load: ${fmt(m.machine_pct)}% busy, the run's processes ` +
      `${fmt(m.own_pct)}%, ${nodes}, ${m.others_pct === null ? 'others ' +
        'unknown (the nodes of this machine could not be told apart)' : `other work ${fmt(m.others_pct)}%`}`)
    for (const f of m.forwarders || []) {
      out.push(`  ${f.host} is held by pid ${f.pid} (${f.name}), no CrateDB node: a forwarder (kubectl ` +
        'port-forward, ssh -L?) to a node elsewhere; its CPU counted as other work')
    }
  }
  const cost = clusterCpuLine(result.cluster_cpu)
  if (cost) out.push(cost)
  const held = c.master_memory
  if (held) {
    // A rate per hour is printed only where it is judged: a minute's RSS extrapolated to an hour is noise.
    const rate = held.flat === null ? '' : `${held.rss_growth_mb_per_hour >= 0 ? '+' : ''}` +
      `${fmt(held.rss_growth_mb_per_hour)} MB/h `
    // A judged run is judged over its second half (self-monitor.js): the first minutes are V8 sizing its heap.
    const halfJudged = typeof held.judged_from_minute === 'number'
    const from = halfJudged ? `at minute ${fmt(held.judged_from_minute)}` : 'at the start'
    const over = halfJudged ? `over the second half of ${fmt(held.minutes)} min` : `over ${fmt(held.minutes)} min`
    const change = `RSS ${fmt(held.rss_mb_start)} MB ${from}, ${fmt(held.rss_mb_end)} MB at the end ` +
      `(${rate}${over}; CPU ${fmt(held.cpu_pct)}% of a core, event-loop delay p99 at most ` +
      `${fmt(held.loop_delay_p99_ms_max)} ms)`
    out.push(held.flat === false
      ? `warning: the master's memory grew over the run: ${change}; a longer run may run out of memory`
      : `client memory: the master ${held.flat ? 'stayed flat' : 'held (under 30 min: not judged)'}: ${change}`)
  }
  if (c.saturated) {
    const busiest = c.workers.reduce((a, b) => (b.cpu_pct > a.cpu_pct ? b : a))
    out.push(
      `warning: the load generator may have limited this run, not the cluster: a worker ` +
      `used ${fmt(busiest.cpu_pct)}% of a core with an event-loop delay p99 ` +
      `of ${fmt(busiest.event_loop_delay_p99_ms)} ms ` +
        `(limits ${SATURATED_CPU_PCT}% and ${SATURATED_LOOP_DELAY_MS} ms); add --processes, or load generators ` +
        `(--generator)`
    )
  }
  if (result.partial) out.push(`PARTIAL RESULT: ${result.partial_reasons.join('; ')}`)
  return out.join('\n') + '\n'
}

/** Where the target rate came from: --rate, the stages' mean, or a mean with changes by hand. */
function targetSource (result) {
  const changed = (result.events || []).some((e) => e.kind === 'rate_change' && e.what !== 'ingest_rate')
  if (result.stages) return changed ? 'mean of --stages, changed by hand' : 'mean of --stages'
  return changed ? 'mean of --rate, changed by hand' : '--rate'
}

/** --stages: each stage's own figures, and the first where the cluster stopped keeping up. */
function stagesTable (result, unit) {
  const t = table(['stage', 'from s', 'target /s', 'achieved /s', 'p50 ms', 'p90 ms', 'p99 ms', 'failed',
    'in doubt', 'node CPU %', 'rejected', 'kept up'])
  for (const s of result.stages) {
    if (s.status === 'not run') {
      t.push([`${s.stage} (${s.planned})`, fmt(s.start_s), { colSpan: 10, content: 'not run: the run was stopped ' +
        'before it' }])
      continue
    }
    const cpu = s.nodes.map((n) => n.cpu_pct).filter((v) => v !== null)
    const rejected = s.nodes.reduce((sum, n) => sum + n.write_rejected + n.search_rejected, 0)
    t.push([
      `${s.stage} (${s.planned})`,
      fmt(s.start_s),
      fmt(s.target_per_sec),
      `${fmt(s.achieved_per_sec)} (${s.achieved_pct === null ? '-' : `${fmt(s.achieved_pct)}%`})`,
      fmt(s.latency_ms.p50),
      fmt(s.latency_ms.p90),
      fmt(s.latency_ms.p99),
      fmt(s[`${unit}_failed`]),
      fmt(s[`${unit}_in_doubt`]),
      cpu.length ? fmt(Math.max(...cpu)) : '-',
      s.nodes.length ? fmt(rejected) : '-',
      s.kept_up.kept === null ? 'not judged' : `${s.kept_up.kept ? 'yes' : 'NO'}${s.status === 'stopped'
        ? ` (first ${fmt(s.ran_s)} s)` : ''}`
    ])
  }
  const knee = result.first_stage_not_kept_up
  const judged = result.stages.filter((s) => s.kept_up.kept !== null)
  const stopped = result.stopped_at_s != null
    ? ` (stopped at ${fmt(result.stopped_at_s)} s: ${judged.length} of ${result.stages.length} stages judged)` : ''
  const verdict = knee
    ? `first stage where the cluster stopped keeping up: ${knee.stage} (${result.stages[knee.stage - 1].planned}): ` +
      knee.reason + stopped
    : judged.length === result.stages.length ? 'the cluster kept up with every stage'
      : `the cluster kept up with every stage that ran${stopped}`
  return `Stages (--stages; node CPU is the busiest node's mean, rejections the write and search pools'):\n` +
    `${t.toString()}\n${verdict}`
}

/** --warmup's answers, counted apart from every figure. */
function warmupRow (warmup, unit) {
  return [
    `warm-up (first ${fmt(warmup.seconds)} s${warmup.until === 'steady' ? `, until steady (at most ` +
      `${fmt(warmup.max_seconds)} s)` : ''}, in no figure)`,
    `${fmt(warmup[`${unit}_ok`])} ${unit} ok, ${fmt(warmup[`${unit}_failed`])} ` +
    `failed, ${fmt(warmup[`${unit}_in_doubt`])} in doubt${warmup.line ? `\n${warmup.line}` : ''}`
  ]
}

function thresholdsTable (thresholds) {
  const t = table(['threshold (--threshold)', 'actual', 'result'])
  for (const r of thresholds) {
    t.push([r.threshold, r.actual === null ? 'n/a' : fmt(r.actual), r.passed ? 'pass' : 'FAIL'])
  }
  const failed = thresholds.filter((r) => !r.passed).length
  return `${t.toString()}\n${failed === 0 ? `thresholds: all ${thresholds.length} passed` : `thresholds: ${failed} ` +
    `of ${thresholds.length} FAILED (exit 5)`}`
}

function describeWorkerStop (w) {
  if (!w.stop_reason) return '-'
  const text = w.stop_reason.replace(/_/g, ' ')
  return w.stop_detail ? `${text}: ${w.stop_detail}` : text
}

// The terminal shows the largest groups; --json has every group kept.
const ERROR_ROWS_SHOWN = 20

function errorsTable (result, unit) {
  const errors = table([unit, 'outcome', 'code', 'HTTP', 'error (one sample)'])
  for (const e of result.errors.slice(0, ERROR_ROWS_SHOWN)) {
    errors.push([
      fmt(e.count),
      e.in_doubt ? 'in doubt' : 'failed',
      visible(e.code ?? '-'),
      visible(e.status ?? '-'),
      wrap(visible(e.sample), 90)
    ])
  }
  const rest = result.errors.slice(ERROR_ROWS_SHOWN)
  if (rest.length > 0) {
    const count = rest.reduce((sum, e) => sum + e.count, 0)
    errors.push([fmt(count), '', '', '', `… ${fmt(rest.length)} more groups (all in --json)`])
  }
  return errors.toString()
}

/** Hosts that went down and came back during the run, seconds from the start of the load. */
function eventsTable (events) {
  const t = table(['at s', 'event', 'host', 'detail'])
  for (const e of events) t.push([fmt(e.at_s), e.kind.replace('_', ' '), e.host, wrap(e.detail || '', 70)])
  return `Events during the run:\n${t.toString()}`
}

/**
 * The short report of a workload that ran next to the main one (the ingest of --ingest_rate):
 * its own window, counts, rate and latency; its failures grouped like the main report's.
 */
function renderCompanion (workload, result) {
  const unit = workload.unit
  const out = [
    `${workload.name} next to the run ` +
    `(${result.rate ? `--ingest_rate ${fmt(result.rate.target_per_sec)} ${unit}/s` : 'as fast as ' +
    'possible'}, ${result.workers.length} process${result.workers.length === 1 ? '' : 'es'}):`
  ]
  const summary = table(['', 'value'])
  if (result.warmup) summary.push(warmupRow(result.warmup, unit))
  summary.push(
    ['time (first request sent -> last answer)', `${fmt(result.seconds)} s`],
    [workload.okLabel, fmt(result[`${unit}_ok`])],
    [`${unit} failed`, fmt(result[`${unit}_failed`])],
    [`${unit} in doubt`, fmt(result[`${unit}_in_doubt`])],
    [
      `${unit}/s achieved`,
      result.rate
        ? `${fmt(result.rate.achieved_per_sec)} (${fmt(result.rate.achieved_pct)}% of ` +
          `target, ${fmt(result.rate.late_requests)} late requests, ${fmt(result.rate.dropped_requests ?? 0)} ` +
          'dropped)'
        : fmt(result[`${unit}_per_sec`])
    ],
    [
      `latency p50 / p99 / max (ms, ${result.rate ? 'from scheduled start' : 'send -> answer'})`,
      `${fmt(result.latency_ms.p50)} / ${fmt(result.latency_ms.p99)} / ${fmt(result.latency_ms.max)}`
    ]
  )
  out.push(summary.toString())
  out.push(...driftLines(result.drift, fmt))
  if (result.errors.length > 0) out.push(errorsTable(result, unit))
  return out.join('\n') + '\n'
}




function wrap (text, width) {
  const s = String(text ?? '')
  const lines = []
  for (let i = 0; i < s.length && lines.length < 4; i += width) lines.push(s.slice(i, i + width))
  if (s.length > width * 4) lines[3] = lines[3].slice(0, width - 1) + '…'
  return lines.join('\n')
}

/** The whole report of a result: its workload's, and the companion ingest's beside a query mix. */
/**
 * A saved run's header, from its result alone (what the run printed at its start, in short): which benchmark, run,
 * start and seed; the cluster, its version and protocol; the load's shape. `crate-bench report` prints it first.
 */
function resultHeader (result) {
  const o = result.options || {}
  const env = result.environment || {}
  const cluster = [env.cratedb_version ? `CrateDB ${env.cratedb_version}` : null,
    env.cratedb_nodes ? `${fmt(env.cratedb_nodes)} node${env.cratedb_nodes === 1 ? '' : 's'}` : null]
    .filter(Boolean).join(', ')
  const pace = o.stages ? `--stages ${[].concat(o.stages).map((st) => (typeof st === 'string' ? st
    : `${st.duration_ms / 1000}s:${st.from === st.to ? st.from : `${st.from}..${st.to}`}`)).join(',')}`
    : typeof o.rate === 'number' ? `--rate ${fmt(o.rate)}/s` : 'as fast as answers come'
  const started = result.started_at
    ? `, started ${String(result.started_at).replace('T', ' ').replace(/\.\d+Z$/, ' UTC')}` : ''
  const seed = o.seed !== undefined ? `, seed ${o.seed}` : ''
  const protocol = o.protocol === 'pg' ? `the PostgreSQL protocol (port ${o.pg_port})` : 'HTTP'
  return [`${result.workload} benchmark, run ${o.run_id ?? '?'}${started}${seed}`,
    `  cluster:  ${(o.hosts || []).join(', ') || '?'}${cluster ? ` (${cluster})` : ''}, over ${protocol}`,
    `  load:     ${fmt(o.processes ?? '?')} process${o.processes === 1 ? '' : 'es'} x ` +
      `${fmt(o.concurrent_requests ?? '?')} in flight, ${pace}`].join('\n') + '\n'
}

function terminalReport (result) {
  const companion =
    result.ingest && result.workload === 'analytical' ? renderCompanion(loadWorkload('ingest'), result.ingest) : ''
  return renderReport(loadWorkload(result.workload), result) + companion
}

/**
 * "cluster CPU: 64.2 ms per 1,000 rows over the measured window (from …); 2 cores bound the rate at 31,175 rows/s",
 * or null where the run could not tell its cluster's CPU.
 */
function clusterCpuLine (cost) {
  if (!cost) return null
  const one = cost.unit === 'rows' ? 'rows' : 'queries'
  return `cluster CPU: ${fmt(cost.ms_per_1000)} ms per 1,000 ${one} over the measured window (from ` +
    `${cpuSourceText(cost)})${cost.bound_per_sec ? `; ${cost.cores} cores bound the rate at ` +
    `${fmt(cost.bound_per_sec)} ${one}/s` : ''}`
}

module.exports = { clusterCpuLine, renderReport, renderCompanion, terminalReport, resultHeader }
