'use strict'

const os = require('node:os')
const path = require('node:path')
const readline = require('node:readline')
const { spawn } = require('node:child_process')
const { processesCap } = require('../cli/options')
const { EXIT, UsageError, errorLine, errorText } = require('../base/errors')
const { writableFile } = require('../base/files')
const { DEFAULT_FLEET_TABLE } = require('../data/tool-tables')
const { exitCodeOf, unitOfWorkload } = require('../results/result')
const { readRuns } = require('../reports/read-runs')
const { terminalReport } = require('../reports/text')
const { writeHtml } = require('../reports/result-file')
const { parseFleetArgs, flagValue } = require('./fleet-args')

const BIN = path.join(__dirname, '..', '..', 'bin', 'crate-bench.js')

const USAGE = `Usage: crate-bench fleet --generators N <ingest|query> [benchmark options] [--json] [--report FILE.html]
         [--ui [PORT]] [--ui_host HOST]
       crate-bench fleet manifest --generators N <ingest|query> [benchmark options]

Runs N load generators of one run on this machine, each a process tree of its own, exactly as N pods of a
Kubernetes Indexed Job would run them: they register in --fleet_table, one prepares the tables, all start at one
barrier, the one that prepared reconciles the table once for the fleet. Then prints the fleet's merged report:
every generator's units added, exact percentiles from the merged histograms, the timeline, the reconciliation.
--json prints the merged result on stdout, --report writes its HTML report, --ui serves the fleet's live page
(docs/live-ui.md): the generators merged, the rate and the stop sent to each. Every other option goes to each
generator (see crate-bench ingest --help); --run_id and --seed are chosen once for all when not given.

"fleet manifest" prints the Kubernetes manifests of the same fleet (see docs/fleet.md).

Examples:
  crate-bench fleet --generators 3 ingest --processes 2 --duration 5m --report fleet.html
  crate-bench fleet --generators 2 query --queries_config queries/cpu-dashboard.yml --duration 1m --json
  crate-bench fleet manifest --generators 8 ingest --processes 4 --duration 10m > fleet.yaml

Exit codes: 0 ok, 1 failures, 2 bad input (or a generator refused), 3 could not run, 4 partial (interrupted, or a
generator died), 5 a --threshold missed.`

/** One generator: a child process tree with a process group of its own, its report lines prefixed with its number. */
function startGenerator ({ workload, args, index, count, stderr, onLine = () => {} }) {
  const child = spawn(process.execPath, [BIN, workload, ...args, '--generator', `${index + 1}/${count}`], {
    stdio: ['ignore', 'ignore', 'pipe'],
    // The merged report is this command's to print, not the steward's; so is the page a browser waits on.
    env: { ...process.env, CRATE_BENCH_FLEET_LOCAL: '1', CRATE_BENCH_UI_LINGER_MS: '0' },
    detached: true
  })
  const prefix = `[${index + 1}/${count}] `
  readline.createInterface({ input: child.stderr }).on('line', (line) => {
    stderr.write(`${prefix}${line}\n`)
    onLine(line)
  })
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve(code ?? (signal ? EXIT.PARTIAL
    : EXIT.CANNOT_RUN))))
  return { child, exited }
}

/**
 * Each local generator's own flags: on one machine, generators cannot share a --metrics_port, so generator K
 * serves on the given port + K - 1 (0 stays 0: each gets a free port of its own).
 */
function generatorArgs (fleet, index) {
  const port = flagValue(fleet.shared, 'metrics_port')
  if (port === undefined || port === true || Number(port) === 0) return fleet.shared
  return withFlag(fleet.shared, 'metrics_port', String(Number(port) + index))
}

/** args without any --name, then --name value. */
function withFlag (args, name, value) {
  const kept = []
  for (let i = 0; i < args.length; i++) {
    const [flag, inline] = args[i].split(/=(.*)/s)
    if (flag !== `--${name}`) kept.push(args[i])
    else if (inline === undefined && args[i + 1] !== undefined && !args[i + 1].startsWith('--')) i++
  }
  return [...kept, `--${name}`, value]
}

/** The first generator to exit bad input (2) or could-not-run (3) stops the fleet: the others would wait in vain. */
function stopOnFailure (generators, stderr) {
  let stoppedBy = null
  generators.forEach((g, index) => g.exited.then((code) => {
    if (stoppedBy || (code !== EXIT.USAGE && code !== EXIT.CANNOT_RUN)) return
    const running = generators.filter((other) => other.child.exitCode === null && other.child.signalCode === null)
    if (running.length === 0) return
    stoppedBy = { generator: index + 1, code }
    stderr.write(`crate-bench fleet: generator ${index + 1} exited ${code} ` +
      `(${code === EXIT.USAGE ? 'bad input' : 'could not run'}; its error is above): stopping the other ` +
      `${running.length}\n`)
    for (const other of running) signalGroup(other.child, 'SIGTERM')
  }))
  return () => stoppedBy
}

/** A signal to a generator's whole process tree (its group), or to the process when the group is gone. */
function signalGroup (child, signal) {
  try {
    process.kill(-child.pid, signal)
  } catch {
    child.kill(signal)
  }
}

/**
 * A fleet on this machine runs every generator's worker processes here: together they are held to the cap one run's
 * --processes is (1,000 generators × 16 processes took a 2-core machine's load average from 2.9 to 67).
 */
function requireRoomForFleet (fleet, cpus = os.availableParallelism()) {
  const given = flagValue(fleet.shared, 'processes')
  const perGenerator = given === undefined ? (fleet.workload === 'query' ? 1 : cpus) : Number(given)
  const total = fleet.generators * (Number.isFinite(perGenerator) && perGenerator > 0 ? perGenerator : 1)
  const cap = processesCap(cpus)
  if (total > cap) {
    const each = `${perGenerator} process${perGenerator === 1 ? '' : 'es'}`
    throw new UsageError(`--generators ${fleet.generators} × ${each} is ${total} worker processes on this machine: ` +
      `at most ${cap} (8 per CPU, ${cpus} here, as --processes); spread the fleet over machines (crate-bench fleet ` +
      'manifest)')
  }
}

/** crate-bench fleet … Returns the exit code. */
async function main (argv, { stdout = process.stdout, stderr = process.stderr, env = process.env, signals } = {}) {
  let ui = null
  try {
    if (argv.includes('--help') || argv.includes('-h')) {
      stdout.write(`${USAGE}\n`)
      return EXIT.OK
    }
    if (argv[0] === 'manifest') return require('./manifest-command').main(argv.slice(1), { stdout, stderr })
    const fleet = parseFleetArgs(argv)
    requireRoomForFleet(fleet)
    if (fleet.report) writableFile(fleet.report, 'report')
    stderr.write(`crate-bench fleet: ${fleet.generators} generators of run ${fleet.runId} (${fleet.workload})\n`)
    ui = fleet.ui ? await startFleetUi(fleet, stderr) : null
    const generators = Array.from({ length: fleet.generators }, (_, index) => {
      const args = generatorArgs(fleet, index)
      const port = flagValue(args, 'metrics_port')
      if (args !== fleet.shared) {
        stderr.write(`crate-bench fleet: generator ${index + 1} serves /metrics on port ${port}\n`)
      }
      return startGenerator({
        workload: fleet.workload,
        args: ui ? [...args, '--ui', '0'] : args,
        index,
        count: fleet.generators,
        stderr,
        onLine: (line) => {
          const live = ui && /^ {2}live: +(http:\/\/\S+\/)/.exec(line)
          if (live) ui.view.follow(index, live[1])
        }
      })
    })
    const stoppedBy = stopOnFailure(generators, stderr)
    // Ctrl-C reaches each generator once, from here: each stops and still reports, as a run does.
    const forward = ({ signal }) => {
      for (const g of generators) if (g.child.exitCode === null) g.child.kill(signal)
    }
    if (signals) signals.on('interrupt', forward)
    const codes = await Promise.all(generators.map((g) => g.exited))
    if (signals) signals.off('interrupt', forward)
    const interrupted = Boolean(signals && signals.interrupted)
    const stopped = stoppedBy()
    if (stopped && stopped.code === EXIT.CANNOT_RUN) {
      stderr.write(`crate-bench fleet: the fleet was stopped because generator ${stopped.generator} could not run\n`)
      return EXIT.CANNOT_RUN
    }
    return await mergedReport(fleet, codes, { stdout, stderr, env, interrupted, ui })
  } catch (error) {
    stderr.write(errorText('crate-bench fleet', error.message))
    if (ui) ui.finish(noReportPage(error.message))
    return error.exitCode ?? EXIT.CANNOT_RUN
  } finally {
    if (ui) await ui.close()
  }
}

/**
 * --ui on a fleet: this machine's generators on one page. Each generator serves its own live view on a loopback
 * port (--ui 0); the fleet's page follows them all and merges them (lib/ui/fleet-view.js).
 */
async function startFleetUi (fleet, stderr) {
  const { serveLivePage } = require('../ui/live-server')
  const { FleetView } = require('../ui/fleet-view')
  const { stagesOf } = require('../ui/live-view')
  const { loadWorkload } = require('../workloads')
  const { parseStages } = require('../data/load-profile')
  const workload = loadWorkload(fleet.workload === 'query' ? 'analytical' : 'ingest')
  const stagesText = flagValue(fleet.shared, 'stages')
  const options = { runId: fleet.runId }
  const view = new FleetView({
    workload,
    options,
    members: fleet.generators,
    stages: typeof stagesText === 'string' ? stagesOf(parseStages(stagesText)) : null
  })
  stderr.write('crate-bench fleet:\n')
  return serveLivePage({
    host: fleet.ui.host,
    port: fleet.ui.port,
    view,
    steeringOf: () => (view.phase === 'running' ? view.steering() : null),
    workload,
    options,
    log: (line) => stderr.write(`${line}\n`),
    about: 'the fleet of this machine; docs/live-ui.md',
    steered: 'the fleet'
  })
}

function noReportPage (message) {
  const { escapeHtml } = require('../reports/html/parts')
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>no report</title></head><body>` +
    `<h1>No merged report</h1><p>${escapeHtml(message)}</p></body></html>`
}

/** The fleet's report, from the results every generator stored; its exit code with the generators' own. */
async function mergedReport (fleet, codes, { stdout, stderr, env, interrupted, ui = null }) {
  const refused = codes.findIndex((c) => c === EXIT.USAGE)
  if (refused >= 0) {
    throw new UsageError(`generator ${refused + 1} refused to run (its error is above): the fleet did not run`)
  }
  let runs
  try {
    runs = await readRuns(fleet.resultsTable, [fleet.runId], fleet.connection, env)
  } catch (error) {
    const worst = Math.max(...codes)
    stderr.write(`crate-bench fleet: no merged report: ${errorLine(error.message)}\n`)
    if (ui) ui.finish(noReportPage(errorLine(error.message)))
    return Math.max(worst, EXIT.CANNOT_RUN)
  }
  const [{ result }] = runs
  const text = terminalReport(result)
  stderr.write(`\nfleet run ${fleet.runId}: ${fleet.generators} generators, exit codes ${codes.join(', ')}\n${text}`)
  if (ui) ui.finish(require('../reports/html').renderHtmlReport(result, { terminalReport: text }))
  if (fleet.json) stdout.write(`${JSON.stringify(result)}\n`)
  if (fleet.report) writeHtml(result, fleet.report, stderr)
  // Tables the fleet keeps in the cluster, said once at the end: they are how the report can be made again.
  const fleetTable = flagValue(fleet.shared, 'fleet_table') ?? DEFAULT_FLEET_TABLE
  stderr.write(`crate-bench fleet: kept in the cluster: ${fleet.resultsTable} (each generator's result; crate-bench ` +
    `report --results_table ${fleet.resultsTable} --run_id ${fleet.runId} makes this report again) and ` +
    `${fleetTable} (the fleet's coordination); drop them when no run needs them\n`)
  const merged = exitCodeOf(result, unitOfWorkload(result.workload))
  const thresholdMissed = (result.thresholds || []).some((t) => !t.passed)
  let code = Math.max(merged, ...codes.filter((c) => c !== EXIT.THRESHOLDS))
  // A partial run or one that could not run says more than a threshold; a missed threshold more than failures.
  if (code <= EXIT.FAILURES && (thresholdMissed || codes.includes(EXIT.THRESHOLDS))) code = EXIT.THRESHOLDS
  if (interrupted) code = Math.max(code, EXIT.PARTIAL)
  return code
}

module.exports = { main, USAGE }
