'use strict'

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { UsageError } = require('./errors')
const { parseTableName } = require('./schema')
const { parseThreshold, requireKnownLabels } = require('./thresholds')

const DURATION_UNITS_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }
const HOUR_MS = 3_600_000

// Each duration's range. Timers overflow past 2^31 - 1 ms (about 596 h) and then fire at once, so
// nothing that becomes a timer may come near it; a run cannot hold a request in less than 1 ms.
const DURATION_RANGES_MS = {
  timeout: [1, 24 * HOUR_MS],
  graceful_stop: [1, 24 * HOUR_MS],
  warmup: [1, 24 * HOUR_MS],
  monitor_interval: [100, HOUR_MS],
  duration: [1, 30 * 24 * HOUR_MS],
  refresh_interval: [1, 24 * HOUR_MS],
  interval: [1, 365 * 24 * HOUR_MS],
  ingest_interval: [1, 365 * 24 * HOUR_MS],
  last: [1, 10 * 365 * 24 * HOUR_MS]
}

/** 1ms, 1.5s, 720h: the largest unit that fits, as the flags are written. */
function formatMs (ms) {
  for (const [unit, size] of [['h', HOUR_MS], ['m', 60_000], ['s', 1000]]) if (ms >= size) return `${Math.round((ms / size) * 100) / 100}${unit}`
  return `${ms}ms`
}

// "30s", "5m", "1.5h", "250ms"; a bare number means seconds, as in most load tools.
function parseDuration (value, flag) {
  const text = String(value).trim()
  const match = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h)?$/.exec(text)
  const ms = match ? Number(match[1]) * DURATION_UNITS_MS[match[2] || 's'] : NaN
  if (!Number.isFinite(ms) || ms <= 0) {
    throw new UsageError(`--${flag} must be a positive duration such as 500ms, 30s, 5m or 1h (got '${text}')`)
  }
  const [min, max] = DURATION_RANGES_MS[flag] || [1, 24 * HOUR_MS]
  if (ms < min || ms > max) throw new UsageError(`--${flag} must be between ${formatMs(min)} and ${formatMs(max)} (got '${text}')`)
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

/**
 * --max_rows / --max_queries: as given; else the default, unless --duration is given, which then
 * alone ends the run (a count limit nobody asked for must not cut a timed run short).
 */
function countLimit (value, flag, duration, defaultCount) {
  if (value !== undefined) return requirePositiveInteger(value, flag)
  return duration === undefined ? defaultCount : Number.MAX_SAFE_INTEGER
}

function parseBooleanText (value, name) {
  if (typeof value === 'boolean') return value
  const text = String(value ?? '').trim().toLowerCase()
  if (['', '0', 'false', 'no', 'off'].includes(text)) return false
  if (['1', 'true', 'yes', 'on'].includes(text)) return true
  throw new UsageError(`${name} must be true or false (got '${value}')`)
}

/** A host as it may be shown: any password in it replaced by ***. */
function maskCredentials (text) {
  return String(text).replace(/^([a-z][a-z0-9+.-]*:\/\/[^/@:]*):[^@/]*@/i, '$1:***@')
}

// CRATE_HOST may list several hosts ("a,b:4201,https://c", "https://user:secret@c"); requests go
// round-robin over them. Credentials in a host are taken as the connection's user and password.
function parseHosts (hostText, defaultPort, ssl) {
  const entries = String(hostText).split(',').map((s) => s.trim()).filter(Boolean)
  if (entries.length === 0) throw new UsageError('--host must name at least one host')
  return entries.map((entry) => {
    const shown = maskCredentials(entry)
    const withScheme = /^[a-z]+:\/\//i.test(entry) ? entry : `${ssl ? 'https' : 'http'}://${entry}`
    let url
    try {
      url = new URL(withScheme)
    } catch {
      throw new UsageError(`invalid host '${shown}' in --host/CRATE_HOST`)
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`invalid host '${shown}': only http:// and https:// are supported`)
    if (url.pathname && url.pathname !== '/') throw new UsageError(`invalid host '${shown}': a host has no path (got '${url.pathname}'); CrateDB answers on /_sql`)
    if (url.search || withScheme.includes('?')) throw new UsageError(`invalid host '${shown}': a host has no query string`)
    if (url.hash || withScheme.includes('#')) throw new UsageError(`invalid host '${shown}': a host has no #fragment`)
    const port = url.port ? Number(url.port) : defaultPort
    const host = { protocol: url.protocol.slice(0, -1), hostname: url.hostname, port }
    if (url.username || url.password) host.credentials = { user: decodeURIComponent(url.username), password: decodeURIComponent(url.password) }
    return host
  })
}

/**
 * User and password: from the hosts' URLs when they carry them, else --user/CRATE_USER and
 * CRATE_PASSWORD. Two different answers are an error that never shows a password.
 */
function credentialsOf (hosts, user, password) {
  const fromHosts = hosts.filter((h) => h.credentials).map((h) => h.credentials)
  for (const h of hosts) delete h.credentials
  if (fromHosts.length === 0) return { user: user ?? 'crate', password }
  const [first] = fromHosts
  if (fromHosts.some((c) => c.user !== first.user || c.password !== first.password)) throw new UsageError('the hosts in --host/CRATE_HOST carry different credentials; one user and password serve every host')
  if (user !== undefined && user !== first.user) throw new UsageError(`the host names user '${first.user}' but --user/CRATE_USER is '${user}'`)
  if (password && first.password && password !== first.password) throw new UsageError('the host carries a password that differs from CRATE_PASSWORD')
  return { user: first.user || user || 'crate', password: first.password || password }
}

const CONNECTION_OPTIONS = {
  host: { type: 'string', group: 'Connection:', describe: 'CrateDB host(s), comma-separated for round-robin [env CRATE_HOST]' },
  port: { type: 'string', group: 'Connection:', describe: 'HTTP port [env CRATE_PORT]' },
  user: { type: 'string', group: 'Connection:', describe: 'user name; the password is read from CRATE_PASSWORD only [env CRATE_USER]' },
  ssl: { type: 'boolean', group: 'Connection:', describe: 'use HTTPS [env CRATE_SSL]' },
  insecure: { type: 'boolean', default: false, group: 'Connection:', describe: 'HTTPS without certificate verification (never the default)' },
  timeout: { type: 'string', default: '60s', group: 'Connection:', describe: 'per-request timeout (e.g. 10s, 2m)' }
}

const RUN_OPTIONS = {
  processes: { type: 'number', group: 'Load:', describe: 'worker processes' },
  concurrent_requests: { type: 'number', default: 20, group: 'Load:', describe: 'requests in flight per process' },
  duration: { type: 'string', group: 'Load:', describe: 'stop after this long (e.g. 30s, 5m); whichever limit comes first ends the run' },
  warmup: { type: 'string', group: 'Load:', describe: 'load from the start, but answers in this first part (e.g. 10s) are kept out of every figure and reported apart; --duration counts after it' },
  graceful_stop: { type: 'string', default: '10s', group: 'Load:', describe: 'after --duration, how long requests in flight may still take; those without an answer then are abandoned (in doubt)' },
  rate: { type: 'string', group: 'Load:', describe: 'constant arrival rate over all processes: rows/s (ingest) or queries/s (analytical), sent on a fixed timetable; latency then counts from each request\'s scheduled start (default: as fast as the answers come)' },
  seed: { type: 'number', group: 'Load:', describe: 'seed of the data and parameter generators (default: random, printed)' },
  results_table: { type: 'string', group: 'Runs across machines:', describe: 'also write this run\'s result as one row into [schema.]table on the cluster (created if needed), e.g. doc.bench_runs' },
  run_id: { type: 'string', group: 'Runs across machines:', describe: 'groups the rows of one run from several load generators (default: generated, printed)' },
  generator: { type: 'string', group: 'Runs across machines:', describe: 'K/N: this is load generator K of N in one run; each writes its own rows (default 1/1)' },
  start_at: { type: 'string', group: 'Runs across machines:', describe: 'ISO time at which to start the load, so load generators on several machines start together' },
  monitor_interval: { type: 'string', default: '5s', group: 'Output:', describe: 'sample sys.nodes (CPU, heap, load, write/search thread pools and their rejections) this often during the run; 0 disables' },
  json: { type: 'boolean', default: false, group: 'Output:', describe: 'print one JSON result object on stdout' },
  threshold: { type: 'string', array: true, group: 'Output:', describe: 'a pass/fail check of the run, repeatable: "p99<250ms", "failed=0", "rows_per_sec>=40000", per query or table "name:p99<50ms"; a miss exits 5' },
  report: { type: 'string', group: 'Output:', describe: 'also write a self-contained HTML report (charts over time, summary, options) to this file' },
  progress: { type: 'boolean', group: 'Output:', describe: 'progress line on stderr every second (default: only on a TTY)' }
}

function parsePort (text) {
  if (text === undefined || text === '') return 4200
  const port = /^\d{1,5}$/.test(String(text).trim()) ? Number(text) : NaN
  if (!(port >= 1 && port <= 65535)) throw new UsageError(`--port/CRATE_PORT must be a port number 1-65535 in decimal (got '${text}')`)
  return port
}

function connectionFromArgs (args, env) {
  const ssl = parseBooleanText(args.ssl ?? env.CRATE_SSL ?? false, '--ssl/CRATE_SSL')
  const port = parsePort(args.port ?? env.CRATE_PORT)
  const hosts = parseHosts(args.host ?? env.CRATE_HOST ?? 'localhost', port, ssl)
  const { user, password } = credentialsOf(hosts, args.user ?? env.CRATE_USER, env.CRATE_PASSWORD || '')
  // eslint-disable-next-line no-control-regex -- a user name with a control character is what we refuse
  if (/[\u0000-\u001f\u007f:]/.test(user)) throw new UsageError('--user/CRATE_USER must not contain a control character or a colon')
  return {
    hosts,
    user,
    password,
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

/** --generator K/N: one of N load generators of a run, K counted from 1. */
function parseGenerator (text) {
  if (text === undefined) return { index: 0, count: 1 }
  const m = /^(\d+)\/(\d+)$/.exec(String(text).trim())
  const k = m ? Number(m[1]) : NaN
  const n = m ? Number(m[2]) : NaN
  if (!(n >= 1 && k >= 1 && k <= n && n <= 10_000)) throw new UsageError(`--generator must be K/N with 1 <= K <= N, e.g. 2/3 for the second of three load generators (got '${text}')`)
  return { index: k - 1, count: n }
}

/** A positive rate per second, e.g. --rate (rows or queries) or --ingest_rate (rows). */
function parseRate (text, flag = 'rate', units = '') {
  const rate = Number(text)
  if (String(text).trim() === '' || !Number.isFinite(rate) || rate <= 0) {
    throw new UsageError(`--${flag} must be a positive number${units ? ` of ${units}` : ''} per second (got '${text}')`)
  }
  return rate
}

/** A file the run can write at its end: found out before the run, not after it. */
function writableFile (file, flag) {
  const dir = path.dirname(path.resolve(String(file)))
  try {
    fs.accessSync(dir, fs.constants.W_OK)
  } catch {
    throw new UsageError(`--${flag} '${file}': the directory ${dir} does not exist or cannot be written`)
  }
  if (fs.existsSync(file) && !fs.statSync(file).isFile()) throw new UsageError(`--${flag} '${file}' is not a regular file`)
  return path.resolve(String(file))
}

/** The soft limit of open files of this process (Linux), or null where it cannot be read. */
function openFileLimit () {
  try {
    const line = fs.readFileSync('/proc/self/limits', 'utf8').split('\n').find((l) => l.startsWith('Max open files'))
    const soft = line && line.split(/\s{2,}/)[1]
    return /^\d+$/.test(soft) ? Number(soft) : null
  } catch {
    return null
  }
}

// Sockets, the IPC channel and the files Node itself keeps open.
const FILES_BESIDE_SOCKETS = 64

/** Each request in flight holds a socket: more than the open-file limit allows would stall in EMFILE. */
function requireConcurrency (value, flag, limit = openFileLimit()) {
  const concurrency = requirePositiveInteger(value, flag)
  if (limit !== null && concurrency + FILES_BESIDE_SOCKETS > limit) {
    throw new UsageError(`--${flag} ${concurrency} needs a socket per request in flight, more than this process may open (ulimit -n ${limit}): use at most ${Math.max(1, limit - FILES_BESIDE_SOCKETS)}, or more --processes`)
  }
  return concurrency
}

function commonRunOptions (args, { defaultProcesses }) {
  const processes = args.processes ?? defaultProcesses
  return {
    processes: requirePositiveInteger(processes, 'processes'),
    concurrentRequests: requireConcurrency(args.concurrent_requests, 'concurrent_requests'),
    durationMs: args.duration === undefined ? null : parseDuration(args.duration, 'duration'),
    gracefulStopMs: parseDuration(args.graceful_stop, 'graceful_stop'),
    warmupMs: args.warmup === undefined ? 0 : parseDuration(args.warmup, 'warmup'),
    rate: args.rate === undefined ? null : parseRate(args.rate),
    resultsTable: args.results_table === undefined ? null : parseTableName(args.results_table, 'results_table'),
    runId: parseRunId(args.run_id),
    startAt: args.start_at === undefined ? null : parseStartAt(args.start_at),
    generator: parseGenerator(args.generator),
    monitorIntervalMs: String(args.monitor_interval).trim() === '0' ? 0 : parseDuration(args.monitor_interval, 'monitor_interval'),
    seed: args.seed === undefined ? Math.floor(Math.random() * 0x7fffffff) : requirePositiveInteger(args.seed, 'seed', { allowZero: true }),
    json: Boolean(args.json),
    thresholds: (args.threshold || []).map(parseThreshold),
    report: args.report === undefined ? null : writableFile(args.report, 'report'),
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
  const parser = yargsFactory(joinNegativeValues(argv, workload))
    .scriptName(script)
    .usage(`${workload.usage}\n\nUsage: node ${script} [options]`)
    .options(CONNECTION_OPTIONS)
    .options(RUN_OPTIONS)
    .options({ processes: { ...RUN_OPTIONS.processes, describe: `worker processes (default: ${workload.defaultProcesses ?? `the number of CPUs, ${os.availableParallelism()} here`})` } })
    .options(workload.options)
    .strict()
    .version(require('../package.json').version)
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
  requireRoomForRate(options)
  if (workload.labelsOf) requireKnownLabels(options.thresholds, workload.labelsOf(options))
  return options
}

/**
 * --rate with --duration: each process sends one request every (units per request x processes /
 * rate); a window shorter than that holds a single request per process, and no rate can be
 * measured from it.
 */
function requireRoomForRate ({ rate, durationMs, processes, batchSize }) {
  if (rate == null || durationMs == null) return
  const units = batchSize ?? 1
  const intervalMs = (units * processes * 1000) / rate
  if (durationMs < intervalMs) {
    throw new UsageError(`--rate ${rate} over ${processes} process${processes === 1 ? '' : 'es'} sends a request of ${units} every ${formatMs(Math.round(intervalMs))} per process: --duration ${formatMs(durationMs)} cannot hold two of them; raise --rate or --duration`)
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

module.exports = {
  parseOptions,
  connectionFromArgs,
  parseRunId,
  parseDuration,
  maskCredentials,
  requireConcurrency,
  parseRate,
  parseHosts,
  parseBooleanText,
  requirePositiveInteger,
  countLimit,
  describeOptions
}
