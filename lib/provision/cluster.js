'use strict'

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const crypto = require('node:crypto')
const { spawn } = require('node:child_process')
const { EXIT, UsageError, FatalError } = require('../base/errors')
const { processRuns } = require('../base/processes')
const { makeDirectories } = require('../base/files')
const { decimalInteger } = require('../base/values')
const { resolveDistribution } = require('./distribution')
const { findJava } = require('./java')
const { heapSize, parseHeap, checkMemory, checkDisk, nodeUser, checkReach, checkListenLimits } = require('./preflight')
const { firstTaken, nodePorts } = require('./ports')
const { listenOf, seedHostsOf, clusterNameOf, listenWarning, checkAuthSettings } = require('./network')
const { makeHome, startNode, causeOf, sqlOnNode } = require('./nodes')
const { lastLogLines } = require('./node-files')
const { writeState, readState, register, stateFile, madeNames, madeDirsOf, STATE_FILE } = require('./state')
const { stopNodes, living } = require('./stop')
const { LET_GO } = require('./watchdog')
const { checkOwnedPath, removeMadePath } = require('./owned-paths')

// A cluster of CrateDB nodes on this machine, started by the tool: the distribution resolved (cache, Java), every check
// made before anything starts (ports, disk, memory, the user), the nodes started with explicit discovery, and ready
// only when every node it started answers, by its own port, that it is one of N nodes of this cluster. Any failure,
// a node that dies while starting, a start past its timeout, or Ctrl-C stops every node started so far.

const DEFAULT_HTTP_PORT = 4250
const DEFAULT_HEAP = '1g'
const DEFAULT_START_TIMEOUT_MS = 180_000
// Node i listens on HTTP +i, PostgreSQL +100+i, transport +200+i: a hundred nodes at the most, far beyond a machine.
const MAX_NODES = 20
// Settings the tool sets for every node: a --setting of one of them would break the cluster it starts.
const OWN_SETTINGS = new RegExp('^(node\\.name|cluster\\.name|http\\.port|psql\\.port|transport\\.port|' +
  'path\\.(data|logs|home|conf)|discovery\\..*|cluster\\.initial_master_nodes)$')
// Where a node listens: loopback only, which no setting may widen (a node on a shared machine's network would take
// anyone's load, and serve anyone its data).
const ADDRESS_SETTINGS = /^(network|http|transport|psql)\.(host|bind_host|publish_host)$/
// Cross-origin requests: with them any web page in a browser on this machine could send SQL to the loopback node.
const CORS_SETTINGS = /^http\.cors\./i
const READY_POLL_MS = 500

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

/** "key=value" settings as [key, value] pairs; one the tool sets itself, or no pair, is refused in one line. */
function parseSettings (list) {
  return [].concat(list ?? []).map(String).map((text) => {
    const at = text.indexOf('=')
    const key = at > 0 ? text.slice(0, at).trim() : ''
    if (!/^[A-Za-z0-9_.-]+$/.test(key)) throw new UsageError(`--setting must be key=value (got '${text}')`)
    if (ADDRESS_SETTINGS.test(key)) {
      throw new UsageError(`--setting ${key}: the nodes listen on loopback only (the tool sets ` +
        'network.host=127.0.0.1 for every node): leave it out (--listen ADDRESS: nodes that other hosts reach)')
    }
    if (CORS_SETTINGS.test(key)) {
      throw new UsageError(`--setting ${key}: CORS is refused: it would let any web page in a browser on this ` +
        'machine send SQL to the node (which has no password); leave it out')
    }
    if (OWN_SETTINGS.test(key)) {
      throw new UsageError(`--setting ${key} is set by the tool for every node (its ports from --http_port, its ` +
        'folders under --dir, explicit discovery): leave it out')
    }
    return [key, text.slice(at + 1)]
  })
}

/** A size flag ("1g", "512m") in bytes, or `fallback` when not given. */
const sizeOf = (value, flag, fallback = undefined) => (value === undefined || value === null ? fallback
  : heapSize(value, flag).bytes)

/** --download_min_rate: a size a second, 0 for none, or undefined when not given (the download's default). */
const minRateOf = (value) => (String(value).trim() === '0' ? 0 : sizeOf(value, '--download_min_rate'))

/** The spec checked: nodes, heap, settings, the first HTTP port, the folder and the start timeout. */
function clusterSpec (options) {
  const nodes = decimalInteger(options.nodes ?? 1)
  if (!Number.isInteger(nodes) || nodes < 1 || nodes > MAX_NODES) {
    throw new UsageError(`--nodes must be a whole number from 1 to ${MAX_NODES} (got '${options.nodes}')`)
  }
  const httpPort = decimalInteger(options.httpPort ?? DEFAULT_HTTP_PORT)
  if (!Number.isInteger(httpPort) || httpPort < 1024 || httpPort + 200 + nodes - 1 > 65_535) {
    throw new UsageError(`--http_port must be a port from 1024 that leaves room for ${nodes} nodes' three ports ` +
      `(got '${options.httpPort}')`)
  }
  const timeoutMs = Number(options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS)
  if (!(timeoutMs > 0)) throw new UsageError('--start_timeout must be a positive duration')
  const settings = parseSettings(options.settings)
  return {
    nodes,
    heap: parseHeap(options.heap ?? DEFAULT_HEAP),
    settings,
    httpPort,
    dir: options.dir ? path.resolve(String(options.dir)) : null,
    runAs: options.runAs ?? 'crate',
    startTimeoutMs: timeoutMs,
    version: options.version ?? null,
    tarball: options.tarball ?? null,
    sha256: options.sha256 ?? null,
    maxDownloadBytes: sizeOf(options.maxDownload, '--max_download'),
    maxUnpackedBytes: sizeOf(options.maxUnpacked, '--max_unpacked'),
    downloadTimeoutMs: options.downloadTimeoutMs,
    downloadMinRate: minRateOf(options.downloadMinRate),
    keepOnFailure: Boolean(options.keepOnFailure),
    stopWith: stopWithOf(options.stopWith),
    ...networkOf(options, settings)
  }
}

/** Where the nodes listen and which cluster they join (network.js): { listen, seedHosts, clusterName }. */
function networkOf (options, settings) {
  const listen = listenOf(options.listen)
  if (listen) checkAuthSettings(settings)
  const seedHosts = seedHostsOf(options.seedHosts, listen)
  return { listen, seedHosts, clusterName: clusterNameOf(options.clusterName, seedHosts) }
}

/** --stop_with PID: a process that runs now, whose end stops the cluster; null without one. */
function stopWithOf (value) {
  if (value === undefined || value === null) return null
  const pid = decimalInteger(value)
  if (!(Number.isSafeInteger(pid) && pid > 1 && processRuns(pid))) {
    throw new UsageError(`--stop_with must be the pid of a running process (got '${value}')`)
  }
  return pid
}

/**
 * The folder the cluster lives in: a new one under the system's temporary folder, or DIR as given, which must be
 * missing (it is made), empty, or hold only what an earlier start of this tool made there and recorded (its nodes
 * stopped: that is removed first). Anything else is refused: the tool removes only what it made. As root, a folder
 * on the way that another user owns or others may write to is refused (owned-paths.js). Returns { dir, madeDirs }:
 * the folders the start made (DIR itself and the ones above it it had to make), which its stop removes when empty.
 */
function clusterDir (spec) {
  if (!spec.dir) {
    checkOwnedPath(os.tmpdir(), { flag: 'the temporary folder' })
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crate-bench-cluster-'))
    fs.chmodSync(dir, 0o755)
    return { dir, madeDirs: [dir] }
  }
  checkOwnedPath(spec.dir, { flag: '--dir' })
  let madeDirs
  try {
    madeDirs = makeDirectories(spec.dir, { mode: 0o755 })
  } catch (error) {
    throw new UsageError(`--dir ${spec.dir}: cannot make it (${error.code || error.message})`)
  }
  // The folders an earlier start made stay the tool's to remove.
  if (madeDirs.length === 0) madeDirs = clearEarlierStart(spec.dir)
  return { dir: spec.dir, madeDirs }
}

/**
 * DIR as given, empty or holding only an earlier start's own files (removed now); otherwise refused in one line.
 * Returns the folders that earlier start made (DIR and above), still the tool's to remove.
 */
function clearEarlierStart (dir) {
  if (!fs.statSync(dir).isDirectory()) throw new UsageError(`--dir ${dir} is not a folder`)
  const entries = fs.readdirSync(dir)
  if (entries.length === 0) return []
  const notEmpty = () => new UsageError(`--dir ${dir} is not empty (it holds ${entries.slice(0, 3).join(', ')}` +
    `${entries.length > 3 ? ', …' : ''}): give a missing or empty folder; the tool removes only what it made`)
  let old
  try {
    old = readState(dir, { nullIfMissing: true })
  } catch {
    throw notEmpty()
  }
  if (!old) throw notEmpty()
  if (living(old).length > 0) {
    throw new UsageError(`${dir} holds a running cluster (${old.name}): stop it first (crate-bench cluster stop ` +
      `--dir ${dir}) or give another --dir`)
  }
  const made = madeNames(old, dir)
  if (!made || entries.some((e) => e !== STATE_FILE && !made.includes(e))) throw notEmpty()
  for (const name of made) removeMadePath(path.join(dir, name))
  fs.rmSync(stateFile(dir), { force: true })
  return madeDirsOf(old, dir)
}

/** Every port of every node, free: the first taken one, named with what it was for and who holds it, is refused. */
async function checkPorts (spec) {
  const wanted = []
  for (let i = 0; i < spec.nodes; i++) {
    const p = nodePorts(spec.httpPort, i)
    wanted.push({ port: p.http, what: `HTTP of node ${i + 1}` }, { port: p.pg, what: `PostgreSQL of node ${i + 1}` },
      { port: p.transport, what: `transport of node ${i + 1}` })
  }
  const taken = await firstTaken(wanted) ?? (spec.listen ? await firstTaken(wanted, { host: spec.listen }) : null)
  if (taken) {
    throw new UsageError(`port ${taken.port} (${taken.what}) is taken${taken.holder ? ` by ${taken.holder}` : ''}: ` +
      'give another --http_port (node i takes it +i, +100+i, +200+i)')
  }
}

/** What a node answers on its own HTTP port: { cluster, nodes } or null (not up yet). */
async function askNode (port) {
  const cluster = await sqlOnNode(port, 'SELECT name FROM sys.cluster', 2000)
  const nodes = cluster && await sqlOnNode(port, 'SELECT count(*) FROM sys.nodes', 2000)
  return cluster && nodes ? { cluster: cluster[0][0], nodes: nodes[0][0] } : null
}

/**
 * Starts the cluster `options` describe (see clusterSpec). `log` gets its progress lines; `signals` (an Interrupts)
 * stops the start on Ctrl-C or SIGTERM; `watchdog` ties the nodes to this process (they stop when it ends, however it
 * ends). Resolves { state, hosts, pgPorts, stop() }.
 */
async function startCluster (options, { env = process.env, log = () => {}, signals = null, watchdog = false,
  fetchImpl } = {}) {
  const spec = clusterSpec(options)
  // What fails in an instant first: a taken port, too little memory, no user to run as; then the distribution.
  await checkPorts(spec)
  checkMemory(spec.nodes, spec.heap)
  checkListenLimits(spec.listen)
  const user = nodeUser(spec.runAs)
  const dist = await resolveDistribution({ version: spec.version, tarball: spec.tarball, sha256: spec.sha256, env,
    fetchImpl, log, signal: signals ? signals.abortSignal : null, maxDownloadBytes: spec.maxDownloadBytes,
    downloadTimeoutMs: spec.downloadTimeoutMs, downloadMinRate: spec.downloadMinRate,
    maxUnpackedBytes: spec.maxUnpackedBytes })
  const java = findJava(dist.home, { env })
  const { dir, madeDirs } = clusterDir(spec)
  try {
    const full = checkDisk(dir, spec.nodes)
    if (full) log(full)
    checkReach(user, { home: dist.home, dir })
  } catch (error) {
    removeEmptyDirs(madeDirs)
    throw error
  }
  const cores = os.availableParallelism ? os.availableParallelism() : os.cpus().length
  const processors = spec.nodes > 1 ? Math.max(1, Math.floor(cores / spec.nodes)) : null
  const name = spec.clusterName ?? `crate-bench-${crypto.randomBytes(3).toString('hex')}`
  if (spec.listen) {
    log(listenWarning(spec.listen, Array.from({ length: spec.nodes }, (_, i) => Object.values(nodePorts(spec.httpPort,
      i))).flat()))
  }
  const state = {
    kind: 'crate-bench cluster',
    name,
    dir,
    // What the start makes, recorded before it is made: the only paths its stop removes.
    made: [],
    made_dirs: madeDirs,
    dir_given: Boolean(spec.dir),
    spec: { nodes: spec.nodes, heap: spec.heap.text, settings: Object.fromEntries(spec.settings),
      http_port: spec.httpPort, distribution: dist.source,
      ...(spec.listen ? { listen: spec.listen, seed_hosts: spec.seedHosts } : {}) },
    version: dist.version,
    build_hash: null,
    distribution: { home: dist.home, sha256: dist.sha256, source: dist.source },
    java: { home: java.home, major: java.major, bundled: java.bundled },
    heap: spec.heap.text,
    heap_bytes: spec.heap.bytes,
    settings: Object.fromEntries(spec.settings),
    processors,
    machine_cores: cores,
    run_as: user ? user.name : os.userInfo().username,
    run_uid: user ? user.uid : process.getuid ? process.getuid() : null,
    started_at: new Date().toISOString(),
    ready_s: null,
    nodes: []
  }
  writeState(dir, state)
  register(state, env)
  const recordMade = (entry) => {
    state.made.push(entry)
    writeState(dir, state)
  }
  // From before the first node until the cluster is ready, a watchdog holds a pipe from this process: a start killed
  // outright leaves no node behind. A run's cluster (`watchdog`) keeps it to the end; a cluster meant to stay up is
  // let go once ready (to --stop_with's process, when given).
  const guard = startWatchdog(dir, { pid: spec.stopWith, keepFiles: Boolean(spec.dir) })
  const stop = async ({ keep = false, keepLogs = false } = {}) => {
    const stopped = await stopNodes(dir, { remove: !keep, keepLogs, log, quietIfGone: true, env })
    guard.release()
    return stopped
  }
  log(`starting ${spec.nodes} node${spec.nodes === 1 ? '' : 's'} of CrateDB ${dist.version ?? '(version unknown)'} ` +
    `(${name}, ${spec.heap.text} heap each${processors ? `, processors ${processors} each: ${spec.nodes} nodes share ` +
      `this machine's ${cores} cores` : ''}) on Java ${java.major ?? '?'}${java.bundled ? ' (bundled)' : ` at ` +
      `${java.home}`} in ${dir}`)
  const started = Date.now()
  try {
    const home = makeHome(dir, dist.home, java.home, recordMade)
    const exits = new Map()
    for (let i = 0; i < spec.nodes; i++) {
      const node = startNode({ ...spec, name, dir }, i, { home, javaHome: java.home, user, recordMade })
      node.child.once('exit', (code, signal) => exits.set(node.name, signal || `exit code ${code}`))
      state.nodes.push({ name: node.name, pid: node.pid, start_time: node.startTime, http_port: node.ports.http,
        pg_port: node.ports.pg, transport_port: node.ports.transport, dir: node.dir, log: node.log, ready_s: null })
      writeState(dir, state)
    }
    await waitReady(state, { spec, started, exits, signals, log })
    state.ready_s = round1((Date.now() - started) / 1000)
    await describe(state)
    writeState(dir, state)
  } catch (error) {
    // A folder given (--dir) keeps what the failed start wrote there (its logs); a temporary one goes.
    await stopNodes(dir, { remove: !spec.dir, quietIfGone: true, env }).catch(() => {})
    guard.release()
    throw error
  }
  if (!watchdog) await guard.letGo()
  log(`ready in ${state.ready_s} s: ${state.nodes.map((n) => `${n.name} http ${n.http_port} pg ${n.pg_port}`)
    .join('; ')}`)
  return { state, hosts: state.nodes.map((n) => `http://127.0.0.1:${n.http_port}`),
    pgPorts: state.nodes.map((n) => n.pg_port), stop }
}

/** The folders a start made (outermost first), removed innermost first where nothing else was put in them. */
function removeEmptyDirs (dirs) {
  for (const dir of [...dirs].reverse()) {
    try {
      fs.rmdirSync(dir)
    } catch {
      // Something else was put there meanwhile: not the tool's to remove.
    }
  }
}

const round1 = (x) => Math.round(x * 10) / 10

/** Until every node answers it is one of N nodes of this cluster; a node that exits, the timeout or Ctrl-C end it. */
async function waitReady (state, { spec, started, exits, signals, log }) {
  let lastSaid = Date.now()
  for (;;) {
    if (signals && signals.interrupted) {
      throw Object.assign(new Error('interrupted while the nodes started: every node started so far is stopped'),
        { exitCode: EXIT.PARTIAL })
    }
    for (const node of state.nodes) {
      if (exits.has(node.name)) {
        throw nodeFailure(node, state, `exited while starting (${exits.get(node.name)})`, log)
      }
    }
    await Promise.all(state.nodes.filter((n) => n.ready_s === null).map(async (node) => {
      const answer = await askNode(node.http_port)
      // A cluster across hosts is ready when it holds this start's nodes and one a seed host.
      if (answer && answer.cluster === state.name && Number(answer.nodes) === spec.nodes + spec.seedHosts.length) {
        node.ready_s = round1((Date.now() - started) / 1000)
      }
    }))
    if (state.nodes.every((n) => n.ready_s !== null)) return
    if (Date.now() - started > spec.startTimeoutMs) {
      const slow = state.nodes.find((n) => n.ready_s === null)
      throw nodeFailure(slow, state, `was not ready within ${Math.round(spec.startTimeoutMs / 1000)} s ` +
        '(--start_timeout)', log)
    }
    if (Date.now() - lastSaid >= 15_000) {
      lastSaid = Date.now()
      log(`  ${state.nodes.filter((n) => n.ready_s !== null).length} of ${spec.nodes} nodes ready after ` +
        `${Math.round((Date.now() - started) / 1000)} s`)
    }
    await sleep(READY_POLL_MS)
  }
}

/**
 * A node that did not start: its last log lines go to `log` (the error is one line), and the error names the node,
 * what happened, the cause its log gives (the last "Caused by" or exception line) and where its log is.
 */
function nodeFailure (node, state, what, log) {
  const lines = lastLogLines(node, state)
  log(`${node.name}: its last log lines (${node.log}):\n${lines.map((l) => `  ${l}`).join('\n') || '  (none)'}`)
  const cause = causeOf(lines)
  return new FatalError(`${node.name} ${what}${cause ? `: ${cause}` : ''}; ` +
    `every node of ${state.name} stopped${!state.dir_given ? ' and its folder removed (its last log lines above)'
      : ` (its log kept: ${node.log})`}`)
}

/** The version and build hash the nodes report: what every result records. */
async function describe (state) {
  const rows = await sqlOnNode(state.nodes[0].http_port,
    "SELECT version['number'], version['build_hash'] FROM sys.nodes LIMIT 1", 10_000)
  // Without an answer the version the jars named stays, and the build hash is unknown.
  if (rows && rows[0]) [state.version, state.build_hash] = rows[0]
}

/**
 * The watchdog (watchdog.js), its own process, holding a pipe from this one: when this process ends, however it ends,
 * the pipe ends and the watchdog stops the nodes (`keepFiles`: their folders kept). `release()` ends it once the nodes
 * are stopped; `letGo()` leaves the cluster running, to the end of process `pid` when given (--stop_with).
 */
function startWatchdog (dir, { pid = null, keepFiles = false } = {}) {
  const child = spawn(process.execPath, [path.join(__dirname, 'watchdog.js'), dir, ...(pid ? ['--pid', String(pid)]
    : []), ...(keepFiles ? ['--keep'] : [])], { detached: true, stdio: ['pipe', 'ignore', 'ignore'] })
  child.unref()
  child.stdin.on('error', () => {})
  if (typeof child.stdin.unref === 'function') child.stdin.unref()
  // Let go only once the watchdog has the words: a tool that exits right after must not leave it hearing an end alone.
  const letGo = () => new Promise((resolve) => child.stdin.end(LET_GO, resolve))
  return { pid: child.pid, release: () => child.stdin.end(), letGo }
}

module.exports = { startCluster, clusterSpec, parseSettings, removeEmptyDirs, sizeOf, minRateOf, MAX_NODES,
  DEFAULT_HTTP_PORT, DEFAULT_HEAP, DEFAULT_START_TIMEOUT_MS }
