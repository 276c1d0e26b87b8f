'use strict'

const os = require('node:os')
const path = require('node:path')
const { UsageError } = require('../base/errors')
const { formatMs, parseDuration, requirePositiveInteger, requireConcurrency } = require('../base/values')
const { writableFile } = require('../base/files')
const { parseTableName } = require('../data/schema')
const { parseStages, parseRateText } = require('../data/load-profile')
const { connectionFromArgs, pgPortsText } = require('../cluster/connection')
const { unknownOptionMessage } = require('./suggest')
const { warmupOf, warmupTogetherOf } = require('./warmup-options')
const { parseThreshold, requireKnownLabels, requireRateForAchieved, requireLoadForDrift } =
  require('../results/thresholds')
const { parseRunId, parseGenerator } = require('../results/run-identity')
const { DEFAULT_UI_PORT, CONNECTION_OPTIONS, RUN_OPTIONS, CLUSTER_OPTIONS } = require('./flags')
const { DEFAULT_FLEET_TABLE, REGISTRY_TABLE, LEASES_TABLE } = require('../data/tool-tables')

// What the user asked, checked: the flags of lib/cli/flags.js parsed into one options object for the run, every
// problem a UsageError naming the flag.

const MAX_START_DELAY_MS = 24 * 3600 * 1000

function parsePort (value, flag = 'metrics_port') {
  if (!Number.isInteger(value) || value < 0 || value > 65535) {
    throw new UsageError(`--${flag} must be a port number from 0 to 65535 (got '${value}')`)
  }
  return value
}

/** --ui alone: the default port; --ui PORT: that one. */
function parseUi (args) {
  if (args.ui === undefined) {
    if (args.ui_host !== undefined) throw new UsageError('--ui_host is the address --ui listens on: give --ui too')
    return null
  }
  const text = String(args.ui).trim()
  if (text !== '' && !/^\d+$/.test(text)) {
    throw new UsageError(`--ui must be a port number from 0 to 65535 (got '${text}')`)
  }
  return { port: parsePort(text === '' ? DEFAULT_UI_PORT : Number(text), 'ui'), host: args.ui_host ?? '127.0.0.1' }
}

/** --stages: the profile, the run's length (their sum), and what it cannot go with. */
function parseStagesOption (args) {
  if (args.stages === undefined) return null
  for (const [flag, why] of [
    ['rate', 'the stages are the rate'],
    ['duration', 'the run lasts the stages\' sum'],
    ['warmup', 'give the warm-up as a first stage']
  ]) {
    if (args[flag] !== undefined) throw new UsageError(`--stages and --${flag} do not go together: ${why}`)
  }
  return parseStages(args.stages)
}

function parseStartAt (text, nowMs = Date.now()) {
  const at = Date.parse(text)
  if (!/^\d{4}-\d\d-\d\dT/.test(String(text)) || !Number.isFinite(at)) {
    throw new UsageError(`--start_at must be an ISO time such as 2026-11-22T10:00:00Z (got '${text}')`)
  }
  if (at - nowMs > MAX_START_DELAY_MS) throw new UsageError(`--start_at '${text}' is more than 24 hours away`)
  return new Date(at).toISOString()
}

/** --threshold, each parsed; stages_kept_up=all needs stages to judge. */
function thresholdsOf (args) {
  const thresholds = (args.threshold || []).map(parseThreshold)
  if (args.stages === undefined && thresholds.some((t) => t.metric === 'stages_kept_up')) {
    throw new UsageError('--threshold stages_kept_up=all judges the stages of --stages: this run has none')
  }
  return thresholds
}

function requireFactor (value) {
  const factor = Number(value ?? 4)
  if (!Number.isFinite(factor) || (factor !== 0 && factor < 1) || factor > 1000) {
    throw new UsageError(`--queueing_factor: '${value}' is not 0 (off) or a factor from 1 to 1000`)
  }
  return factor
}

// Each worker is a Node.js process of about 60 MB; far more of them than CPUs measures the machine's scheduler, and
// --processes 1e3 would take 60 GB before the first request.
const PROCESSES_PER_CPU = 8
const MIN_PROCESSES_CAP = 16

/** The most worker processes this machine runs well: 8 per CPU, at least 16. */
const processesCap = (cpus = os.availableParallelism()) => Math.max(MIN_PROCESSES_CAP, PROCESSES_PER_CPU * cpus)

function requireProcessesThisMachineRuns (processes, cpus = os.availableParallelism()) {
  const cap = processesCap(cpus)
  if (processes > cap) {
    const here = `${PROCESSES_PER_CPU} per CPU, ${cpus} CPU${cpus === 1 ? '' : 's'} here`
    throw new UsageError(`--processes ${processes} is more than this machine runs well: at most ${cap} (${here}; ` +
      'each worker process takes about 60 MB); spread a larger load over machines with crate-bench fleet')
  }
  return processes
}

function commonRunOptions (args, { defaultProcesses }) {
  const processes = args.processes ?? defaultProcesses
  const stages = parseStagesOption(args)
  return {
    processes: requireProcessesThisMachineRuns(requirePositiveInteger(processes, 'processes')),
    concurrentRequests: requireConcurrency(args.concurrent_requests, 'concurrent_requests'),
    durationMs: stages ? stages.reduce((sum, stage) => sum + stage.durationMs, 0)
      : args.duration === undefined ? null : parseDuration(args.duration, 'duration'),
    stages,
    gracefulStopMs: parseDuration(args.graceful_stop, 'graceful_stop'),
    ...warmupOf(args),
    rate: args.rate === undefined ? null : parseRateText(args.rate, 'rate'),
    resultsTable: args.results_table === undefined ? null : parseTableName(args.results_table, 'results_table'),
    runId: parseRunId(args.run_id),
    startAt: args.start_at === undefined ? null : parseStartAt(args.start_at),
    generator: parseGenerator(args.generator),
    monitorIntervalMs:
      String(args.monitor_interval).trim() === '0' ? 0 : parseDuration(args.monitor_interval, 'monitor_interval'),
    seed:
      args.seed === undefined
        ? Math.floor(Math.random() * 0x7fffffff)
        : requirePositiveInteger(args.seed, 'seed', { allowZero: true }),
    json: Boolean(args.json),
    thresholds: thresholdsOf(args),
    queueingFactor: requireFactor(args.queueing_factor),
    report: args.report === undefined ? null : writableFile(args.report, 'report'),
    // true, false, or null: a refreshing line on a terminal, a line a minute in a log (lib/run/load-stage.js).
    progress: args.progress ?? null,
    metrics: args.metrics_port === undefined ? null : { port: parsePort(args.metrics_port), host: args.metrics_host },
    ui: parseUi(args)
  }
}

/** A flag given twice (`--table a --table b`) would be joined or one of them lost without a word: refuse it. */
function requireOnce (args, specs) {
  for (const [flag, spec] of Object.entries(specs)) {
    if (!spec.array && Array.isArray(args[flag])) {
      throw new UsageError(`--${flag} was given ${args[flag].length} times (${args[flag].join(', ')}): give it once`)
    }
  }
}

/**
 * Parses argv for one workload. The workload contributes its own flags, examples and validation;
 * connection and run flags are the same for every workload.
 */
function examplesText (examples, invocation) {
  if (!examples || examples.length === 0) return ''
  return ['Examples:', ...examples.map(([command, description]) =>
    `  ${command.replace(/\$0/g, invocation)}\n      ${description}`)].join('\n')
}

function parseOptions (workload, argv, env = process.env, { name = null } = {}) {
  const script = name ?? path.basename(process.argv[1] || workload.script)
  const invocation = script.endsWith('.js') ? `node ${script}` : script
  // Loaded here, not at the top: workers share this module's validators but never parse argv.
  const yargsFactory = require('yargs/yargs')
  const parser = yargsFactory(joinNegativeValues(argv, workload))
    .scriptName(script)
    .usage(`${workload.usage}\n\nUsage: ${invocation} [options]`)
    .options(CONNECTION_OPTIONS)
    .options(RUN_OPTIONS)
    .options(CLUSTER_OPTIONS)
    .options({
      processes: {
        ...RUN_OPTIONS.processes,
        describe: `worker processes (default: ${workload.defaultProcesses ?? `the number of ` +
          `CPUs, ${os.availableParallelism()} here`})`
      }
    })
    .options(workload.options)
    .strict()
    .version(require('../../package.json').version)
    .help('help')
    .alias('help', 'h')
    .wrap(Math.min(120, process.stdout.columns || 100))
    // Examples one a line, each a command to copy as it stands, its purpose under it (yargs' two columns wrap them).
    .epilogue([examplesText(workload.examples, invocation), workload.epilogue || ''].filter(Boolean).join('\n\n'))
    .fail((message, error) => {
      const unknown = /^Unknown arguments?: (.*)$/.exec(message || '')
      if (unknown) {
        const names = unknown[1].split(', ')
        const typedAsOption = (name) =>
          argv.some((a) => a === `--${name}` || a.startsWith(`--${name}=`) || a === `-${name}`)
        const options = names.filter(typedAsOption)
        if (options.length === 0) {
          throw new UsageError(`unexpected argument '${names[0]}' (options start with --; see --help)`)
        }
        const known = Object.keys(parser.getOptions().key)
        if (options.length === 1) throw new UsageError(unknownOptionMessage(options[0], known))
        throw new UsageError(`unknown option ${options.map((a) => `--${a}`).join(', ')} (see --help)`)
      }
      const choice = /Argument: (\w+), Given: "?([^"]*)"?, Choices: (.*)$/s.exec(message || '')
      if (choice) {
        const allowed = choice[3].replace(/"/g, '').trim()
        throw new UsageError(`--${choice[1]} must be one of ${allowed} (got '${choice[2]}')`)
      }
      throw new UsageError(message || (error && error.message) || 'invalid arguments')
    })
  const args = parser.parseSync()
  if (args._.length > 0) throw new UsageError(`unexpected argument '${args._[0]}'`)
  requireOnce(args, { ...CONNECTION_OPTIONS, ...RUN_OPTIONS, ...workload.options })
  const options = {
    connection: connectionFromArgs(args, env),
    ...commonRunOptions(args, { defaultProcesses: workload.defaultProcesses ?? os.availableParallelism() }),
    ...workload.validateOptions(args)
  }
  if (args.started_by_study !== undefined) options.startedByStudy = path.resolve(String(args.started_by_study))
  options.warmupTogether = warmupTogetherOf(args, options)
  Object.assign(options, fleetOptions(args, env, options))
  if (options.fleet && options.warmupSteady) {
    throw new UsageError('--warmup steady and a fleet do not go together: its generators share one warm-up (give it ' +
      'as a time)')
  }
  shareRatesInFleet(options)
  requireRoomForRate(options)
  requireOwnResultsTable(options, workload)
  if (workload.labelsOf) requireKnownLabels(options.thresholds, workload.labelsOf(options))
  requireRateForAchieved(options.thresholds, options.rate ?? (options.stages ? 'stages' : null))
  requireLoadForDrift(options.thresholds, options.durationMs)
  return options
}

/**
 * In a fleet, --rate and --ingest_rate are the fleet's, as a k6 or Locust user expects of one test spread over many
 * machines: each generator sends its equal share, on the fleet's one clock. `fleetRate` keeps what was given.
 */
function shareRatesInFleet (options) {
  if (!options.fleet) return
  const count = options.generator.count
  if (options.rate != null) {
    options.fleetRate = options.rate
    options.rate = options.rate / count
  }
  if (options.stages) {
    options.fleetStages = options.stages
    options.stages = options.stages.map((s) => ({ ...s, from: s.from / count, to: s.to / count }))
  }
  if (options.ingest && options.ingest.rate != null) {
    options.ingest = { ...options.ingest, fleetRate: options.ingest.rate, rate: options.ingest.rate / count }
  }
}

// Where a fleet stores its generators' results when --results_table is not given: the merge needs them.
const DEFAULT_FLEET_RESULTS_TABLE = 'doc.crate_bench_results'

/**
 * A fleet: N > 1 generators of one run, from --generator K/N, or --generators N with K from a Kubernetes Indexed
 * Job's JOB_COMPLETION_INDEX (0-based). They share --run_id (no random default: each would draw its own) and store
 * their results for the merge.
 */
function fleetOptions (args, env, options) {
  let generator = options.generator
  if (args.generators !== undefined) {
    const count = requirePositiveInteger(args.generators, 'generators')
    if (args.generator !== undefined && generator.count !== count) {
      throw new UsageError(`--generator ${args.generator} and --generators ${count} disagree on the fleet's size`)
    }
    if (args.generator === undefined) {
      const index = env.JOB_COMPLETION_INDEX
      if (index === undefined || !/^\d+$/.test(index) || Number(index) >= count) {
        const got = index === undefined ? ', which is not set' : `, not '${index}'`
        throw new UsageError(`--generators ${count} without --generator takes K from JOB_COMPLETION_INDEX (0 to ` +
          `${count - 1}, set by a Kubernetes Indexed Job)${got}`)
      }
      generator = { index: Number(index), count }
    }
  }
  if (generator.count === 1) return { generator, fleet: null }
  if (args.run_id === undefined) {
    throw new UsageError(`generator ${generator.index + 1}/${generator.count} of a fleet needs --run_id: every ` +
      'generator of the run gives the same one')
  }
  if (args.start_at !== undefined) {
    throw new UsageError('--start_at is for runs without coordination: the generators of a fleet start together at ' +
      'their start barrier')
  }
  return {
    generator,
    resultsTable: options.resultsTable || parseTableName(DEFAULT_FLEET_RESULTS_TABLE, 'results_table'),
    fleet: {
      table: parseTableName(args.fleet_table, 'fleet_table'),
      barrierTimeoutMs: parseDuration(args.barrier_timeout, 'barrier_timeout'),
      seedGiven: args.seed !== undefined
    }
  }
}

/**
 * --rate with --duration: each process sends one request every (units per request x processes /
 * rate); a window shorter than that holds a single request per process, and no rate can be
 * measured from it.
 */
// A timetable whose requests lie further apart than this is not a load; timers past 2^31 ms would fire at once.
const MAX_REQUEST_INTERVAL_MS = 3_600_000

function requireRoomForRate ({ rate, durationMs, processes, batchSize }) {
  if (rate == null) return
  const units = batchSize ?? 1
  const intervalMs = (units * processes * 1000) / rate
  const sends = `--rate ${rate} over ${processes} process${processes === 1 ? '' : 'es'}`
  if (durationMs != null && durationMs < intervalMs) {
    throw new UsageError(
      `${sends} sends a request of ${units} every ${formatMs(Math.round(intervalMs))} per process: --duration ` +
      `${formatMs(durationMs)} cannot hold two of them; raise --rate or --duration`
    )
  }
  if (!(intervalMs <= MAX_REQUEST_INTERVAL_MS)) {
    const least = Number(((units * processes * 1000) / MAX_REQUEST_INTERVAL_MS).toPrecision(3))
    throw new UsageError(
      `${sends} would send a request of ${units} less than once an hour per process: give at least ${least} per second`
    )
  }
}

/**
 * The tables this tool keeps for itself (the results table, a fleet's coordination table, the registry of the tables it
 * made) must not be a table the run drops, creates and fills: --drop_table would drop earlier runs, or the
 * coordination of every fleet sharing it.
 */
function requireOwnResultsTable (options, workload) {
  if (!workload.writtenTables) return
  const kept = [
    [options.resultsTable || parseTableName(DEFAULT_FLEET_RESULTS_TABLE, 'results_table'),
      'where runs store their results (--results_table)'],
    [options.fleet ? options.fleet.table : parseTableName(DEFAULT_FLEET_TABLE, 'fleet_table'),
      'where the generators of fleets coordinate (--fleet_table)'],
    [parseTableName(REGISTRY_TABLE, 'table'), 'where this tool records the tables it made'],
    [parseTableName(LEASES_TABLE, 'table'), 'where this tool records which run uses its tables']
  ]
  for (const written of workload.writtenTables(options)) {
    const clash = kept.find(([table]) => table.display === written.display)
    if (!clash) continue
    if (clash[0] === options.resultsTable) {
      throw new UsageError(`--results_table ${written.display} is a table this run writes its rows into: give the ` +
        'results a table of their own')
    }
    throw new UsageError(`--table ${written.display} is ${clash[1]}: the run would drop and fill it; give the rows ` +
      'a table of their own')
  }
}

/**
 * `--timeout -1s`: yargs reads "-1s" as short flags, and the user would hear about an argument
 * '1'. A text option followed by something that starts like a negative value takes it as its value,
 * so the option's own check says what is wrong.
 */
function joinNegativeValues (argv, workload) {
  const textOptions = new Set(Object.entries({ ...CONNECTION_OPTIONS, ...RUN_OPTIONS, ...workload.options })
    .filter(([, spec]) => spec.type === 'string').map(([name]) => `--${name}`))
  const joined = []
  for (let i = 0; i < argv.length; i++) {
    if (textOptions.has(argv[i]) && /^-[\d.]/.test(argv[i + 1] || '')) joined.push(`${argv[i]}=${argv[++i]}`)
    else joined.push(argv[i])
  }
  return joined
}

// What we print and put into --json: everything a rerun needs, never the password.
function describeOptions (options, exclude = []) {
  const { connection, startedCluster, ...all } = options
  // What a study started is the result's environment's, not an option of the run.
  const rest = Object.fromEntries(Object.entries(all).filter(([key]) => !exclude.includes(key) &&
    key !== 'startedByStudy' && key !== 'warmupTogether'))
  // A cluster the run started: its nodes here, the rest in environment.cluster.provisioned.
  if (startedCluster && startedCluster.by === null) rest.startCluster = startedCluster.record.nodes
  return {
    hosts: connection.hosts.map((h) => `${h.protocol}://${h.hostname}:${h.port}`),
    user: connection.user,
    password: connection.password ? '***' : '(none)',
    insecure: connection.insecure,
    timeout_ms: connection.timeoutMs,
    // What carried the load: a comparison of runs names it, and the report says it.
    protocol: connection.protocol ?? 'http',
    ...(connection.protocol === 'pg' ? { pg_port: pgPortsText(connection.pgPorts),
      pg_insert: connection.pgInsert } : {}),
    ...Object.fromEntries(Object.entries(rest).map(([key, value]) => [toSnakeCase(key), describeValue(value)]))
  }
}

function toSnakeCase (key) {
  return key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)
}

function describeValue (value) {
  if (value === Number.MAX_SAFE_INTEGER) return null
  return value && value.display ? value.display : snakeCaseDeep(value)
}

/** Keys in snake_case all the way down, as everywhere in --json. */
function snakeCaseDeep (value) {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return value
  return Object.fromEntries(Object.entries(value).map(([key, v]) => [toSnakeCase(key), snakeCaseDeep(v)]))
}

module.exports = { parseOptions, describeOptions, parseUi, processesCap, CONNECTION_OPTIONS, RUN_OPTIONS,
  CLUSTER_OPTIONS }
