'use strict'

const os = require('node:os')
const path = require('node:path')
const { UsageError } = require('./errors')
const { parseTableName } = require('./schema')

const DURATION_UNITS_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }

// "30s", "5m", "1.5h", "250ms"; a bare number means seconds, as in most load tools.
function parseDuration (value, flag) {
  const text = String(value).trim()
  const match = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h)?$/.exec(text)
  const ms = match ? Number(match[1]) * DURATION_UNITS_MS[match[2] || 's'] : NaN
  if (!Number.isFinite(ms) || ms <= 0) {
    throw new UsageError(`--${flag} must be a positive duration such as 500ms, 30s, 5m or 1h (got '${text}')`)
  }
  return ms
}

function requirePositiveInteger (value, flag, { allowZero = false } = {}) {
  const min = allowZero ? 0 : 1
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) {
    const shown = Number.isNaN(value) ? 'not a number' : `'${value}'`
    throw new UsageError(`--${flag} must be a whole number ${allowZero ? '>= 0' : '>= 1'} (got ${shown})`)
  }
  return value
}

function parseBooleanText (value, name) {
  if (typeof value === 'boolean') return value
  const text = String(value ?? '').trim().toLowerCase()
  if (['', '0', 'false', 'no', 'off'].includes(text)) return false
  if (['1', 'true', 'yes', 'on'].includes(text)) return true
  throw new UsageError(`${name} must be true or false (got '${value}')`)
}

// CRATE_HOST may list several hosts ("a,b:4201,https://c"); requests go round-robin over them.
function parseHosts (hostText, defaultPort, ssl) {
  const entries = String(hostText).split(',').map((s) => s.trim()).filter(Boolean)
  if (entries.length === 0) throw new UsageError('--host must name at least one host')
  return entries.map((entry) => {
    const withScheme = /^[a-z]+:\/\//i.test(entry) ? entry : `${ssl ? 'https' : 'http'}://${entry}`
    let url
    try {
      url = new URL(withScheme)
    } catch {
      throw new UsageError(`invalid host '${entry}' in --host/CRATE_HOST`)
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new UsageError(`invalid host '${entry}': only http:// and https:// are supported`)
    }
    if (url.username || url.password || (url.pathname && url.pathname !== '/')) {
      throw new UsageError(`invalid host '${entry}': give credentials in CRATE_USER/CRATE_PASSWORD, not in the host`)
    }
    const port = url.port ? Number(url.port) : defaultPort
    return { protocol: url.protocol.slice(0, -1), hostname: url.hostname, port }
  })
}

const CONNECTION_OPTIONS = {
  host: { type: 'string', group: 'Connection:', describe: 'CrateDB host(s), comma-separated for round-robin [env CRATE_HOST]' },
  port: { type: 'number', group: 'Connection:', describe: 'HTTP port [env CRATE_PORT]' },
  user: { type: 'string', group: 'Connection:', describe: 'user name; the password is read from CRATE_PASSWORD only [env CRATE_USER]' },
  ssl: { type: 'boolean', group: 'Connection:', describe: 'use HTTPS [env CRATE_SSL]' },
  insecure: { type: 'boolean', default: false, group: 'Connection:', describe: 'HTTPS without certificate verification (never the default)' },
  timeout: { type: 'string', default: '60s', group: 'Connection:', describe: 'per-request timeout (e.g. 10s, 2m)' }
}

const RUN_OPTIONS = {
  processes: { type: 'number', group: 'Load:', describe: 'worker processes (default: number of CPUs)' },
  concurrent_requests: { type: 'number', default: 20, group: 'Load:', describe: 'requests in flight per process' },
  duration: { type: 'string', group: 'Load:', describe: 'stop after this long (e.g. 30s, 5m); whichever limit comes first ends the run' },
  rate: { type: 'string', group: 'Load:', describe: 'constant arrival rate over all processes: rows/s (ingest) or queries/s (analytical), sent on a fixed timetable; latency then counts from each request\'s scheduled start (default: as fast as the answers come)' },
  seed: { type: 'number', group: 'Load:', describe: 'seed of the data and parameter generators (default: random, printed)' },
  results_table: { type: 'string', group: 'Runs across machines:', describe: 'also write this run\'s result as one row into [schema.]table on the cluster (created if needed), e.g. doc.bench_runs' },
  run_id: { type: 'string', group: 'Runs across machines:', describe: 'groups the rows of one run from several load generators (default: generated, printed)' },
  start_at: { type: 'string', group: 'Runs across machines:', describe: 'ISO time at which to start the load, so load generators on several machines start together' },
  monitor_interval: { type: 'string', default: '5s', group: 'Output:', describe: 'sample sys.nodes (CPU, heap, load, write/search thread pools and their rejections) this often during the run; 0 disables' },
  json: { type: 'boolean', default: false, group: 'Output:', describe: 'print one JSON result object on stdout' },
  progress: { type: 'boolean', group: 'Output:', describe: 'progress line on stderr every second (default: only on a TTY)' }
}

function connectionFromArgs (args, env) {
  const ssl = parseBooleanText(args.ssl ?? env.CRATE_SSL ?? false, '--ssl/CRATE_SSL')
  const port = args.port ?? (env.CRATE_PORT !== undefined && env.CRATE_PORT !== '' ? Number(env.CRATE_PORT) : 4200)
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new UsageError(`--port/CRATE_PORT must be a port number 1-65535 (got '${args.port ?? env.CRATE_PORT}')`)
  }
  const hosts = parseHosts(args.host ?? env.CRATE_HOST ?? 'localhost', port, ssl)
  return {
    hosts,
    user: args.user ?? env.CRATE_USER ?? 'crate',
    password: env.CRATE_PASSWORD || '',
    insecure: Boolean(args.insecure),
    timeoutMs: parseDuration(args.timeout, 'timeout')
  }
}

const MAX_START_DELAY_MS = 24 * 3600 * 1000

function parseStartAt (text, nowMs = Date.now()) {
  const at = Date.parse(text)
  if (!/^\d{4}-\d\d-\d\dT/.test(String(text)) || !Number.isFinite(at)) {
    throw new UsageError(`--start_at must be an ISO time such as 2026-11-22T10:00:00Z (got '${text}')`)
  }
  if (at - nowMs > MAX_START_DELAY_MS) throw new UsageError(`--start_at '${text}' is more than 24 hours away`)
  return new Date(at).toISOString()
}

function parseRunId (text) {
  if (text === undefined) return `run-${new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')}-${Math.random().toString(36).slice(2, 8)}`
  if (!/^[A-Za-z0-9._:-]{1,100}$/.test(String(text))) throw new UsageError(`--run_id must be 1 to 100 letters, digits or . _ : - (got '${text}')`)
  return String(text)
}

/** A positive rate per second, e.g. --rate (rows or queries) or --ingest_rate (rows). */
function parseRate (text, flag = 'rate', units = '') {
  const rate = Number(text)
  if (String(text).trim() === '' || !Number.isFinite(rate) || rate <= 0) {
    throw new UsageError(`--${flag} must be a positive number${units ? ` of ${units}` : ''} per second (got '${text}')`)
  }
  return rate
}

function commonRunOptions (args, { defaultProcesses }) {
  const processes = args.processes ?? defaultProcesses
  return {
    processes: requirePositiveInteger(processes, 'processes'),
    concurrentRequests: requirePositiveInteger(args.concurrent_requests, 'concurrent_requests'),
    durationMs: args.duration === undefined ? null : parseDuration(args.duration, 'duration'),
    rate: args.rate === undefined ? null : parseRate(args.rate),
    resultsTable: args.results_table === undefined ? null : parseTableName(args.results_table, 'results_table'),
    runId: parseRunId(args.run_id),
    startAt: args.start_at === undefined ? null : parseStartAt(args.start_at),
    monitorIntervalMs: String(args.monitor_interval).trim() === '0' ? 0 : parseDuration(args.monitor_interval, 'monitor_interval'),
    seed: args.seed === undefined ? Math.floor(Math.random() * 0x7fffffff) : requirePositiveInteger(args.seed, 'seed', { allowZero: true }),
    json: Boolean(args.json),
    progress: args.progress ?? Boolean(process.stderr.isTTY)
  }
}

/**
 * Parses argv for one workload. The workload contributes its own flags, examples and validation;
 * connection and run flags are the same for every workload.
 */
function parseOptions (workload, argv, env = process.env) {
  const script = path.basename(process.argv[1] || workload.script)
  // Loaded here, not at the top: workers share this module's validators but never parse argv.
  const yargsFactory = require('yargs/yargs')
  const parser = yargsFactory(argv)
    .scriptName(script)
    .usage(`${workload.usage}\n\nUsage: node ${script} [options]`)
    .options(CONNECTION_OPTIONS)
    .options(RUN_OPTIONS)
    .options(workload.options)
    .strict()
    .version(false)
    .help('help')
    .alias('help', 'h')
    .wrap(Math.min(120, process.stdout.columns || 100))
    .epilogue(workload.epilogue || '')
    .fail((message, error) => {
      const unknown = /^Unknown arguments?: (.*)$/.exec(message || '')
      if (unknown) {
        const names = unknown[1].split(', ')
        const typedAsOption = (name) => argv.some((a) => a === `--${name}` || a.startsWith(`--${name}=`) || a === `-${name}`)
        const options = names.filter(typedAsOption)
        if (options.length === 0) throw new UsageError(`unexpected argument '${names[0]}' (options start with --; see --help)`)
        throw new UsageError(`unknown option ${options.map((a) => `--${a}`).join(', ')} (see --help)`)
      }
      throw new UsageError(message || (error && error.message) || 'invalid arguments')
    })
  for (const [command, description] of workload.examples || []) parser.example(command, description)
  const args = parser.parseSync()
  if (args._.length > 0) throw new UsageError(`unexpected argument '${args._[0]}'`)
  const options = {
    connection: connectionFromArgs(args, env),
    ...commonRunOptions(args, { defaultProcesses: workload.defaultProcesses ?? os.availableParallelism() }),
    ...workload.validateOptions(args)
  }
  return options
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
    ...Object.fromEntries(Object.entries(rest).map(([key, value]) => [toSnakeCase(key), value && value.display ? value.display : value]))
  }
}

function toSnakeCase (key) {
  return key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)
}

module.exports = {
  parseOptions,
  parseDuration,
  parseRate,
  parseHosts,
  parseBooleanText,
  requirePositiveInteger,
  describeOptions
}
