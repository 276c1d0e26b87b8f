'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { UsageError } = require('../base/errors')
const { readStudyObject } = require('../base/files')
const { processRuns } = require('../base/processes')
const { cacheDirOf } = require('./distribution')

// What a started cluster is, kept where it runs: DIR/cluster.json (the spec, the version and build hash its nodes
// report, the distribution's SHA-256, Java, each node's pid, ports, folders and time to ready), and one entry a
// cluster in the tool's registry (<cache>/clusters/<name>.json: its folder), so that `cluster list` finds every
// cluster this tool started on this machine, and `cluster stop --all` ends them.

const STATE_FILE = 'cluster.json'

const stateFile = (dir) => path.join(dir, STATE_FILE)

/** Written whole (a temporary file renamed into place): a reader never sees half of it. */
function writeState (dir, state) {
  const file = stateFile(dir)
  fs.writeFileSync(`${file}.tmp`, `${JSON.stringify(state, null, 1)}\n`)
  fs.renameSync(`${file}.tmp`, file)
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

function register (state, env = process.env) {
  const dir = registryDir(env)
  fs.mkdirSync(dir, { recursive: true })
  fs.writeFileSync(path.join(dir, `${safeName(state.name)}.json`), `${JSON.stringify({ name: state.name,
    dir: state.dir })}\n`)
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
 * Whether `pid` is a node of cluster `name`: alive and, where /proc shows it, started with that cluster's name. A pid
 * reused by another process is never taken for a node, so nothing but the tool's own nodes is ever signalled.
 */
function isNodeOf (pid, name, { procRoot = '/proc' } = {}) {
  if (!Number.isSafeInteger(pid) || pid <= 1 || !processRuns(pid)) return false
  let cmdline
  try {
    cmdline = fs.readFileSync(`${procRoot}/${pid}/cmdline`, 'utf8')
  } catch {
    // No /proc (macOS): alive is all that can be known.
    return !fs.existsSync(procRoot)
  }
  return cmdline.split('\0').includes(`-Ccluster.name=${name}`)
}

module.exports = { writeState, readState, stateFile, register, unregister, registered, isNodeOf, STATE_FILE }
