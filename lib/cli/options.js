'use strict'

const os = require('node:os')
const path = require('node:path')
const { UsageError } = require('../base/errors')
const { formatMs, parseDuration, requirePositiveInteger, requireConcurrency } = require('../base/values')
const { writableFile } = require('../base/files')
const { parseTableName } = require('../data/schema')
const { parseStages, parseRateText } = require('../data/load-profile')
const { connectionFromArgs } = require('../cluster/connection')
const { parseThreshold, requireKnownLabels, requireRateForAchieved } = require('../results/thresholds')
const { parseRunId, parseGenerator } = require('../results/run-identity')

// k6's web dashboard takes 5665 and Locust's 8089: the next one up from k6's, so both can run beside this tool.
const DEFAULT_UI_PORT = 5666
// Where a fleet coordinates (--fleet_table), and where the tool records the tables it made (owned-tables.js, which
// lib/cli may not import): tables of the tool's own, never a run's --table.
const DEFAULT_FLEET_TABLE = 'doc.crate_bench_fleet'
const REGISTRY_TABLE = 'doc.crate_bench_tables'

const CONNECTION_OPTIONS = {
  host: {
    type: 'string',
    group: 'Connection:',
    describe: 'CrateDB host(s), comma-separated for round-robin [env CRATE_HOST]'
  },
  port: { type: 'string', group: 'Connection:', describe: 'HTTP port [env CRATE_PORT]' },
  user: {
    type: 'string',
    group: 'Connection:',
    describe: 'user name; the password is read from CRATE_PASSWORD only [env CRATE_USER]'
  },
  ssl: { type: 'boolean', group: 'Connection:', describe: 'use HTTPS [env CRATE_SSL]' },
  insecure: {
    type: 'boolean',
    default: false,
    group: 'Connection:',
    describe: 'HTTPS without certificate verification (never the default)'
  },
  timeout: {
    type: 'string',
    default: '60s',
    group: 'Connection:',
    describe: 'per-request timeout, the whole answer included (e.g. 10s, 2m)'
  },
  protocol: {
    type: 'string',
    choices: ['http', 'pg'],
    group: 'Connection:',
    describe: "the load's protocol: CrateDB's HTTP endpoint, or its PostgreSQL wire protocol (pg: JDBC-style " +
      'batches, prepared statements) on --pg_port of the same hosts; DDL and checks go over HTTP either way ' +
      '[env CRATE_PROTOCOL] (default: http)'
  },
  pg_port: {
    type: 'string',
    group: 'Connection:',
    describe: 'the PostgreSQL protocol port of every host, with --protocol pg [env CRATE_PG_PORT] (default: 5432)'
  },
  pg_insert: {
    type: 'string',
    choices: ['batch', 'values', 'unnest'],
    group: 'Connection:',
    describe: 'with --protocol pg, the shape of a bulk insert: batch (JDBC-style, each row answered: the default), ' +
      'values (one multi-row VALUES) or unnest (INSERT … SELECT * FROM UNNEST of arrays); these two answer only a ' +
      'total, the rest of the rows sent counted failed'
  },
  max_answer_mb: {
    type: 'string',
    group: 'Connection:',
    describe: 'a larger answer is cut off and its request counts as in doubt (default: 64)'
  }
}

const RUN_OPTIONS = {
  processes: { type: 'number', group: 'Load:', describe: 'worker processes' },
  concurrent_requests: {
    type: 'number',
    // More in flight than the cluster's thread pools take only queues at the client and inflates the latency it
    // reports: 20 x 10,000-row batches gave a 7-22 s p99 on one node, 4 more rows/s at a 0.9-1.5 s p99.
    default: 4,
    group: 'Load:',
    describe: 'requests in flight per process (raise it with the cluster: docs/sweeps-and-capacity.md)'
  },
  duration: {
    type: 'string',
    group: 'Load:',
    describe: 'stop after this long (e.g. 30s, 5m); whichever limit comes first ends the run'
  },
  warmup: {
    type: 'string',
    group: 'Load:',
    describe:
      'load from the start, but answers in this first part (e.g. 10s) are kept out of every figure and reported ' +
      'apart; --duration counts after it'
  },
  graceful_stop: {
    type: 'string',
    default: '10s',
    group: 'Load:',
    describe:
      'after --duration, how long requests in flight may still take; those without an answer then are abandoned (in ' +
      'doubt)'
  },
  rate: {
    type: 'string',
    group: 'Load:',
    describe:
      "constant arrival rate over all processes: rows/s (ingest) or queries/s (analytical), sent on a fixed " +
      "timetable; latency then counts from each request's scheduled start (default: as fast as the answers come)"
  },
  stages: {
    type: 'string',
    group: 'Load:',
    describe:
      'a load profile instead of one --rate: DURATION:RATE holds a rate, DURATION:FROM..TO ramps it, comma-separated ' +
      '(e.g. 2m:50,2m:100,2m:150 or 1m:0..500); the run lasts their sum, and the report gives each stage its figures ' +
      'and names the first where the cluster stopped keeping up (its rate, a ramp falling behind, queueing, ' +
      'rejections); --threshold stages_kept_up=all fails the run (exit 5) then'
  },
  queueing_factor: {
    type: 'number',
    group: 'Load:',
    describe: 'with --stages, a stage whose p50 or p99 is more than this many times the first kept stage\'s (and ' +
      '20 ms more) met its rate by queueing: not kept up; 0 judges throughput alone',
    default: 4
  },
  seed: {
    type: 'number',
    group: 'Load:',
    describe: 'seed of the data and parameter generators (default: random, printed)'
  },
  results_table: {
    type: 'string',
    group: 'Runs across machines:',
    describe:
      "also write this run's result as one row into [schema.]table on the cluster (created if needed), e.g. " +
      "doc.bench_runs"
  },
  run_id: {
    type: 'string',
    group: 'Runs across machines:',
    describe: 'groups the rows of one run from several load generators (default: generated, printed)'
  },
  generator: {
    type: 'string',
    group: 'Runs across machines:',
    describe:
      'K/N: this is load generator K of N of one run (a fleet, coordinated through --fleet_table); each writes its ' +
      'own rows (default 1/1)'
  },
  generators: {
    type: 'number',
    group: 'Runs across machines:',
    describe:
      'N: this is one of N load generators of one run; K is JOB_COMPLETION_INDEX + 1 (a Kubernetes Indexed Job), ' +
      'so one manifest serves every pod'
  },
  fleet_table: {
    type: 'string',
    default: DEFAULT_FLEET_TABLE,
    group: 'Runs across machines:',
    describe: 'where the generators of a fleet register, agree on one preparation and one start, and report'
  },
  barrier_timeout: {
    type: 'string',
    default: '5m',
    group: 'Runs across machines:',
    describe: 'how long a generator of a fleet waits for the tables to be prepared and for every generator to be ready'
  },
  start_at: {
    type: 'string',
    group: 'Runs across machines:',
    describe: 'ISO time at which to start the load, so load generators on several machines start together'
  },
  monitor_interval: {
    type: 'string',
    default: '5s',
    group: 'Output:',
    describe:
      'sample sys.nodes (CPU, heap, load, write/search thread pools and their rejections) this often during the ' +
      'run; 0 disables'
  },
  json: { type: 'boolean', default: false, group: 'Output:', describe: 'print one JSON result object on stdout' },
  threshold: {
    type: 'string',
    array: true,
    group: 'Output:',
    describe:
      'a pass/fail check of the run, repeatable: "p99<250ms", "failed=0", "rows_per_sec>=40000", per query or table ' +
      '"name:p99<50ms", over the run "drift_throughput_pct>-10" (last tenth against the first); a miss exits 5'
  },
  report: {
    type: 'string',
    group: 'Output:',
    describe: 'also write a self-contained HTML report (charts over time, summary, options) to this file'
  },
  progress: {
    type: 'boolean',
    group: 'Output:',
    describe: 'progress line on stderr every second (default: only on a TTY)'
  },
  metrics_port: {
    type: 'number',
    group: 'Output:',
    describe:
      'serve Prometheus metrics at http://--metrics_host:PORT/metrics during the run and 5 s after it (0: any free ' +
      'port, printed)'
  },
  metrics_host: {
    type: 'string',
    default: '127.0.0.1',
    group: 'Output:',
    describe: 'the address --metrics_port listens on (0.0.0.0 in a pod)'
  },
  ui: {
    type: 'string',
    group: 'Output:',
    describe:
      `a live page of the run at http://127.0.0.1:PORT/ (default port ${DEFAULT_UI_PORT}; 0: any free port, printed): ` +
      'charts, the cluster, the rate to change and a stop button; at the end it becomes the run\'s HTML report'
  },
  ui_host: {
    type: 'string',
    group: 'Output:',
    describe: 'the address --ui listens on (default 127.0.0.1); any other needs the token printed at start to steer'
  }
}

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

function commonRunOptions (args, { defaultProcesses }) {
  const processes = args.processes ?? defaultProcesses
  const stages = parseStagesOption(args)
  return {
    processes: requirePositiveInteger(processes, 'processes'),
    concurrentRequests: requireConcurrency(args.concurrent_requests, 'concurrent_requests'),
    durationMs: stages ? stages.reduce((sum, stage) => sum + stage.durationMs, 0)
      : args.duration === undefined ? null : parseDuration(args.duration, 'duration'),
    stages,
    gracefulStopMs: parseDuration(args.graceful_stop, 'graceful_stop'),
    warmupMs: args.warmup === undefined ? 0 : parseDuration(args.warmup, 'warmup'),
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
    progress: args.progress ?? Boolean(process.stderr.isTTY),
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
  Object.assign(options, fleetOptions(args, env, options))
  shareRatesInFleet(options)
  requireRoomForRate(options)
  requireOwnResultsTable(options, workload)
  if (workload.labelsOf) requireKnownLabels(options.thresholds, workload.labelsOf(options))
  requireRateForAchieved(options.thresholds, options.rate ?? (options.stages ? 'stages' : null))
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
    [parseTableName(REGISTRY_TABLE, 'table'), 'where this tool records the tables it made']
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
  const { connection, ...all } = options
  const rest = Object.fromEntries(Object.entries(all).filter(([key]) => !exclude.includes(key)))
  return {
    hosts: connection.hosts.map((h) => `${h.protocol}://${h.hostname}:${h.port}`),
    user: connection.user,
    password: connection.password ? '***' : '(none)',
    insecure: connection.insecure,
    timeout_ms: connection.timeoutMs,
    // What carried the load: a comparison of runs names it, and the report says it.
    protocol: connection.protocol ?? 'http',
    ...(connection.protocol === 'pg' ? { pg_port: connection.pgPort, pg_insert: connection.pgInsert } : {}),
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

module.exports = { parseOptions, describeOptions, parseUi, CONNECTION_OPTIONS, RUN_OPTIONS }
