'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { nodeNamesOf } = require('./network')
const { sqlAt } = require('./external')
const { spawn } = require('node:child_process')
const { nodePorts } = require('./ports')
const { makeNewDir } = require('./owned-paths')
const { KEPT_MODE } = require('./unpack')
const { processStartTime } = require('../base/processes')

// A node's process: started from a home of the cluster's own (DIR/home: bin/ copied, jdk/ the Java found, everything
// else a link into the shared read-only distribution), so that nothing is ever written into the cache, and a
// distribution without a bundled JDK runs on the one found. Data, logs, GC logs and heap dumps go under DIR/nodeN.

// bin/crate keeps 16 GC logs of 64 MB a node by default: a gigabyte each, for a benchmark's few minutes.
const GC_LOG_FILES = '4'
const GC_LOG_SIZE = '16m'

/**
 * DIR/home: the distribution's entries linked, bin/ copied (bin/crate finds its home from where it lies). Made new, as
 * every path the start makes (owned-paths.js), and recorded (`recordMade`) before it is made.
 */
function makeHome (dir, install, javaHome, recordMade = () => {}) {
  const home = path.join(dir, 'home')
  recordMade('home')
  makeNewDir(home)
  makeNewDir(path.join(home, 'bin'))
  for (const entry of fs.readdirSync(install)) {
    if (entry === 'bin' || entry === 'jdk') continue
    fs.symlinkSync(path.join(install, entry), path.join(home, entry))
  }
  for (const entry of fs.readdirSync(path.join(install, 'bin'))) {
    const from = path.join(install, 'bin', entry)
    const stat = fs.lstatSync(from)
    if (!stat.isFile()) continue
    fs.copyFileSync(from, path.join(home, 'bin', entry), fs.constants.COPYFILE_EXCL)
    fs.chmodSync(path.join(home, 'bin', entry), stat.mode & KEPT_MODE)
  }
  fs.symlinkSync(javaHome, path.join(home, 'jdk'))
  return home
}

/**
 * Node i's (0-based) settings: its name, the cluster's, loopback, its ports, its folders, explicit discovery (a
 * single node alone; several seeded with each other's transport ports, every one an initial master), `processors`
 * when the nodes share the machine's cores, then the user's settings (last: CrateDB takes the last of a name).
 */
function nodeSettings ({ name, nodes, httpPort, nodeDir, processors, settings, listen = null, seedHosts = [] }, i) {
  const ports = nodePorts(httpPort, i)
  const names = nodeNamesOf({ name, nodes, listen })
  // Beyond loopback (--listen): every node of this start and every seed host, each an initial master by its
  // transport address (the nodes of other hosts are named there, not here).
  const own = names.map((_, n) => `${listen ?? '127.0.0.1'}:${nodePorts(httpPort, n).transport}`)
  const discovery = nodes === 1 && seedHosts.length === 0 ? ['discovery.type=single-node']
    : [`discovery.seed_hosts=${[...own, ...seedHosts].join(',')}`,
        `cluster.initial_master_nodes=${seedHosts.length ? [...own, ...seedHosts].join(',') : names.join(',')}`]
  return [
    `node.name=${names[i]}`,
    `cluster.name=${name}`,
    // Loopback always (the tool's own checks and runs on this machine); with --listen, that address too, where
    // the other nodes reach this one.
    ...(listen ? [`network.bind_host=127.0.0.1,${listen}`, `network.publish_host=${listen}`]
      : ['network.host=127.0.0.1']),
    `http.port=${ports.http}`,
    `psql.port=${ports.pg}`,
    `transport.port=${ports.transport}`,
    `path.data=${path.join(nodeDir, 'data')}`,
    `path.logs=${path.join(nodeDir, 'logs')}`,
    ...discovery,
    ...(processors ? [`processors=${processors}`] : []),
    ...settings.map(([k, v]) => `${k}=${v}`)
  ].map((s) => `-C${s}`)
}

/**
 * Starts node i: its folders made new and recorded (`recordMade`), handed to `user` when the nodes run as another
 * user (only what was just made is ever chowned, and its log before its folder is theirs), its output in
 * DIR/nodeN/out.log, in a process group of its own (a Ctrl-C at the terminal reaches the tool, which stops its nodes
 * in order). Returns { name, pid, startTime, ports, dir, log, child }: `startTime` as /proc tells it, which a pid
 * reused by another process does not have.
 */
function startNode (spec, i, { home, javaHome, user, recordMade = () => {} }) {
  const nodeDir = path.join(spec.dir, `node${i + 1}`)
  recordMade(`node${i + 1}`)
  const made = [nodeDir, path.join(nodeDir, 'data'), path.join(nodeDir, 'logs')]
  for (const dir of made) makeNewDir(dir)
  const log = path.join(nodeDir, 'out.log')
  const out = fs.openSync(log, 'wx', 0o644)
  try {
    if (user) {
      fs.fchownSync(out, user.uid, user.gid)
      for (const dir of [...made].reverse()) fs.lchownSync(dir, user.uid, user.gid)
    }
  } catch (error) {
    fs.closeSync(out)
    throw error
  }
  const args = nodeSettings({ ...spec, nodeDir }, i)
  const env = {
    PATH: process.env.PATH || '/usr/bin:/bin',
    HOME: nodeDir,
    LANG: 'C.UTF-8',
    JAVA_HOME: javaHome,
    CRATE_HEAP_SIZE: spec.heap.text,
    CRATE_GC_LOG_DIR: path.join(nodeDir, 'logs'),
    CRATE_GC_LOG_FILES: GC_LOG_FILES,
    CRATE_GC_LOG_SIZE: GC_LOG_SIZE,
    CRATE_HEAP_DUMP_PATH: nodeDir
  }
  let child
  try {
    child = spawn(path.join(home, 'bin', 'crate'), args, { cwd: nodeDir, env, detached: true,
      stdio: ['ignore', out, out], ...(user ? { uid: user.uid, gid: user.gid } : {}) })
  } finally {
    fs.closeSync(out)
  }
  child.unref()
  return { name: nodeNamesOf(spec)[i], pid: child.pid, startTime: processStartTime(child.pid),
    ports: nodePorts(spec.httpPort, i), dir: nodeDir, log, child, args }
}

/** The cause a node's log lines give: the last "Caused by" line, else the last exception or error line; or null. */
function causeOf (lines) {
  const caused = [...lines].reverse().find((l) => /^Caused by: /.test(l.trim()))
  const thrown = [...lines].reverse().find((l) => /(Exception|Error)\b/.test(l) && !/^\s*at /.test(l))
  const cause = caused ?? thrown
  return cause ? cause.trim().replace(/^Caused by: /, '') : null
}

/**
 * The rows a statement answers on a node's own HTTP port, or null (no answer within `timeoutMs`, an error, no rows):
 * the provisioner asks nodes it started before any client of the run exists, and never retries elsewhere.
 */
async function sqlOnNode (port, stmt, timeoutMs) {
  try {
    const rows = await sqlAt(`http://127.0.0.1:${port}`, stmt, { timeoutMs })
    return Array.isArray(rows) ? rows : null
  } catch {
    return null
  }
}

module.exports = { makeHome, nodeSettings, startNode, causeOf, sqlOnNode }
