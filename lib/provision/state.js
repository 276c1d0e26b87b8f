'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { UsageError } = require('../base/errors')
const { readStudyObject } = require('../base/files')
const { makeDirectories } = require('../base/files')
const { processRuns, processInfo } = require('../base/processes')
const { cacheDirOf } = require('./distribution')
const { replaceFile, checkOwnedPath } = require('./owned-paths')

// What a started cluster is, kept where it runs: DIR/cluster.json (the spec, the version and build hash its nodes
// report, the distribution's SHA-256, Java, each node's pid, ports, folders and time to ready), and one entry a
// cluster in the tool's registry (<cache>/clusters/<name>.json: its folder), so that `cluster list` finds every
// cluster this tool started on this machine, and `cluster stop --all` ends them.

const STATE_FILE = 'cluster.json'

const stateFile = (dir) => path.join(dir, STATE_FILE)

/** Written whole (a new file renamed into place): a reader never sees half of it, a planted link is never followed. */
function writeState (dir, state) {
  replaceFile(stateFile(dir), `${JSON.stringify(state, null, 1)}\n`)
}

// The names a start makes directly under its folder: its home and each node's folder.
const MADE_NAME = /^(home|node[0-9]{1,3})$/

/**
 * The names under `dir` that the start `state` recorded as made (only names a start makes: a record that claims
 * anything else, or is not this folder's own, makes no claim): null when it claims nothing.
 */
function madeNames (state, dir) {
  if (!Array.isArray(state.made) || !sameDir(state.dir, dir)) return null
  return state.made.filter((name) => typeof name === 'string' && MADE_NAME.test(name))
}

/** The folders the start `state` recorded as made that are `dir` or above it (none else is ever its to remove). */
function madeDirsOf (state, dir) {
  const at = path.resolve(dir)
  return Array.isArray(state.made_dirs) ? state.made_dirs.filter((d) => typeof d === 'string' &&
    (at === path.resolve(d) || at.startsWith(`${path.resolve(d)}${path.sep}`))) : []
}

/** Whether two paths name one folder, as their links resolve. */
function sameDir (a, b) {
  try {
    return typeof a === 'string' && fs.realpathSync.native(a) === fs.realpathSync.native(b)
  } catch {
    return false
  }
}

/** DIR/cluster.json, or null where there is none (`nullIfMissing`); anything else there is refused in one line. */
function readState (dir, { nullIfMissing = false } = {}) {
  const file = stateFile(dir)
  const state = readStudyObject(file, (why) => new UsageError(`${file} ${why}: no cluster this tool started`),
    { kind: 'a cluster', nullIfMissing })
  if (state && (state.kind !== 'crate-bench cluster' || !Array.isArray(state.nodes))) {
    throw new UsageError(`${file} is no cluster this tool started`)
  }
  return state
}

const registryDir = (env) => path.join(cacheDirOf(env), 'clusters')
const safeName = (name) => String(name).replace(/[^A-Za-z0-9_.-]/g, '_')

/**
 * A start's name in the registry: its cluster's name, and the address it listens on where it has one (the starts of
 * one cluster across hosts share its name; on one machine, in network namespaces, each keeps its own entry).
 */
const registryKeyOf = (state) => (state.spec && state.spec.listen ? `${state.name}@${state.spec.listen}` : state.name)

function register (state, env = process.env) {
  const dir = registryDir(env)
  checkOwnedPath(dir, { flag: 'the cache (CRATE_BENCH_CACHE)' })
  makeDirectories(dir, { mode: 0o755 })
  replaceFile(path.join(dir, `${safeName(registryKeyOf(state))}.json`), `${JSON.stringify({
    name: registryKeyOf(state), dir: state.dir })}\n`)
}

function unregister (name, env = process.env) {
  fs.rmSync(path.join(registryDir(env), `${safeName(name)}.json`), { force: true })
}

/** Every cluster in the registry: [{ name, dir }] (entries this tool cannot read are passed over). */
function registered (env = process.env) {
  let names = []
  try {
    names = fs.readdirSync(registryDir(env)).filter((n) => n.endsWith('.json'))
  } catch {
    return []
  }
  const entries = []
  for (const name of names) {
    try {
      const entry = JSON.parse(fs.readFileSync(path.join(registryDir(env), name), 'utf8'))
      if (entry && typeof entry.name === 'string' && typeof entry.dir === 'string') entries.push(entry)
    } catch {
      // Not ours to read, or half written by a start that died: nothing to list.
    }
  }
  return entries
}

/**
 * Whether `node` (of cluster.json) is a running node of cluster `state`: its pid alive and, where /proc shows it, the
 * very process the start launched (the start time recorded then, the user it runs as, its working folder the node's
 * own, under the cluster's folder) and started with the cluster's name. A pid reused by another process, or a
 * cluster.json copied or forged to name processes of another cluster, is never taken for a node: nothing but the
 * tool's own nodes is ever signalled.
 */
function isNodeOf (node, state, { procRoot = '/proc' } = {}) {
  const pid = node.pid
  if (!Number.isSafeInteger(pid) || pid <= 1 || !processRuns(pid)) return false
  const info = processInfo(pid, { procRoot })
  // No /proc (macOS): alive is all that can be known.
  if (info.args === null) return !fs.existsSync(procRoot)
  return info.args.includes(`-Ccluster.name=${state.name}`) && typeof node.start_time === 'string' &&
    info.startTime === node.start_time && info.uid === state.run_uid && typeof node.dir === 'string' &&
    typeof state.dir === 'string' && realPath(path.dirname(node.dir)) === realPath(state.dir) &&
    isRealFolder(node.dir) && info.cwd === path.join(realPath(state.dir), path.basename(node.dir))
}

/** Whether `at` is a folder itself, not a link to one (a forged record's nodeN linked to another cluster's node). */
const isRealFolder = (at) => {
  try {
    return fs.lstatSync(at).isDirectory()
  } catch {
    return false
  }
}

const realPath = (at) => {
  try {
    return fs.realpathSync.native(at)
  } catch {
    return path.resolve(at)
  }
}

module.exports = { writeState, readState, stateFile, register, unregister, registered, isNodeOf, madeNames, madeDirsOf,
  sameDir,
  STATE_FILE, registryKeyOf }
