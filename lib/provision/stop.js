'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { UsageError } = require('../base/errors')
const { readState, unregister, isNodeOf, madeNames, madeDirsOf, sameDir, stateFile, registryKeyOf } = require('./state')
const { removeMadePath } = require('./owned-paths')
const { processEnded } = require('../base/processes')

// Stopping a cluster the tool started: SIGTERM to each of its nodes (only a process that is one of them: the very
// process the start launched, state.js isNodeOf), a bounded wait until each has ended (its ports closed), then
// SIGKILL; then, unless kept, what the start
// recorded as made under its folder (each node's folder, the home, cluster.json, the folders it made) is removed,
// nothing else, and the cluster leaves the registry. A cluster.json outside its cluster's own folder (a copy) is
// refused: it names another folder's nodes.

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
const DEFAULT_GRACE_MS = 30_000
const KILL_WAIT_MS = 5000

/** The nodes of `state` that still run, as processes of this cluster. */
const living = (state, options) => state.nodes.filter((n) => isNodeOf(n, state, options))

/** The nodes of `nodes` that have not ended by `ms` from now (each the very process found running: its start time). */
async function waitEnded (nodes, ms, options) {
  const deadline = Date.now() + ms
  for (;;) {
    const left = nodes.filter((n) => !processEnded(n.pid, n.start_time, options))
    if (left.length === 0 || Date.now() >= deadline) return left
    await sleep(200)
  }
}

function signal (pid, name) {
  try {
    process.kill(pid, name)
  } catch {
    // Gone meanwhile.
  }
}

/**
 * Stops the cluster of DIR. Returns { name, stopped, killed, removed } (the nodes that ended on SIGTERM and on
 * SIGKILL); null when DIR holds no cluster (and `quietIfGone`). `remove`: what the start made goes too.
 */
async function stopNodes (dir, { remove = true, keepLogs = false, graceMs = DEFAULT_GRACE_MS, log = () => {},
  quietIfGone = false, env = process.env, procRoot } = {}) {
  const state = readState(dir, { nullIfMissing: quietIfGone })
  if (!state) return null
  if (!sameDir(state.dir, dir)) {
    throw new UsageError(`${stateFile(dir)} is the record of the cluster in ${state.dir}, not of this folder (a ` +
      'copy?): stop it by its own folder')
  }
  const options = { procRoot }
  const running = living(state, options)
  for (const node of running) signal(node.pid, 'SIGTERM')
  if (running.length) log(`stopping ${running.length} node${running.length === 1 ? '' : 's'} of ${state.name}`)
  const stubborn = await waitEnded(running, graceMs, options)
  for (const node of stubborn) signal(node.pid, 'SIGKILL')
  if (stubborn.length) {
    log(`${stubborn.map((n) => n.name).join(', ')} did not stop within ${Math.round(graceMs / 1000)} s: killed`)
  }
  const left = await waitEnded(stubborn, KILL_WAIT_MS, options)
  if (left.length) throw new Error(`${left.map((n) => `${n.name} (pid ${n.pid})`).join(', ')} still run`)
  if (remove && keepLogs) removeAllButLogs(dir, state)
  else if (remove) removeMade(dir, state)
  unregister(registryKeyOf(state), env)
  return { name: state.name, stopped: running.length - stubborn.length, killed: stubborn.length, removed: remove,
    logs_kept: remove && keepLogs }
}

/**
 * What the start recorded as made under DIR but each node's logs (its output and logs/: CrateDB's log, the GC logs)
 * and cluster.json, which says whose they are: a study keeps them with its results.
 */
function removeAllButLogs (dir, state) {
  for (const name of madeNames(state, dir) ?? []) {
    if (!name.startsWith('node')) {
      removeMadePath(path.join(dir, name))
      continue
    }
    let entries = []
    try {
      entries = fs.readdirSync(path.join(dir, name))
    } catch { /* gone */ }
    for (const entry of entries.filter((e) => e !== 'logs' && e !== 'out.log')) {
      removeMadePath(path.join(dir, name, entry))
    }
  }
}

/** What the start recorded as made under DIR, and cluster.json; then the folders it made, where now empty. */
function removeMade (dir, state) {
  for (const name of madeNames(state, dir) ?? []) removeMadePath(path.join(dir, name))
  removeMadePath(stateFile(dir))
  for (const made of madeDirsOf(state, dir).sort((a, b) => b.length - a.length)) {
    try {
      fs.rmdirSync(made)
    } catch {
      // Something else was put there meanwhile: not the tool's to remove.
    }
  }
}

module.exports = { stopNodes, living }
