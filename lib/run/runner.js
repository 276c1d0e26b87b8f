'use strict'

const { EXIT, FatalError, UsageError, errorLine, errorText } = require('../base/errors')
const { clusterOptionsOf, refuseConnectionFlags } = require('../cli/cluster-flags')
const { stoppedLine } = require('../reports/provisioned')
const { BenchmarkOptions } = require('../cli/benchmark-options')
const { readStudyObject } = require('../base/files')
const { isProvisionedRecord } = require('../results/provisioned')
const { startedByRun, startedByStudy } = require('./started-cluster')
const { loadEnvFile } = require('../cli/env-file')
const { guardOutput, outputFailure } = require('../cli/output')
const { parseOptions } = require('../cli/options')
const { CrateClient } = require('../cluster/http-client')
const { Interrupts } = require('../cli/interrupts')
const { HostEvents } = require('../cluster/host-events')
const { now } = require('../base/clock')
const { EventEmitter } = require('node:events')
const { runLoad } = require('./load-stage')
const { loadGroups, outcomeOf } = require('./load-groups')
const { soloCoordination } = require('./solo-coordination')
const { startupFailures, fatalIncidents } = require('./incidents')
const { insertResultSql, resultRow } = require('../results/store')
const { exitCodeOf, exitCodeWithThresholds } = require('../results/result')
const { SelfMonitor } = require('./self-monitor')
const { announce, checkHosts } = require('./check-stage')
const { prepare, finish, finishFleetTables, countFleetRows } = require('./table-stages')
const { report, writeJson } = require('./report-stage')
const { workersInMasterProcess, applyWorkerFlags } = require('./worker-placement')


/**
 * The master of every workload, as a pipeline: parse -> check hosts -> prepare -> load -> finish
 * -> report -> store. One signal watcher covers every stage: Ctrl-C or SIGTERM skips the stages
 * that would start something new, still finishes (the table's settings are restored) and
 * reports, and the run exits 4. Returns the exit code.
 */
async function run (workload, { argv, env, stdout, stderr, signalTarget = process, name = workload.script }) {
  const { rest, given } = BenchmarkOptions.fromCommandLine(argv).splitCluster()
  const clusterOptions = clusterOptionsOf(given)
  const checked = parseOptions(workload, rest.toArgv(), env, { name })
  if (!clusterOptions) {
    if (checked.startedByStudy) checked.startedCluster = startedByStudy(studyRecordOf(checked.startedByStudy))
    return runParsed(workload, checked, { env, stdout, stderr, signalTarget, name })
  }
  if (checked.fleet) {
    throw new UsageError('--start_cluster starts a cluster for one run: the generators of a fleet share one')
  }
  refuseConnectionFlags(rest)
  // Only a run that starts a cluster loads what starts one.
  const { Target } = require('../provision/target')
  require('../provision/cluster').clusterSpec(clusterOptions)
  // The start is interruptible: Ctrl-C stops the nodes started so far, and the run that would follow never starts.
  const interrupts = new Interrupts({ target: signalTarget }).install()
  const log = (line) => stderr.write(`${line}\n`)
  let target
  try {
    target = await Target.start(clusterOptions, { log, signals: interrupts, env })
  } catch (error) {
    interrupts.uninstall()
    throw error
  }
  try {
    const ownEnv = { ...env, CRATE_PASSWORD: '' }
    const options = parseOptions(workload, rest.plus(target.connectionOf(rest, env)).toArgv(), ownEnv, { name })
    options.startedCluster = startedByRun(target)
    return await runParsed(workload, options, { env: ownEnv, stdout, stderr, signalTarget, name, interrupts })
  } finally {
    const stopped = await target.stop().catch((error) => ({ error }))
    log(stoppedLine(target.name, 'this run', stopped && stopped.error))
  }
}

/** The record of the cluster the run's study started (--started_by_study FILE, written by the study). */
function studyRecordOf (file) {
  const record = readStudyObject(file, (why) => new UsageError(`--started_by_study ${file} ${why}`),
    { kind: 'the record of a started cluster' })
  if (!isProvisionedRecord(record)) {
    throw new UsageError(`--started_by_study ${file} is no record of a cluster a study started`)
  }
  return record
}

/** The run of options parsed (and pointed at a started cluster, where the run started one). */
async function runParsed (workload, options, { env, stdout, stderr, signalTarget, name, interrupts = null }) {
  const groups = loadGroups(workload, options)
  // A run of one process runs its worker here; its V8 flags are set before the first request.
  const workersInMaster = workersInMasterProcess(groups, env)
  if (workersInMaster) applyWorkerFlags(workload)
  // Only a fleet's generators load its coordination (and the merged report it prints): no start-up cost otherwise.
  const coordination = options.fleet ? new (require('./fleet-coordination').FleetCoordination)() : soloCoordination
  const ctx = createContext(workload, options, { stdout, stderr, signalTarget, coordination, interrupts })
  ctx.name = name
  ctx.selfMonitor = new SelfMonitor().start()
  let results = null
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
      // After the load the master's statements (the lease, the count, the finish) wait for a host that went away
      // a moment, not --timeout each: a run whose server is gone ends within its duration and that moment.
      if (typeof ctx.client.stopWaiting === 'function') ctx.client.stopWaiting({ afterMs: AFTER_LOAD_WAIT_MS })
      settle(groups, load)
      // The finish restores what prepare changed, even when the load failed; a fleet's finisher does it for the
      // fleet, once every generator is done.
      if (coordination.finishesTablesAfterLoad) await stage(ctx, 'finish', (c) => finish(c, groups, load))
    }
    throwIfCouldNotStart(ctx, groups)
    results = report(ctx, groups, load)
    try {
      await stage(ctx, 'store', (c) => storeResult(c, results.main))
    } catch (error) {
      // A fleet generator's --json waits for the fleet's finish, which a result that cannot be stored never
      // reaches (a generator cut off from the results table): printed now, what it measured is never lost.
      if (coordination.resultWaitsForFinish) writeJson(ctx, results.main)
      throw error
    }
    if (ctx.metrics) ctx.metrics.finish(finalResults(groups, results))
    const code = exitCode(ctx, groups, results)
    let left = null
    try {
      left = await stage(ctx, 'leave', (c) => coordination.leave(c, {
        result: results.main,
        code,
        finishTables: (fleetTotals) => finishFleetTables(c, groups, fleetTotals),
        countFleetRows: (generatorCount) => countFleetRows(c, groups, generatorCount)
      }))
    } finally {
      // What the leaving adds to the result (a fleet's finish), kept as a stage's product is.
      if (left) Object.assign(results.main, left.result)
      if (coordination.resultWaitsForFinish) writeJson(ctx, results.main)
    }
    return left ? left.code : code
  } catch (error) {
    await coordination.failed(ctx, errorLine(error.message), results && results.main)
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

// How long a statement of the master after the load waits for every host that went down to come back.
const AFTER_LOAD_WAIT_MS = 5000

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
  ctx.events.on('warm', (warmup) => view.warmed(warmup))
}

/** The results as reported, for the final values of /metrics. */
function finalResults (groups, results) {
  return groups.map((g) => ({ workload: g.workload.name, result: results[g.role] }))
}

/**
 * The run's services, which every stage may use: the options, output, the master's client, host events, interrupts,
 * the coordination and the run's events ('go'). What the stages produce is returned, not kept here.
 */
function createContext (workload, options, { stdout, stderr, signalTarget, coordination, interrupts }) {
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
    interrupts: interrupts ?? new Interrupts({ target: signalTarget }).install(),
    coordination,
    events: new EventEmitter(),
    stage: 'parse',
    interruptedDuring: null,
    partialReasons: []
  }
  ctx.interrupts.on('interrupt', ({ signal, count }) => onInterrupt(ctx, signal, count))
  ctx.hostEvents.watch('master', client)
  ctx.hostEvents.shareWith(client)
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

/** A worker that could not even start means the run could not run: exit 3, as for bad DDL. */
function throwIfCouldNotStart (ctx, groups) {
  const failures = startupFailures(groups.map(outcomeOf))
  if (failures.length > 0 && !ctx.interrupts.interrupted) throw new FatalError(failures[0])
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
