'use strict'

const os = require('node:os')
const fs = require('node:fs')
const { EXIT, FatalError, errorLine, errorText } = require('../base/errors')
const { loadEnvFile } = require('../cli/env-file')
const { guardOutput, outputFailure } = require('../cli/output')
const { parseOptions, describeOptions } = require('../cli/options')
const { CrateClient, CrateHttpError } = require('../cluster/http-client')
const { Interrupts } = require('../cli/interrupts')
const { HostEvents } = require('../cluster/host-events')
const { now } = require('../base/clock')
const { EventEmitter } = require('node:events')
const { runLoad } = require('./load-stage')
const { loadGroups, mainGroup, companionGroup, outcomeOf } = require('./load-groups')
const { soloCoordination } = require('./solo-coordination')
const { describeIncident, startupFailures, fatalIncidents } = require('./incidents')
const {
  createResultsTableSql, insertResultSql, resultRow, COLUMNS_SQL, resultsTableProblem
} = require('../results/store')
const { buildResult, exitCodeOf, exitCodeWithThresholds } = require('../results/result')
const { renderReport, renderCompanion } = require('../reports/text')
const { timelineResult } = require('../results/timeline')
const { driftOf } = require('../results/drift')
const { stageResults } = require('../results/stages')
const { stageText, granularityWarnings } = require('../data/load-profile')
const { unitsPerRequestOf } = require('../workloads/workload')
const { SelfMonitor } = require('./self-monitor')
const { evaluateThresholds } = require('../results/thresholds')
const { workersInMasterProcess, applyWorkerFlags } = require('./worker-placement')
const { round, grouped, fmt } = require('../base/format')

// Once a run is abandoned (Ctrl-C twice), what the master still sends (the table's reset) may
// not wait for a whole --timeout.
const ABANDONED_STATEMENT_TIMEOUT_MS = 5000

/**
 * The master of every workload, as a pipeline: parse -> check hosts -> prepare -> load -> finish
 * -> report -> store. One signal watcher covers every stage: Ctrl-C or SIGTERM skips the stages
 * that would start something new, still finishes (the table's settings are restored) and
 * reports, and the run exits 4. Returns the exit code.
 */
async function run (workload, { argv, env, stdout, stderr, signalTarget = process, name = workload.script }) {
  const options = parseOptions(workload, argv, env, { name })
  const groups = loadGroups(workload, options)
  // A run of one process runs its worker here; its V8 flags are set before the first request.
  const workersInMaster = workersInMasterProcess(groups, env)
  if (workersInMaster) applyWorkerFlags(workload)
  // Only a fleet's generators load its coordination (and the merged report it prints): no start-up cost otherwise.
  const coordination = options.fleet ? new (require('./fleet-coordination').FleetCoordination)() : soloCoordination
  const ctx = createContext(workload, options, { stdout, stderr, signalTarget, coordination })
  ctx.name = name
  ctx.selfMonitor = new SelfMonitor().start()
  try {
    announce(ctx)
    if (options.metrics) await startMetrics(ctx, groups)
    if (options.ui) await startUi(ctx)
    ctx.environment = await stage(ctx, 'check hosts', checkHosts)
    await stage(ctx, 'join', (c) => coordination.join(c, groups))
    await stage(ctx, 'prepare', (c) => coordination.prepare(c, groups, () => prepare(c, groups)))
    let load = null
    try {
      load = await stage(ctx, 'load', (c) => runLoad(c, groups, coordination, { workersInMaster }))
    } finally {
      settle(groups, load)
      // The finish restores what prepare changed, even when the load failed; a fleet's finisher does it for the
      // fleet, once every generator is done.
      if (coordination.finishesTablesAfterLoad) await stage(ctx, 'finish', (c) => finish(c, groups, load))
    }
    throwIfCouldNotStart(ctx, groups)
    const results = report(ctx, groups, load)
    await stage(ctx, 'store', (c) => storeResult(c, results.main))
    if (ctx.metrics) ctx.metrics.finish(finalResults(groups, results))
    const code = exitCode(ctx, groups, results)
    let left = null
    try {
      left = await stage(ctx, 'leave', (c) => coordination.leave(c, {
        result: results.main,
        code,
        finishTables: (fleetTotals) => finishFleetTables(c, groups, fleetTotals),
        countGeneratorRows: (generator) => countGeneratorRows(c, groups, generator)
      }))
    } finally {
      if (left && left.fleetFinish) results.main.fleet_finish = left.fleetFinish
      if (coordination.resultWaitsForFinish) writeJson(ctx, results.main)
    }
    return left ? left.code : code
  } catch (error) {
    await coordination.failed(errorLine(error.message))
    throw error
  } finally {
    ctx.selfMonitor.stop()
    coordination.close()
    if (ctx.metrics) await ctx.metrics.stop({ lingerMs: METRICS_LINGER_MS })
    if (ctx.ui) {
      ctx.stage = 'linger'
      await ctx.ui.close()
    }
    ctx.interrupts.uninstall()
    ctx.client.close()
  }
}

/** Each group's outcome, from what the load stage returned (an empty one where the load never ran). */
function settle (groups, load) {
  for (const g of groups) g.outcome = (load && load.outcomes[g.role]) || null
}

// The last scrape must see the final values: /metrics stays up this long after the run (the tests shorten it with
// CRATE_BENCH_METRICS_LINGER_MS, which users never set).
const METRICS_LINGER_MS = Number(process.env.CRATE_BENCH_METRICS_LINGER_MS ?? 5000)

/** --metrics_port: /metrics from the master, before anything else, so that a port in use costs no run. */
async function startMetrics (ctx, groups) {
  const { MetricsExporter } = require('../metrics/exporter')
  const { options, workload } = ctx
  ctx.metrics = await new MetricsExporter({
    host: options.metrics.host,
    port: options.metrics.port,
    runId: options.runId,
    generator: options.generator.index + 1,
    workload: workload.name,
    toolVersion: require('../../package.json').version,
    model: options.model,
    rates: groups.filter((g) => g.options.rate).map((g) => ({ workload: g.workload.name, rate: g.options.rate }))
  }).start()
  ctx.log(`  metrics:  http://${options.metrics.host}:${ctx.metrics.port}/metrics (Prometheus text format)`)
}

/** --ui: the live page and its API, before anything else, so that a port in use costs no run. */
async function startUi (ctx) {
  const { serveLivePage } = require('../ui/live-server')
  const { LiveView } = require('../ui/live-view')
  const { options, workload } = ctx
  const view = new LiveView({ workload, options })
  ctx.ui = await serveLivePage({
    host: options.ui.host,
    port: options.ui.port,
    view,
    steeringOf: () => view.load && view.load.steering,
    workload,
    options,
    log: ctx.log,
    about: 'the page, and its API: docs/live-ui.md',
    steered: 'the run'
  })
  ctx.events.on('load', (load) => view.attach(load))
}

/** The results as reported, for the final values of /metrics. */
function finalResults (groups, results) {
  return groups.map((g) => ({ workload: g.workload.name, result: results[g.role] }))
}

/**
 * The run's services, which every stage may use: the options, output, the master's client, host events, interrupts,
 * the coordination and the run's events ('go'). What the stages produce is returned, not kept here.
 */
function createContext (workload, options, { stdout, stderr, signalTarget, coordination }) {
  // The master's statements change nothing twice when retried: a refused one goes to the next host.
  const client = new CrateClient({ ...options.connection, maxSockets: 2, retryUnsent: true })
  const ctx = {
    workload,
    options,
    stdout,
    stderr,
    log: (line) => stderr.write(`${line}\n`),
    client,
    hostEvents: new HostEvents({ hosts: client.hosts.map((h) => h.base) }),
    startedAt: now(),
    interrupts: new Interrupts({ target: signalTarget }).install(),
    coordination,
    events: new EventEmitter(),
    stage: 'parse',
    interruptedDuring: null,
    partialReasons: []
  }
  ctx.interrupts.on('interrupt', ({ signal, count }) => onInterrupt(ctx, signal, count))
  ctx.hostEvents.watch('master', client)
  return ctx
}

function onInterrupt (ctx, signal, count) {
  // The report is out and the live page lingers for an open page to fetch it: any Ctrl-C ends the wait.
  if (ctx.ui && (count > 1 || ctx.stage === 'linger')) ctx.ui.endLinger()
  if (count === 1) {
    ctx.interruptedDuring = ctx.stage
    ctx.interruptedAt = now()
    ctx.partialReasons.push(`interrupted (${signal}) during ${ctx.stage}`)
    const waitsFor = ctx.stage === 'load' ? 'the requests in flight' : 'the statement in progress'
    ctx.coordination.stop()
    ctx.log(`\n${signal}: stopping; waiting for ${waitsFor} (${signal} again to abandon them)`)
  } else {
    ctx.coordination.stop()
    ctx.log(`${signal}: abandoning what is in flight; the report follows`)
    // The master's own statement in flight; the load stage abandons the workers' requests.
    ctx.client.abort()
  }
}

/**
 * Runs one stage. After an interrupt only the finish (which restores what the run changed) and
 * the store of a load that was stopped cleanly still run. A statement that fails because it was
 * abandoned is part of the interruption, not an error of its own.
 */
async function stage (ctx, name, fn) {
  if (ctx.interrupts.interrupted && !runsAfterInterrupt(ctx, name)) return undefined
  ctx.stage = name
  try {
    return await fn(ctx)
  } catch (error) {
    if (!ctx.interrupts.interrupted) throw error
    ctx.partialReasons.push(`${name} not completed: ${error.message}`)
    return undefined
  }
}

function runsAfterInterrupt (ctx, name) {
  if (name === 'finish') return true
  return name === 'store' && ctx.interruptedDuring === 'load' && ctx.interrupts.count === 1
}

/** A header a person reads at a glance; every option is in --json. */
function announce (ctx) {
  const { workload, options } = ctx
  ctx.describedOptions = describeOptions(options, workload.describeExclude)
  const c = options.connection
  const tls = c.hosts[0].protocol === 'https' ? (c.insecure ? 'TLS, certificates NOT verified' : 'TLS') : 'no TLS'
  const n = grouped
  const share = options.fleetRate == null ? ''
    : ` (this generator's share of the fleet's --rate ${n(options.fleetRate)} over ${options.generator.count})`
  const stagesShare = options.fleetStages ? ` (this generator's share of the fleet's, over ${options.generator.count})`
    : ''
  const pace = options.stages
    // As the flag is written: a thousands separator would read as the next stage.
    ? `--stages ${options.stages.map((st) => stageText(st)).join(',')} ${workload.unit}/s over all processes` +
      stagesShare
    : options.rate == null
      ? 'as fast as answers come'
      : `--rate ${n(options.rate)} ${workload.unit}/s over all processes${share}`
  const limit = workload.countLimit(options)
  const limits = [
    options.durationMs ? `${options.durationMs / 1000} s` : null,
    limit === Number.MAX_SAFE_INTEGER ? null : `${n(limit)} ${workload.unit} per process`
  ]
    .filter(Boolean)
    .join(' or ')
  ctx.log(`${ctx.name}: ${workload.name} benchmark, run ${options.runId}, seed ${options.seed}`)
  ctx.log(
    `  cluster:  ${c.hosts.map((h) => `${h.protocol}://${h.hostname}:${h.port}`).join(', ')} as ${c.user} (${tls}), ` +
    `timeout ${c.timeoutMs / 1000} s`
  )
  if (c.protocol === 'pg') {
    ctx.log(`  protocol: the load over the PostgreSQL wire protocol, port ${c.pgPort} (checks and DDL over HTTP)`)
  }
  ctx.log(`  workload: ${workload.describeLoad(options)}`)
  ctx.log(
    `  load:     ${options.processes} process${options.processes === 1 ? '' : 'es'} x ${options.concurrentRequests} ` +
    `in flight, ${pace}, until ${limits}`
  )
  if (options.stages) {
    for (const warning of granularityWarnings(options.stages, { unitsPerRequest: unitsPerRequestOf(workload, options),
      processes: options.processes, unit: workload.unit })) ctx.log(warning)
  }
}

/**
 * SELECT 1 on every host, so a wrong password or TLS setting fails before any DDL. A host that
 * does not answer is left out until it does (the workers start with it down) while another one
 * answers; with none answering the run cannot run.
 */
async function checkHosts (ctx) {
  const { client, options } = ctx
  let unreachable
  try {
    unreachable = await client.requireOneHost()
  } catch (error) {
    if (error instanceof CrateHttpError) {
      throw new FatalError(`${error.host} refused the connection check: ${error.message}`)
    }
    throw new FatalError(`cannot reach CrateDB: ${error.message}`)
  }
  for (const error of unreachable) {
    ctx.log(
      `warning: ${error.message}; the run goes on with the other hosts and tries this one again every few seconds`
    )
    ctx.hostEvents.report('check', { kind: 'host_down', host: error.host, detail: error.message, at: now() })
  }
  // Workers fork after this: they start with the same hosts down.
  options.connection.downHosts = client.downHosts()
  if (options.connection.protocol === 'pg') await checkPgHosts(ctx)
  return { ...(await environmentOf(client)), protocol: options.connection.protocol }
}

/** --protocol pg: every host's PostgreSQL port takes a session (the port, the password, TLS), before any DDL. */
async function checkPgHosts (ctx) {
  const { createTransport } = require('../cluster/transport')
  const pg = createTransport(ctx.options.connection, { maxSockets: 1 })
  // A check changes nothing: Ctrl-C ends it at once instead of waiting for a silent port's --timeout.
  const abandon = () => pg.abort()
  ctx.interrupts.on('interrupt', abandon)
  try {
    const unreachable = await pg.requireOneHost()
    for (const error of unreachable) ctx.log(`warning: PostgreSQL protocol: ${error.message}`)
  } catch (error) {
    throw new FatalError(`cannot use the PostgreSQL protocol (--protocol pg, port ${ctx.options.connection.pgPort}): ` +
      error.message)
  } finally {
    ctx.interrupts.off('interrupt', abandon)
    pg.close()
  }
}

const ENVIRONMENT_SQL = "SELECT count(*) AS nodes, max(version['number']) AS version FROM sys.nodes"

/** Where the numbers come from: this tool and machine, and the cluster's version and size. */
async function environmentOf (client) {
  const cluster = await client.sql(ENVIRONMENT_SQL).catch(() => null)
  const [nodes, version] = (cluster && cluster.rows && cluster.rows[0]) || []
  const cpus = os.cpus()
  return {
    tool_version: require('../../package.json').version,
    node_version: process.version,
    load_generator: os.hostname(),
    cpus: os.availableParallelism(),
    cpu_model: cpus.length ? cpus[0].model : null,
    cratedb_version: version ?? null,
    cratedb_nodes: nodes ?? null
  }
}

/** The results table, then each group's tables (the companion's first): DDL once, before any worker starts. */
async function prepare (ctx, groups) {
  const { client, options, log } = ctx
  const sqlOrFail = async (stmt, args, what) => {
    try {
      return await client.sql(stmt, args)
    } catch (error) {
      throw new FatalError(`${what}: ${error.message}`)
    }
  }
  // Before any load: a results table that cannot be created or take the run's row must not cost a whole run.
  if (options.resultsTable) await prepareResultsTable(options.resultsTable, sqlOrFail)
  for (const g of [...groups].reverse()) {
    g.prepared = await g.workload.prepare({ client, options: g.options, log, sqlOrFail })
  }
}

async function prepareResultsTable (table, sqlOrFail) {
  await sqlOrFail(createResultsTableSql(table), undefined, `cannot create the results table ${table.display}`)
  const answer = await sqlOrFail(
    COLUMNS_SQL,
    [table.schema, table.table],
    `cannot read the columns of ${table.display}`
  )
  const problem = resultsTableProblem(answer.rows.map(([name]) => name), table)
  if (problem) throw new FatalError(problem)
}

/**
 * Restores what prepare changed (refresh_interval) whatever happened, then refreshes and counts
 * when the load ran to its end or was stopped cleanly; an interrupt during the finish skips the
 * counting that is left, never the restore.
 */
async function finish (ctx, groups, load) {
  const interruptsAtStart = ctx.interrupts.count
  const shouldCount = () => Boolean(load && load.loadStarted) &&
    ctx.interrupts.count === interruptsAtStart && interruptsAtStart <= 1
  const client = ctx.interrupts.count >= 2 ? withTimeout(ctx.client, ABANDONED_STATEMENT_TIMEOUT_MS) : ctx.client
  await finishGroups(ctx, groups, client, (g) => {
    const outcome = outcomeOf(g)
    return {
      totals: outcome.totals,
      // Workers that died before their final report: what they sent after their last delta is unknown here.
      lostWorkers: outcome.workers.filter((w) => w.exit && !w.reported)
        .map((w) => ({ index: w.index, unitsSent: w.totals.unitsSent, seconds: w.totals.seconds })),
      shouldCount
    }
  })
}

/**
 * A fleet finisher's finish: each group's own finish (refresh_interval restored, the table refreshed and counted) on
 * the counts of every generator. Returns what the main group's added.
 */
async function finishFleetTables (ctx, groups, fleetTotals) {
  await finishGroups(ctx, groups, ctx.client, (g) => ({
    totals: fleetTotals,
    lostWorkers: [],
    // The companion's counts are not these: its table is restored, not counted.
    shouldCount: () => g.role === 'main' && !ctx.interrupts.interrupted
  }))
  return mainGroup(groups).finished
}

/**
 * What one generator of the fleet wrote into the main group's table, counted by the rows' keys after a REFRESH; null
 * where the workload's rows cannot tell, or the count fails.
 */
async function countGeneratorRows (ctx, groups, generator) {
  const main = mainGroup(groups)
  if (!main.workload.countGeneratorRows || !main.prepared) return null
  try {
    for (const table of main.workload.writtenTables(main.options)) await ctx.client.sql(`REFRESH TABLE ${table.sql}`)
    return await main.workload.countGeneratorRows({ client: ctx.client, options: main.options,
      prepared: main.prepared, generator })
  } catch (error) {
    ctx.log(`warning: could not count generator ${generator.index + 1}'s rows in the table: ${error.message}`)
    return null
  }
}

/** Each prepared group's workload.finish, the companion's tables first as they were prepared; sets its `finished`. */
async function finishGroups (ctx, groups, client, inputsOf) {
  for (const g of [...groups].reverse()) {
    if (!g.prepared) continue
    const inputs = inputsOf(g)
    g.finished = await g.workload.finish({ client, options: g.options, prepared: g.prepared, log: ctx.log, ...inputs })
  }
}

function withTimeout (client, timeoutMs) {
  return { sql: (stmt, args, options = {}) => client.sql(stmt, args, { ...options, timeoutMs }) }
}

/** A worker that could not even start means the run could not run: exit 3, as for bad DDL. */
function throwIfCouldNotStart (ctx, groups) {
  const failures = startupFailures(groups.map(outcomeOf))
  if (failures.length > 0 && !ctx.interrupts.interrupted) throw new FatalError(failures[0])
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
    warmupMs: options.warmupMs || 0,
    events: runEvents(ctx, load, result.events)
  })
  result.environment = ctx.environment || null
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
  if (load && load.steering && load.steering.stopped) result.stopped_by = load.steering.stopped.by
  // What the master held over the run: a long run's report says whether the tool stayed flat.
  result.client.master_memory = ctx.selfMonitor.summary()
  // The master minute by minute, on the load's clock: a day-long run's report shows the tool stayed flat.
  if (load && load.startAt) result.timeline.client = ctx.selfMonitor.timelineRows(load.startAt)
  result.thresholds = evaluateThresholds(options.thresholds || [], result, main.workload.unit)
  const text = renderReport(main.workload, result) + (companion ? renderCompanion(side.workload, companion) : '')
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

/** What changed between the first and the last tenth of the load (until the last request was sent, or the stop). */
function driftOfRun (result, load, main) {
  const lastSentAt = main.outcome ? main.outcome.totals.lastSentAt : null
  const sentUntilS = lastSentAt === null ? null : (lastSentAt - load.startAt) / 1000
  const drift = driftOf({
    timeline: result.timeline,
    group: main.workload.name,
    unit: main.workload.unit,
    loadEndS: Math.min(result.stopped_at_s ?? Infinity, sentUntilS ?? Infinity),
    latencyIn: (fromS, toS) => load.timeline.latencyIn(main.workload.name, fromS, toS)
  })
  if (drift && result.table_storage) drift.table = result.table_storage
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
    options: g.options,
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
  return end > load.startAt ? profile.meanRate(0, end - load.startAt) : undefined
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

/** --results_table: one row per run, written after the report so a failure here loses no figures. */
async function storeResult (ctx, result) {
  const { client, options, workload } = ctx
  const table = options.resultsTable
  if (!table) return
  try {
    const answer = await client.sql(
      insertResultSql(table),
      resultRow(result, { runId: options.runId, unit: workload.unit })
    )
    if (answer.rowcount !== 1) throw new Error(`the server answered rowcount ${answer.rowcount}`)
    await client.sql(`REFRESH TABLE ${table.sql}`)
  } catch (error) {
    throw new FatalError(`the run finished, but its result could not be stored in ${table.display}: ${error.message}`)
  }
  ctx.log(`result stored in ${table.display} (run_id ${options.runId})`)
}

function exitCode (ctx, groups, results) {
  // The report above still shows what was measured; the run itself could not go on.
  const fatal = fatalIncidents(groups.map(outcomeOf))
  if (fatal.length > 0 && !ctx.interrupts.interrupted) throw new FatalError(fatal.join('; '))
  const worst = Math.max(...groups.map((g) => exitCodeOf(results[g.role], g.workload.unit)))
  return exitCodeWithThresholds(worst, results.main.thresholds)
}

/** Entry point of the app scripts: one-line errors, exit codes scripts can trust. */
async function main (workload, options = {}) {
  const { argv = process.argv.slice(2), env = process.env, stdout = process.stdout, stderr = process.stderr } = options
  const shownName = options.name ?? workload.script
  let code
  // loadEnvFile registers CRATE_PASSWORD for masking, from the environment or .env.
  guardOutput({ name: shownName, stdout, stderr })
  try {
    loadEnvFile(env)
    code = await run(workload, { argv, env, stdout, stderr, name: shownName })
  } catch (error) {
    const known = error && error.exitCode !== undefined
    const message = known ? error.message : `unexpected failure: ${error && error.message}`
    stderr.write(errorText(shownName, message))
    if (!known && env.CRATE_BENCH_DEBUG) stderr.write(`${error.stack}\n`)
    code = known ? error.exitCode : EXIT.CANNOT_RUN
  }
  // A result that could not be delivered: what the run measured is lost to the caller.
  if (outputFailure() && (code === EXIT.OK || code === EXIT.FAILURES)) code = EXIT.CANNOT_RUN
  process.exitCode = code
  // A forgotten socket or timer must not turn a finished run into a hang; a stdout error seen by then counts.
  setTimeout(() => process.exit(outputFailure() && code < EXIT.CANNOT_RUN ? EXIT.CANNOT_RUN : code), 2000).unref()
  return code
}

module.exports = { main, run }
