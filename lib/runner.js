'use strict'

const path = require('node:path')
const { fork } = require('node:child_process')
const { EXIT, FatalError } = require('./errors')
const { parseOptions, describeOptions } = require('./options')
const { CrateClient, CrateHttpError } = require('./http-client')
const { Totals } = require('./stats')
const { ProgressLine } = require('./progress')
const { ClusterMonitor } = require('./cluster-monitor')
const { createResultsTableSql, insertResultSql, resultRow } = require('./results-store')
const { buildResult, renderReport, renderCompanion, exitCodeOf } = require('./report')
const { now } = require('./clock')

const WORKER_PATH = path.join(__dirname, 'worker.js')

/**
 * The master of every workload: parse and validate, check each host, prepare (DDL) once, fork the
 * workers, merge their reports, finish, report. Returns the exit code.
 */
async function run (workload, { argv, env, stdout, stderr }) {
  const log = (line) => stderr.write(`${line}\n`)
  const options = parseOptions(workload, argv, env)
  log(`${workload.script}: ${workload.name} benchmark`)
  const describedOptions = describeOptions(options, workload.describeExclude)
  log(`options: ${JSON.stringify(describedOptions)}`)

  const client = new CrateClient({ ...options.connection, maxSockets: 2 })
  try {
    await checkHosts(client)
    const sqlOrFail = async (stmt, args, what) => {
      try {
        return await client.sql(stmt, args)
      } catch (error) {
        throw new FatalError(`${what}: ${error.message}`)
      }
    }
    // Before any load: a results table that cannot be created must not cost a whole run.
    if (options.resultsTable) await sqlOrFail(createResultsTableSql(options.resultsTable), undefined, `cannot create the results table ${options.resultsTable.display}`)
    // A companion runs next to the main workload (--ingest_rate: an ingest next to the query mix).
    const companion = workload.companion ? workload.companion(options) : null
    const companionPrepared = companion ? await companion.workload.prepare({ client, options: companion.options, log, sqlOrFail }) : null
    const prepared = await workload.prepare({ client, options, log, sqlOrFail })
    // The monitor has its own connection and a short timeout: a cluster that stops answering must
    // not hold the report back for a whole --timeout.
    const monitorClient = options.monitorIntervalMs > 0
      ? new CrateClient({ ...options.connection, maxSockets: 1, timeoutMs: Math.min(options.connection.timeoutMs, Math.max(2000, options.monitorIntervalMs)) })
      : null
    const monitor = monitorClient ? new ClusterMonitor({ client: monitorClient, intervalMs: options.monitorIntervalMs }) : null
    let releaseCompanion
    const mainGo = new Promise((resolve) => { releaseCompanion = resolve })
    const companionGroup = {}
    const companionRun = companion
      ? runWorkers(companion.workload, companion.options, companionPrepared, stderr, log, { beforeGo: () => mainGo, handleSignals: false, expose: companionGroup })
      : null
    const { fatalErrors, ...outcome } = await runWorkers(workload, options, prepared, stderr, log, {
      beforeGo: async ({ interrupted }) => {
        if (options.startAt) await waitUntil(Date.parse(options.startAt), { interrupted, log })
        // The baseline sample is taken before any load, so every rejection counted is this run's.
        if (monitor) await monitor.start()
        releaseCompanion()
      },
      progressExtra: () => (monitor ? `  cluster write rejections ${monitor.rejected('write').toLocaleString('en-US')}` : '')
    })
    releaseCompanion()
    let companionResult = null
    if (companionRun) {
      companionGroup.stop('main_finished')
      const { fatalErrors: companionFatal, ...companionOutcome } = await companionRun
      fatalErrors.push(...companionFatal)
      const companionExtra = await companion.workload.finish({ client, options: companion.options, prepared: companionPrepared, totals: companionOutcome.totals, log })
      companionResult = buildResult({ workload: companion.workload, options: companion.options, describedOptions: describeOptions(companion.options), ...companionOutcome, extra: companionExtra })
      for (const reason of companionResult.partial_reasons) outcome.partialReasons.push(`${companion.workload.name} next to the run: ${reason}`)
    }
    if (monitor) {
      await monitor.stop()
      monitorClient.close()
    }
    const extra = await workload.finish({ client, options, prepared, totals: outcome.totals, log })
    if (companionResult) extra[companion.workload.name] = companionResult
    const result = buildResult({ workload, options, describedOptions, ...outcome, extra, cluster: monitor ? monitor.toJSON() : null })
    stderr.write(renderReport(workload, result))
    if (companionResult) stderr.write(renderCompanion(companion.workload, companionResult))
    if (options.json) stdout.write(`${JSON.stringify(result)}\n`)
    if (options.resultsTable) await storeResult(client, options, workload, result, log)
    // The report above still shows what was measured; the run itself could not go on.
    if (fatalErrors.length > 0) throw new FatalError(fatalErrors.join('; '))
    const code = exitCodeOf(result, workload.unit)
    return companionResult ? Math.max(code, exitCodeOf(companionResult, companion.workload.unit)) : code
  } finally {
    client.close()
  }
}

/** --start_at: all load generators start their load at the same wall-clock time. */
async function waitUntil (atMs, { interrupted, log }) {
  const late = Date.now() - atMs
  if (late > 0) {
    log(`note: --start_at ${new Date(atMs).toISOString()} passed ${late} ms ago (setup took longer); starting now`)
    return
  }
  log(`waiting until ${new Date(atMs).toISOString()} (--start_at)`)
  while (Date.now() < atMs && !interrupted()) {
    await new Promise((resolve) => setTimeout(resolve, Math.min(200, atMs - Date.now())))
  }
}

/** --results_table: one row per run, written after the report so a failure here loses no figures. */
async function storeResult (client, options, workload, result, log) {
  const table = options.resultsTable
  try {
    const answer = await client.sql(insertResultSql(table), resultRow(result, { runId: options.runId, unit: workload.unit }))
    if (answer.rowcount !== 1) throw new Error(`the server answered rowcount ${answer.rowcount}`)
    await client.sql(`REFRESH TABLE ${table.sql}`)
  } catch (error) {
    throw new FatalError(`the run finished, but its result could not be stored in ${table.display}: ${error.message}`)
  }
  log(`result stored in ${table.display} (run_id ${options.runId})`)
}

/** SELECT 1 on every host, so a wrong host, port, password or TLS setting fails before any DDL. */
async function checkHosts (client) {
  for (const target of client.targets) {
    try {
      await client.sql('SELECT 1', undefined, { target })
    } catch (error) {
      const prefix = error instanceof CrateHttpError ? `${target.base} refused the connection check` : 'cannot reach CrateDB'
      throw new FatalError(`${prefix}: ${error.message}`)
    }
  }
}

/**
 * Forks the workload's workers and merges their reports until every one has exited. `expose`
 * receives `stop(reason)` for a caller that ends the group itself (a companion); a group that
 * does not handle signals is stopped by its caller.
 */
function runWorkers (workload, options, prepared, stderr, log, { beforeGo = async () => {}, progressExtra, handleSignals = true, expose = {} } = {}) {
  return new Promise((resolve) => {
    const totals = new Totals()
    const partialReasons = []
    const resources = []
    const fatalErrors = []
    const workers = []
    const progress = new ProgressLine({ stream: stderr, unit: workload.unit, enabled: options.progress })
    if (progressExtra) progress.extra = progressExtra
    let ready = 0
    let exited = 0
    let interrupts = 0
    let masterCpuAtGo = null

    // A worker may be closing its channel at this very moment; a lost 'stop' to a worker
    // that has finished anyway is harmless.
    const broadcast = (message) => {
      for (const w of workers) if (w.child.connected) w.child.send(message, () => {})
    }
    const markPartial = (reason) => {
      if (!partialReasons.includes(reason)) partialReasons.push(reason)
    }
    const stopAll = (reason) => broadcast({ type: 'stop', reason })
    let stopped = false
    expose.stop = (reason) => {
      stopped = true
      stopAll(reason)
    }

    const onSignal = (signal) => {
      interrupts++
      markPartial(`interrupted (${signal})`)
      if (interrupts === 1) {
        progress.stop()
        log(`\n${signal}: stopping; waiting for the requests in flight (${signal} again to abandon them)`)
        stopAll('interrupted')
      } else if (interrupts === 2) {
        log(`${signal}: abandoning the requests in flight; their rows count as failed`)
        broadcast({ type: 'abort', reason: 'interrupted' })
      } else {
        for (const w of workers) w.child.kill('SIGKILL')
      }
    }
    if (handleSignals) {
      process.on('SIGINT', onSignal)
      process.on('SIGTERM', onSignal)
    }

    for (let index = 0; index < options.processes; index++) {
      const child = fork(WORKER_PATH, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv: [...process.execArgv, ...(workload.workerNodeFlags || [])] })
      const worker = { child, totals: new Totals(), reason: null, done: false }
      workers.push(worker)
      child.on('error', () => {})
      child.on('message', (message) => {
        switch (message.type) {
          case 'ready':
            if (++ready === options.processes) {
              Promise.resolve(beforeGo({ interrupted: () => interrupts > 0 || stopped })).then(() => {
                // A worker that died while the baseline was taken has ended the run already.
                if (ready < options.processes) return
                const deadline = options.durationMs ? now() + options.durationMs : null
                masterCpuAtGo = process.cpuUsage()
                progress.start(Date.now(), totals)
                broadcast({ type: 'go', deadline })
              })
            }
            break
          case 'delta':
            totals.addDelta(message.delta)
            worker.totals.addDelta(message.delta)
            progress.addDelta(message.delta, index)
            break
          case 'done':
            totals.addDelta(message.delta)
            worker.totals.addDelta(message.delta)
            worker.reason = message.reason
            worker.done = true
            resources.push(message.resources)
            if (message.reason && message.reason.startsWith('server_gone')) {
              markPartial(`worker ${index}: ${message.reason.replace('server_gone: ', 'server gone: ')}`)
              stopAll('server_gone')
            } else if (message.reason && message.reason.startsWith('fatal: ')) {
              const fatal = message.reason.slice('fatal: '.length)
              if (!fatalErrors.includes(fatal)) fatalErrors.push(fatal)
              markPartial(`worker ${index} stopped: ${fatal}`)
              stopAll('fatal')
            }
            break
          case 'fatal':
            markPartial(`worker ${index} failed: ${message.message}`)
            stopAll('worker_failed')
            break
        }
      })
      child.on('exit', (code, signal) => {
        if (!worker.done) {
          // Whatever it reported before it died is kept; its requests in flight stay unacknowledged.
          worker.reason = `died (${signal || `exit code ${code}`})`
          markPartial(`worker ${index} died (${signal || `exit code ${code}`}) before its final report`)
          stopAll('worker_died')
          if (ready < options.processes) ready = -Infinity
        }
        if (++exited === options.processes) {
          process.off('SIGINT', onSignal)
          process.off('SIGTERM', onSignal)
          progress.stop()
          const self = process.cpuUsage(masterCpuAtGo || undefined)
          resources.push({ cpuMicros: self.user + self.system, maxRssKb: process.resourceUsage().maxRSS })
          resolve({ totals, workers, partialReasons, resources, fatalErrors })
        }
      })
      child.send({ type: 'start', workload: workload.name, options, prepared, workerIndex: index, workerCount: options.processes })
    }
  })
}

/** Entry point of the app scripts: one-line errors, exit codes scripts can trust. */
async function main (workload, { argv = process.argv.slice(2), env = process.env, stdout = process.stdout, stderr = process.stderr } = {}) {
  let code
  try {
    code = await run(workload, { argv, env, stdout, stderr })
  } catch (error) {
    const known = error && error.exitCode !== undefined
    stderr.write(`${workload.script}: error: ${known ? error.message : `unexpected failure: ${error && error.message}`}\n`)
    if (!known && env.CRATE_BENCH_DEBUG) stderr.write(`${error.stack}\n`)
    code = known ? error.exitCode : EXIT.CANNOT_RUN
  }
  process.exitCode = code
  // A forgotten socket or timer must not turn a finished run into a hang.
  setTimeout(() => process.exit(code), 2000).unref()
  return code
}

module.exports = { main, run }
