'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { readState, unregister, isNodeOf, STATE_FILE } = require('./state')

// Stopping a cluster the tool started: SIGTERM to each of its nodes (only a process that is one of them: its pid alive
// and started with the cluster's name), a bounded wait, then SIGKILL; then, unless kept, what the start made under
// its folder (data, logs, the home, cluster.json) is removed, and the cluster leaves the registry.

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
const DEFAULT_GRACE_MS = 30_000
const KILL_WAIT_MS = 5000

/** The nodes of `state` that still run, as processes of this cluster. */
const living = (state, options) => state.nodes.filter((n) => isNodeOf(n.pid, state.name, options))

async function waitGone (state, ms, options) {
  const deadline = Date.now() + ms
  for (;;) {
    const left = living(state, options)
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
async function stopNodes (dir, { remove = true, graceMs = DEFAULT_GRACE_MS, log = () => {}, quietIfGone = false,
  env = process.env, procRoot } = {}) {
  const state = readState(dir, { nullIfMissing: quietIfGone })
  if (!state) return null
  const options = { procRoot }
  const running = living(state, options)
  for (const node of running) signal(node.pid, 'SIGTERM')
  if (running.length) log(`stopping ${running.length} node${running.length === 1 ? '' : 's'} of ${state.name}`)
  const stubborn = await waitGone(state, graceMs, options)
  for (const node of stubborn) signal(node.pid, 'SIGKILL')
  if (stubborn.length) {
    log(`${stubborn.map((n) => n.name).join(', ')} did not stop within ${Math.round(graceMs / 1000)} s: killed`)
  }
  const left = await waitGone(state, stubborn.length ? KILL_WAIT_MS : 0, options)
  if (left.length) throw new Error(`${left.map((n) => `${n.name} (pid ${n.pid})`).join(', ')} still run`)
  if (remove) removeMade(dir, state)
  unregister(state.name, env)
  return { name: state.name, stopped: running.length - stubborn.length, killed: stubborn.length, removed: remove }
}

/** What a start made under DIR: each node's folder, the home, cluster.json, and DIR itself when the start made it. */
function removeMade (dir, state) {
  for (const node of state.nodes) {
    if (node.dir && path.dirname(path.resolve(node.dir)) === path.resolve(dir)) {
      fs.rmSync(node.dir, { recursive: true, force: true })
    }
  }
  fs.rmSync(path.join(dir, 'home'), { recursive: true, force: true })
  fs.rmSync(path.join(dir, STATE_FILE), { force: true })
  if (state.made_dir) {
    try {
      fs.rmdirSync(dir)
    } catch {
      // Something else was put there meanwhile: not the tool's to remove.
    }
  }
}

module.exports = { stopNodes, living }
