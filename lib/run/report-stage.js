'use strict'

const fs = require('node:fs')
const { FatalError } = require('../base/errors')
const { describeOptions } = require('../cli/options')
const { mainGroup, companionGroup, outcomeOf } = require('./load-groups')
const { describeIncident } = require('./incidents')
const { buildResult } = require('../results/result')
const { renderReport, renderCompanion } = require('../reports/text')
const { timelineResult } = require('../results/timeline')
const { driftOf, sustainedOf } = require('../results/drift')
const { sustainedVerdict } = require('../reports/sustained')
const { profileOf } = require('./steering')
const { stageResults } = require('../results/stages')
const { unitsPerRequestOf } = require('../workloads/workload')
const { evaluateThresholds } = require('../results/thresholds')
const { round, fmt } = require('../base/format')
const { cpuCostOf } = require('../results/cpu-cost')
const { provisionedLine, lostNodeLines } = require('../reports/provisioned')

// The report stage: each group's result from what the load measured (timeline, stages, drift, the master's own
// figures), printed, written as JSON and HTML.

/**
 * The environment with what the run started (environment.cluster.provisioned): the spec, version, build hash, the
 * distribution's SHA-256, nodes, heap, settings, Java; and its nodes that died during the run, each with its log.
 */
function withProvisioned (environment, started) {
  if (!started) return environment
  const provisioned = { ...started.record, lost_nodes: started.lostNodes() }
  const base = environment || {}
  return { ...base, cluster: { ...(base.cluster || {}), provisioned } }
}

/** The report's lines on what the run started: the line of its header, and each node that died during the run. */
function provisionedText (result) {
  const p = result.environment && result.environment.cluster && result.environment.cluster.provisioned
  if (!p) return ''
  const lines = [provisionedLine(p)]
  const of = p.by ? `the cluster ${p.by} started` : undefined
  for (const lost of p.lost_nodes || []) lines.push(...lostNodeLines(lost, of))
  return `${lines.join('\n')}\n`
}

/** The human report on stderr; returns each group's result, by role. */
function report (ctx, groups, load) {
  const { options } = ctx
  const main = mainGroup(groups)
  const side = companionGroup(groups)
  const companion = side && resultOf(ctx, side, load, describeOptions(side.options))
  const result = resultOf(ctx, main, load, ctx.describedOptions, companion)
  result.timeline = timelineResult({
    timeline: load && load.timeline,
    cluster: load && load.cluster,
    monitorStartedAt: load && load.monitorStartedAt,
    loadStartAt: load && load.startAt,
    endMs: main.outcome ? main.outcome.totals.lastAnsweredAt : null,
    warmupMs: warmupMsOf(options, load),
    events: runEvents(ctx, load, result.events)
  })
  result.environment = withProvisioned(ctx.environment || null, options.startedCluster)
  // What the rest of this machine took during the load: others' share makes a run busy (reports/cluster-limits.js).
  result.machine = load && load.machine ? load.machine : null
  // The cluster's CPU per 1,000 units over the measured window, and the rate it bounds (run/cluster-cpu.js).
  const unit = main.workload.unit
  result.cluster_cpu = cpuCostOf(load && load.clusterCpu, result[`${unit}_ok`], unit)
  const stoppedAt = stoppedEarlyAt(ctx, load)
  if (stoppedAt !== null) result.stopped_at_s = round((stoppedAt - load.startAt) / 1000, 3)
  if (options.stages) {
    const staged = stageResults({
      stoppedAtS: result.stopped_at_s ?? null,
      stages: options.stages,
      profile: load && load.steering ? load.steering.profiles().main : null,
      timeline: result.timeline,
      group: main.workload.name,
      unit: main.workload.unit,
      nodes: result.timeline.nodes,
      thresholds: options.thresholds || [],
      granularity: unitsPerRequestOf(main.workload, main.options) * options.processes,
      queueingFactor: options.queueingFactor ?? undefined
    })
    result.stages = staged.stages
    result.first_stage_not_kept_up = staged.first_not_kept_up
  }
  result.drift = load && load.timeline ? driftOfRun(result, load, main) : null
  result.sustained = sustainedOf(result.drift, { tableEnd: result.table_storage ? result.table_storage.end : null })
  // Whether it held: a --rate run far below its target held nothing, and its report must not say it did.
  if (result.sustained) Object.assign(result.sustained, sustainedVerdict(result, main.workload.unit))
  // The ingest beside a query mix drifts on its own (its growing table is the first suspect of the queries' drift).
  if (companion) companion.drift = load && load.timeline ? driftOfRun(result, load, side, companion) : null
  if (load && load.steering && load.steering.stopped) result.stopped_by = load.steering.stopped.by
  // What the master held over the run: a long run's report says whether the tool stayed flat.
  result.client.master_memory = ctx.selfMonitor.summary()
  // The master minute by minute, on the load's clock: a day-long run's report shows the tool stayed flat.
  if (load && load.startAt) result.timeline.client = ctx.selfMonitor.timelineRows(load.startAt)
  result.thresholds = evaluateThresholds(options.thresholds || [], result, main.workload.unit)
  const text = renderReport(main.workload, result) + (companion ? renderCompanion(side.workload, companion) : '') +
    provisionedText(result)
  // A generator of a fleet on this machine: its figures in one line, the fleet's merged report follows them.
  ctx.stderr.write(process.env.CRATE_BENCH_FLEET_LOCAL ? briefLine(main.workload.unit, result) : text)
  // A fleet generator's --json waits for the fleet's finish (run()), to say who finished it.
  if (!ctx.coordination.resultWaitsForFinish) writeJson(ctx, result)
  const html = options.report || ctx.ui ? require('../reports/html').renderHtmlReport(result, { terminalReport: text })
    : null
  if (ctx.ui) ctx.ui.finish(html)
  if (options.report) writeHtmlReport(ctx, html)
  return { main: result, companion }
}

/**
 * What changed between the first and the last tenth of group `g`'s load (until its last request was sent, or the
 * stop), on the run's timeline; under a target (--rate, --stages, a rate steered) judged against it. `own`: the
 * group's result, whose table it reports (the run's own result for the main group).
 */
function driftOfRun (result, load, g, own = result) {
  const lastSentAt = g.outcome ? g.outcome.totals.lastSentAt : null
  const sentUntilS = lastSentAt === null ? null : (lastSentAt - load.startAt) / 1000
  const profile = load.steering ? load.steering.profiles()[g.role] ?? null : profileOf(g.options)
  const drift = driftOf({
    timeline: result.timeline,
    group: g.workload.name,
    unit: g.workload.unit,
    loadEndS: Math.min(result.stopped_at_s ?? Infinity, sentUntilS ?? Infinity),
    latencyIn: (fromS, toS) => load.timeline.latencyIn(g.workload.name, fromS, toS),
    targetIn: profile ? (fromS, toS) => profile.meanRate(fromS * 1000, toS * 1000) : null
  })
  if (drift && own.table_storage) drift.table = own.table_storage
  return drift
}

function briefLine (unit, result) {
  const g = result.options && result.options.generator
  const l = result.latency_ms || {}
  return `generator${g ? ` ${g.index + 1}/${g.count}` : ''}: ${fmt(result[`${unit}_ok`])} ${unit} ok, ` +
    `${fmt(result[`${unit}_failed`])} failed, ${fmt(result[`${unit}_in_doubt`])} in doubt, ` +
    `${fmt(result[`${unit}_per_sec`])} ${unit}/s, p50 ${fmt(l.p50)} ms, p99 ${fmt(l.p99)} ms` +
    `${result.partial ? ', PARTIAL' : ''} (the fleet's merged report follows)\n`
}

function writeJson (ctx, result) {
  if (ctx.options.json) ctx.stdout.write(`${JSON.stringify(result)}\n`)
}

/** --report: the HTML file, after the report on stderr, so a failure here loses no figures. */
function writeHtmlReport (ctx, html) {
  try {
    fs.writeFileSync(ctx.options.report, html)
  } catch (error) {
    throw new FatalError(
      `the run finished, but the HTML report could not be written to ${ctx.options.report}: ${error.message}`
    )
  }
  ctx.log(`HTML report written to ${ctx.options.report}`)
}

/** One group's result; the main group's carries the run's partial reasons, cluster, events and the companion's. */
function resultOf (ctx, g, load, describedOptions, companionResult = null) {
  const outcome = outcomeOf(g)
  const extra = { ...g.finished }
  const partialReasons = outcome.incidents.map(describeIncident)
  // Every answer came during the warm-up: the run measured nothing, and must not pass for a clean run.
  if (g.options.warmupMs > 0 && outcome.totals.all.requests === 0 && outcome.totals.warmup.requests > 0) {
    partialReasons.push('the run ended within --warmup: nothing was measured (raise --max_rows or give --duration)')
  }
  const isMain = g.role === 'main'
  if (isMain) {
    partialReasons.unshift(...ctx.partialReasons)
    if (companionResult) {
      const companionName = companionResult.workload
      extra[companionName] = companionResult
      for (const reason of companionResult.partial_reasons) {
        partialReasons.push(`${companionName} next to the run: ${reason}`)
      }
    }
  }
  return buildResult({
    workload: g.workload,
    options: { ...g.options, warmupMs: warmupMsOf(g.options, load), warmupCapMs: g.options.warmupMs },
    steadyWarmup: load && load.warmup,
    describedOptions,
    totals: outcome.totals,
    workers: outcome.workers,
    partialReasons,
    resources: outcome.resources,
    extra,
    cluster: isMain && load ? load.cluster : null,
    events: isMain ? [...ctx.hostEvents.toJSON(loadOrigin(ctx, load)), ...steeringEvents(load)] : [],
    targetPerSec: targetOf(g, load, outcome, stoppedEarlyAt(ctx, load))
  })
}

/** How long the warm-up was: a steady one's as it ended (its cap when the run ended inside it), else --warmup. */
const warmupMsOf = (options, load) => (load && load.warmup ? load.warmup.ms : options.warmupMs || 0)

/**
 * The instant the load was stopped before its planned end (the page or the API, Ctrl-C), or null: what the run
 * asked for is judged up to there, never to the end it did not reach.
 */
function stoppedEarlyAt (ctx, load) {
  if (!load || load.startAt === null) return null
  const candidates = []
  if (load.steering && load.steering.stopped) candidates.push(load.steering.stopped.at)
  if (ctx.interruptedDuring === 'load' && ctx.interruptedAt) candidates.push(ctx.interruptedAt)
  const at = Math.min(...candidates.filter((t) => t >= load.startAt))
  const deadline = load.steering ? load.steering.deadline : null
  return Number.isFinite(at) && (deadline === null || at < deadline) ? at : null
}

const steeringEvents = (load) => (load && load.steering ? load.steering.events : [])

/**
 * An open-model group's target over its load as it really was: --rate, the stages' mean, or with the rate changed
 * by hand the mean of what was asked, from the start to the planned end, or to the stop when the run was stopped
 * before it (or the last answer, without either).
 */
function targetOf (g, load, outcome, stoppedAt) {
  if (!load || !load.steering || load.startAt === null) return undefined
  const profile = load.steering.profiles()[g.role]
  const changed = load.steering.changed(g.role)
  if (!profile || (!g.options.stages && !changed)) return undefined
  const end = stoppedAt ?? load.steering.deadline ?? outcome.totals.lastAnsweredAt
  if (!(end > load.startAt)) return undefined
  // What was asked and held: a backlog a change of the rate withdrew (a rate typed by mistake for a moment) was never
  // the cluster's to serve.
  const seconds = (end - load.startAt) / 1000
  const withdrawn = outcome.totals.withdrawnUnits || 0
  return Math.max(0, profile.meanRate(0, end - load.startAt) - withdrawn / seconds)
}

/** Where event times count from: the start of the load, or of the run when no load started. */
const loadOrigin = (ctx, load) => (load && load.startAt) ?? ctx.startedAt

/** The timeline's events: the result's host events and the interruption. */
function runEvents (ctx, load, hostEvents) {
  const events = [...hostEvents]
  if (ctx.interruptedAt) {
    events.push({
      at_s: round((ctx.interruptedAt - loadOrigin(ctx, load)) / 1000, 3),
      kind: 'interrupted',
      host: null,
      detail: `${ctx.interrupts.firstSignal} during ${ctx.interruptedDuring}`
    })
  }
  return events
}

module.exports = { report, writeJson }
