'use strict'

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const crypto = require('node:crypto')
const { spawn } = require('node:child_process')
const { EXIT, UsageError, FatalError } = require('../base/errors')
const { processRuns } = require('../base/processes')
const { resolveDistribution } = require('./distribution')
const { findJava } = require('./java')
const { parseHeap, checkMemory, checkDisk, nodeUser, checkReach } = require('./preflight')
const { firstTaken, nodePorts } = require('./ports')
const { makeHome, startNode, lastLogLines, causeOf, sqlOnNode } = require('./nodes')
const { writeState, readState, register } = require('./state')
const { stopNodes, living } = require('./stop')

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
const OWN_SETTINGS = new RegExp('^(node\\.name|cluster\\.name|network\\.(host|bind_host|publish_host)|http\\.port|' +
  'psql\\.port|transport\\.port|path\\.(data|logs|home|conf)|discovery\\..*|cluster\\.initial_master_nodes)$')
const READY_POLL_MS = 500

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

/** "key=value" settings as [key, value] pairs; one the tool sets itself, or no pair, is refused in one line. */
function parseSettings (list) {
  return [].concat(list ?? []).map(String).map((text) => {
    const at = text.indexOf('=')
    const key = at > 0 ? text.slice(0, at).trim() : ''
    if (!/^[A-Za-z0-9_.-]+$/.test(key)) throw new UsageError(`--setting must be key=value (got '${text}')`)
    if (OWN_SETTINGS.test(key)) {
      throw new UsageError(`--setting ${key} is set by the tool for every node (its ports from --http_port, its ` +
        'folders under --dir, explicit discovery): leave it out')
    }
    return [key, text.slice(at + 1)]
  })
}

/** The spec checked: nodes, heap, settings, the first HTTP port, the folder and the start timeout. */
function clusterSpec (options) {
  const nodes = Number(options.nodes ?? 1)
  if (!Number.isInteger(nodes) || nodes < 1 || nodes > MAX_NODES) {
    throw new UsageError(`--nodes must be a whole number from 1 to ${MAX_NODES} (got '${options.nodes}')`)
  }
  const httpPort = Number(options.httpPort ?? DEFAULT_HTTP_PORT)
  if (!Number.isInteger(httpPort) || httpPort < 1024 || httpPort + 200 + nodes - 1 > 65_535) {
    throw new UsageError(`--http_port must be a port from 1024 that leaves room for ${nodes} nodes' three ports ` +
      `(got '${options.httpPort}')`)
  }
  const timeoutMs = Number(options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS)
  if (!(timeoutMs > 0)) throw new UsageError('--start_timeout must be a positive duration')
  return {
    nodes,
    heap: parseHeap(options.heap ?? DEFAULT_HEAP),
    settings: parseSettings(options.settings),
    httpPort,
    dir: options.dir ? path.resolve(String(options.dir)) : null,
    runAs: options.runAs ?? 'crate',
    startTimeoutMs: timeoutMs,
    version: options.version ?? null,
    tarball: options.tarball ?? null,
    sha256: options.sha256 ?? null,
    keepOnFailure: Boolean(options.keepOnFailure),
    stopWith: stopWithOf(options.stopWith)
  }
}

/** --stop_with PID: a process that runs now, whose end stops the cluster; null without one. */
function stopWithOf (value) {
  if (value === undefined || value === null) return null
  const pid = Number(value)
  if (!(Number.isSafeInteger(pid) && pid > 1 && processRuns(pid))) {
    throw new UsageError(`--stop_with must be the pid of a running process (got '${value}')`)
  }
  return pid
}

/** The folder the cluster lives in: DIR as given (refused while a cluster of the tool runs there), or a new one. */
function clusterDir (spec) {
  if (!spec.dir) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crate-bench-cluster-'))
    fs.chmodSync(dir, 0o755)
    return { dir, made: true }
  }
  const made = !fs.existsSync(spec.dir)
  fs.mkdirSync(spec.dir, { recursive: true })
  if (made) fs.chmodSync(spec.dir, 0o755)
  const old = readState(spec.dir, { nullIfMissing: true })
  if (old && living(old).length > 0) {
    throw new UsageError(`${spec.dir} holds a running cluster (${old.name}): stop it first (crate-bench cluster stop ` +
      `--dir ${spec.dir}) or give another --dir`)
  }
  return { dir: spec.dir, made }
}

/** Every port of every node, free: the first taken one, named with what it was for and who holds it, is refused. */
async function checkPorts (spec) {
  const wanted = []
  for (let i = 0; i < spec.nodes; i++) {
    const p = nodePorts(spec.httpPort, i)
    wanted.push({ port: p.http, what: `HTTP of node ${i + 1}` }, { port: p.pg, what: `PostgreSQL of node ${i + 1}` },
      { port: p.transport, what: `transport of node ${i + 1}` })
  }
  const taken = await firstTaken(wanted)
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
  const user = nodeUser(spec.runAs)
  const dist = await resolveDistribution({ version: spec.version, tarball: spec.tarball, sha256: spec.sha256, env,
    fetchImpl, log })
  const java = findJava(dist.home, { env })
  const { dir, made } = clusterDir(spec)
  try {
    const full = checkDisk(dir, spec.nodes)
    if (full) log(full)
    checkReach(user, { home: dist.home, dir })
  } catch (error) {
    if (made) fs.rmSync(dir, { recursive: true, force: true })
    throw error
  }
  const cores = os.availableParallelism ? os.availableParallelism() : os.cpus().length
  const processors = spec.nodes > 1 ? Math.max(1, Math.floor(cores / spec.nodes)) : null
  const name = `crate-bench-${crypto.randomBytes(3).toString('hex')}`
  const state = {
    kind: 'crate-bench cluster',
    name,
    dir,
    made_dir: made,
    dir_given: Boolean(spec.dir),
    spec: { nodes: spec.nodes, heap: spec.heap.text, settings: Object.fromEntries(spec.settings),
      http_port: spec.httpPort, distribution: dist.source },
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
    started_at: new Date().toISOString(),
    ready_s: null,
    nodes: []
  }
  const home = makeHome(dir, dist.home, java.home)
  writeState(dir, state)
  register(state, env)
  const guard = watchdog ? startWatchdog(dir) : spec.stopWith ? startWatchdog(dir, spec.stopWith) : null
  const stop = async ({ keep = false } = {}) => {
    const stopped = await stopNodes(dir, { remove: !keep, log, quietIfGone: true, env })
    if (guard) guard.release()
    return stopped
  }
  log(`starting ${spec.nodes} node${spec.nodes === 1 ? '' : 's'} of CrateDB ${dist.version ?? '(version unknown)'} ` +
    `(${name}, ${spec.heap.text} heap each${processors ? `, processors ${processors} each: ${spec.nodes} nodes share ` +
      `this machine's ${cores} cores` : ''}) on Java ${java.major ?? '?'}${java.bundled ? ' (bundled)' : ` at ` +
      `${java.home}`} in ${dir}`)
  const started = Date.now()
  try {
    const exits = new Map()
    for (let i = 0; i < spec.nodes; i++) {
      const node = startNode({ ...spec, name, dir }, i, { home, javaHome: java.home, user })
      node.child.once('exit', (code, signal) => exits.set(node.name, signal || `exit code ${code}`))
      state.nodes.push({ name: node.name, pid: node.pid, http_port: node.ports.http, pg_port: node.ports.pg,
        transport_port: node.ports.transport, dir: node.dir, log: node.log, ready_s: null })
      writeState(dir, state)
    }
    await waitReady(state, { spec, started, exits, signals, log })
    state.ready_s = round1((Date.now() - started) / 1000)
    await describe(state)
    writeState(dir, state)
  } catch (error) {
    // A folder given (--dir) keeps what the failed start wrote there (its logs); a temporary one goes.
    await stopNodes(dir, { remove: !spec.dir && !spec.keepOnFailure, quietIfGone: true, env }).catch(() => {})
    if (guard) guard.release()
    throw error
  }
  log(`ready in ${state.ready_s} s: ${state.nodes.map((n) => `${n.name} http ${n.http_port} pg ${n.pg_port}`)
    .join('; ')}`)
  return { state, hosts: state.nodes.map((n) => `http://127.0.0.1:${n.http_port}`),
    pgPorts: state.nodes.map((n) => n.pg_port), stop }
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
      if (answer && answer.cluster === state.name && Number(answer.nodes) === spec.nodes) {
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
  const lines = lastLogLines(node, state.name)
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
 * the pipe ends and the watchdog stops the nodes. `release()` ends it once the nodes are stopped.
 */
function startWatchdog (dir, pid = null) {
  const child = spawn(process.execPath, [path.join(__dirname, 'watchdog.js'), dir, ...(pid ? ['--pid', String(pid)]
    : [])], { detached: true, stdio: [pid ? 'ignore' : 'pipe', 'ignore', 'ignore'] })
  child.unref()
  if (pid) return { pid: child.pid, release: () => {} }
  child.stdin.on('error', () => {})
  if (typeof child.stdin.unref === 'function') child.stdin.unref()
  return { pid: child.pid, release: () => child.stdin.end() }
}

module.exports = { startCluster, clusterSpec, parseSettings, DEFAULT_HTTP_PORT, DEFAULT_HEAP,
  DEFAULT_START_TIMEOUT_MS }
