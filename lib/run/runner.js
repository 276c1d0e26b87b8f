'use strict'

const os = require('node:os')
const fs = require('node:fs')
const { EXIT, FatalError, errorLine } = require('../base/errors')
const { loadEnvFile } = require('../cli/env-file')
const { guardOutput, outputFailure } = require('../cli/output')
const { parseOptions, describeOptions } = require('../cli/options')
const { CrateClient, CrateHttpError } = require('../cluster/http-client')
const { Interrupts } = require('../cli/interrupts')
const { HostEvents } = require('../cluster/host-events')
const { now } = require('../base/clock')
const { runLoad } = require('./load-stage')
const { Totals } = require('../results/stats')
const { describeIncident, startupFailures, fatalIncidents } = require('./incidents')
const {
  createResultsTableSql, insertResultSql, resultRow, COLUMNS_SQL, resultsTableProblem
} = require('../results/store')
const { buildResult, exitCodeOf } = require('../results/result')
const { renderReport, renderCompanion } = require('../reports/text')
const { timelineResult } = require('../results/timeline')
const { evaluateThresholds } = require('../results/thresholds')
const { round } = require('../base/format')

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
  const ctx = createContext(workload, options, { stdout, stderr, signalTarget })
  ctx.name = name
  const fleet = Boolean(options.fleet)
  // Only a fleet's generators load its stages (and the merged report they print): no start-up cost for a plain run.
  const { joinFleet, prepareInFleet, fleetBarrier, leaveFleet } = fleet ? require('./fleet-stages') : {}
  try {
    announce(ctx)
    if (options.metrics) await startMetrics(ctx)
    await stage(ctx, 'check hosts', checkHosts)
    if (fleet) await stage(ctx, 'join the fleet', joinFleet)
    await stage(ctx, 'prepare', fleet ? (c) => prepareInFleet(c, prepare) : prepare)
    if (fleet) ctx.beforeLoad = fleetBarrier
    // The finish restores what prepare changed, even when the load failed; a fleet's steward does it for the
    // fleet, once every generator is done.
    await stage(ctx, 'load', runLoad).finally(() => !fleet && stage(ctx, 'finish', finish))
    throwIfCouldNotStart(ctx)
    const results = report(ctx)
    await stage(ctx, 'store', (c) => storeResult(c, results.main))
    if (ctx.metrics) ctx.metrics.finish(finalResults(ctx, results))
    const code = exitCode(ctx, results)
    if (!fleet) return code
    let left = null
    try {
      await stage(ctx, 'finish the fleet', async (c) => {
        left = await leaveFleet(c, results.main, code, (totals, lost) => finishFleetTables(c, totals, lost))
      })
    } finally {
      // A generator's --json waits for the fleet's finish, to say who finished it (and whom it found dead).
      if (left) {
        results.main.fleet_finish = { finished_by: left.finishedBy, dead: left.dead.map((g) => g.generator + 1) }
      }
      writeJson(ctx, results.main)
    }
    // The finisher's own run may have been whole; the fleet's is not when a generator died.
    return left && left.dead.length > 0 ? Math.max(code, EXIT.PARTIAL) : code
  } catch (error) {
    if (ctx.fleet) await ctx.fleet.failed(errorLine(error.message)).catch(() => {})
    throw error
  } finally {
    if (ctx.stopHeartbeat) ctx.stopHeartbeat()
    if (ctx.metrics) await ctx.metrics.stop({ lingerMs: METRICS_LINGER_MS })
    ctx.interrupts.uninstall()
    ctx.client.close()
  }
}

// The last scrape must see the final values: /metrics stays up this long after the run (the tests shorten it with
// CRATE_BENCH_METRICS_LINGER_MS, which users never set).
const METRICS_LINGER_MS = Number(process.env.CRATE_BENCH_METRICS_LINGER_MS ?? 5000)

/** --metrics_port: /metrics from the master, before anything else, so that a port in use costs no run. */
async function startMetrics (ctx) {
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
    rates: [
      ...(options.rate ? [{ workload: workload.name, rate: options.rate }] : []),
      ...(ctx.companion && ctx.companion.options.rate
        ? [{ workload: ctx.companion.workload.name, rate: ctx.companion.options.rate }]
        : [])
    ]
  }).start()
  ctx.log(`  metrics:  http://${options.metrics.host}:${ctx.metrics.port}/metrics (Prometheus text format)`)
}

/** The results as reported, for the final values of /metrics. */
function finalResults (ctx, { main, companion }) {
  const final = [{ workload: ctx.workload.name, result: main }]
  if (companion) final.push({ workload: ctx.companion.workload.name, result: companion })
  return final
}

function createContext (workload, options, { stdout, stderr, signalTarget }) {
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
    // A companion runs next to the main workload (--ingest_rate: an ingest next to the query mix).
    companion: workload.companion ? workload.companion(options) : null,
    stage: 'parse',
    interruptedDuring: null,
    partialReasons: [],
    prepared: null,
    companionPrepared: null,
    load: null,
    cluster: null,
    finished: {}
  }
  ctx.interrupts.on('interrupt', ({ signal, count }) => onInterrupt(ctx, signal, count))
  ctx.hostEvents.watch('master', client)
  return ctx
}

function onInterrupt (ctx, signal, count) {
  if (count === 1) {
    ctx.interruptedDuring = ctx.stage
    ctx.interruptedAt = now()
    ctx.partialReasons.push(`interrupted (${signal}) during ${ctx.stage}`)
    const waitsFor = ctx.stage === 'load' ? 'the requests in flight' : 'the statement in progress'
    if (ctx.fleet) ctx.fleet.stop()
    ctx.log(`\n${signal}: stopping; waiting for ${waitsFor} (${signal} again to abandon them)`)
  } else {
    if (ctx.fleet) ctx.fleet.stop()
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
  if (ctx.interrupts.interrupted && !runsAfterInterrupt(ctx, name)) return
  ctx.stage = name
  try {
    await fn(ctx)
  } catch (error) {
    if (!ctx.interrupts.interrupted) throw error
    ctx.partialReasons.push(`${name} not completed: ${error.message}`)
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
  const n = (x) => x.toLocaleString('en-US')
  const share = options.fleetRate == null ? ''
    : ` (this generator's share of the fleet's --rate ${n(options.fleetRate)} over ${options.generator.count})`
  const pace = options.rate == null
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
  ctx.log(`  workload: ${workload.describeLoad(options)}`)
  ctx.log(
    `  load:     ${options.processes} process${options.processes === 1 ? '' : 'es'} x ${options.concurrentRequests} ` +
    `in flight, ${pace}, until ${limits}`
  )
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
  ctx.environment = await environmentOf(client)
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

/** The results table, the companion's tables, then the workload's: DDL once, before any worker starts. */
async function prepare (ctx) {
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
  if (ctx.companion) {
    ctx.companionPrepared = await ctx.companion.workload.prepare({
      client,
      options: ctx.companion.options,
      log,
      sqlOrFail
    })
  }
  ctx.prepared = await ctx.workload.prepare({ client, options, log, sqlOrFail })
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
async function finish (ctx) {
  const interruptsAtStart = ctx.interrupts.count
  const shouldCount = () => Boolean(ctx.load && ctx.load.loadStarted) &&
    ctx.interrupts.count === interruptsAtStart && interruptsAtStart <= 1
  const client = ctx.interrupts.count >= 2 ? withTimeout(ctx.client, ABANDONED_STATEMENT_TIMEOUT_MS) : ctx.client
  const parts = [[ctx.companion, ctx.companionPrepared, 'companion'], [ctx, ctx.prepared, 'main']]
  for (const [owner, prepared, key] of parts) {
    if (!owner || !prepared) continue
    const outcome = loadOutcome(ctx, key)
    ctx.finished[key] = await owner.workload.finish({
      client,
      options: owner.options,
      prepared,
      totals: outcome.totals,
      // Workers that died before their final report: what they sent after their last delta is unknown here.
      lostWorkers: outcome.workers.filter((w) => w.exit && !w.reported)
        .map((w) => ({ index: w.index, unitsSent: w.totals.unitsSent, seconds: w.totals.seconds })),
      log: ctx.log,
      shouldCount
    })
  }
}

/**
 * The steward's finish for the fleet: the workload's own finish (refresh_interval restored, the table refreshed and
 * counted) on the counts of every generator, with those that died as workers that died.
 */
async function finishFleetTables (ctx, totals, lostWorkers) {
  let main = {}
  for (const [owner, prepared] of [[ctx.companion, ctx.companionPrepared], [ctx, ctx.prepared]]) {
    if (!owner || !prepared) continue
    const isMain = owner === ctx
    const finished = await owner.workload.finish({
      client: ctx.client,
      options: owner.options,
      prepared,
      totals,
      lostWorkers: isMain ? lostWorkers : [],
      log: ctx.log,
      // The companion's counts are not these: its table is restored, not counted.
      shouldCount: () => isMain && !ctx.interrupts.interrupted
    })
    if (isMain) main = finished
  }
  return main
}

function withTimeout (client, timeoutMs) {
  return { sql: (stmt, args, options = {}) => client.sql(stmt, args, { ...options, timeoutMs }) }
}

/** What the load produced for one group; an empty outcome when the load never ran. */
function loadOutcome (ctx, key) {
  const outcome = ctx.load && ctx.load[key]
  return outcome || { totals: new Totals(), workers: [], incidents: [], resources: [] }
}

/** A worker that could not even start means the run could not run: exit 3, as for bad DDL. */
function throwIfCouldNotStart (ctx) {
  const failures = startupFailures([loadOutcome(ctx, 'main'), loadOutcome(ctx, 'companion')])
  if (failures.length > 0 && !ctx.interrupts.interrupted) throw new FatalError(failures[0])
}

/** The human report on stderr, the JSON result on stdout; both from one result object. */
function report (ctx) {
  const { workload, options } = ctx
  const companion =
    ctx.companion &&
    resultOf(ctx, 'companion', ctx.companion.workload, ctx.companion.options, describeOptions(ctx.companion.options))
  const main = resultOf(ctx, 'main', workload, options, ctx.describedOptions, companion)
  const endMs = ctx.load ? ctx.load.main.totals.lastAnsweredAt : null
  main.timeline = timelineResult({
    timeline: ctx.timeline,
    cluster: ctx.cluster,
    monitorStartedAt: ctx.monitorStartedAt,
    loadStartAt: ctx.loadStartAt,
    endMs,
    warmupMs: options.warmupMs || 0,
    events: runEvents(ctx, main.events)
  })
  main.environment = ctx.environment || null
  main.thresholds = evaluateThresholds(options.thresholds || [], main, workload.unit)
  const text = renderReport(workload, main) + (companion ? renderCompanion(ctx.companion.workload, companion) : '')
  ctx.stderr.write(text)
  // A fleet's generator prints its --json after the fleet's finish (writeJson), with who finished it.
  if (!options.fleet) writeJson(ctx, main)
  if (options.report) writeHtmlReport(ctx, main, text)
  return { main, companion }
}

function writeJson (ctx, result) {
  if (ctx.options.json) ctx.stdout.write(`${JSON.stringify(result)}\n`)
}

/** --report: the HTML file, after the report on stderr, so a failure here loses no figures. */
function writeHtmlReport (ctx, result, terminalReport) {
  const { renderHtmlReport } = require('../reports/html')
  try {
    fs.writeFileSync(ctx.options.report, renderHtmlReport(result, { terminalReport }))
  } catch (error) {
    throw new FatalError(
      `the run finished, but the HTML report could not be written to ${ctx.options.report}: ${error.message}`
    )
  }
  ctx.log(`HTML report written to ${ctx.options.report}`)
}

function resultOf (ctx, key, workload, options, describedOptions, companionResult = null) {
  const outcome = loadOutcome(ctx, key)
  const extra = { ...ctx.finished[key] }
  const partialReasons = outcome.incidents.map(describeIncident)
  // Every answer came during the warm-up: the run measured nothing, and must not pass for a clean run.
  if (options.warmupMs > 0 && outcome.totals.all.requests === 0 && outcome.totals.warmup.requests > 0) {
    partialReasons.push('the run ended within --warmup: nothing was measured (raise --max_rows or give --duration)')
  }
  if (key === 'main') {
    partialReasons.unshift(...ctx.partialReasons)
    if (companionResult) {
      extra[ctx.companion.workload.name] = companionResult
      for (const reason of companionResult.partial_reasons) {
        partialReasons.push(`${ctx.companion.workload.name} next to the run: ${reason}`)
      }
    }
  }
  return buildResult({
    workload,
    options,
    describedOptions,
    totals: outcome.totals,
    workers: outcome.workers,
    partialReasons,
    resources: outcome.resources,
    extra,
    cluster: key === 'main' ? ctx.cluster : null,
    events: key === 'main' ? ctx.hostEvents.toJSON(loadOrigin(ctx)) : []
  })
}

/** Where event times count from: the start of the load, or of the run when no load started. */
const loadOrigin = (ctx) => ctx.loadStartAt ?? ctx.startedAt

/** The timeline's events: the result's host events and the interruption. */
function runEvents (ctx, hostEvents) {
  const events = [...hostEvents]
  if (ctx.interruptedAt) {
    events.push({
      at_s: round((ctx.interruptedAt - loadOrigin(ctx)) / 1000, 3),
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

function exitCode (ctx, { main, companion }) {
  // The report above still shows what was measured; the run itself could not go on.
  const fatal = fatalIncidents([loadOutcome(ctx, 'main'), loadOutcome(ctx, 'companion')])
  if (fatal.length > 0 && !ctx.interrupts.interrupted) throw new FatalError(fatal.join('; '))
  const code = exitCodeOf(main, ctx.workload.unit)
  const worst = companion ? Math.max(code, exitCodeOf(companion, ctx.companion.workload.unit)) : code
  // A partial run says more than a threshold; a missed threshold more than rows that failed.
  if (worst !== EXIT.PARTIAL && main.thresholds.some((t) => !t.passed)) return EXIT.THRESHOLDS
  return worst
}

/**
 * An error as one line a person can read and no secret: line breaks (yargs, CrateDB messages)
 * folded, other control characters shown as escapes, passwords masked.
 */
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
    stderr.write(`${shownName}: error: ${errorLine(message)}\n`)
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
