'use strict'

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { runTool } = require('./run-tool')
const { fakeDistribution, testRunAs, openDir } = require('./fake-distribution')
const { isNodeOf } = require('../../lib/provision/state')

// What the provisioner's end-to-end tests share: a fake distribution, a cache and a folder a test owns (whatever it
// left running stopped after it), `crate-bench cluster …` as a user runs it, and what /proc says of the nodes.

const { user, skip: why } = testRunAs()

/** A fake distribution, a cache and a folder for the test; the tool's env and the options every start shares. */
async function provisionSetUp (t, { prefix = 'crate-bench-' } = {}) {
  const root = openDir(fs.mkdtempSync(path.join(os.tmpdir(), prefix)))
  const tarball = await fakeDistribution(root)
  const cache = path.join(root, 'cache')
  const env = { CRATE_BENCH_CACHE: cache }
  // Whatever a failed test left running (cluster start has no watchdog once ready: it is meant to stay up), then its
  // folder.
  t.after(async () => {
    await runTool('bin/crate-bench.js', ['cluster', 'stop', '--all'], { env })
    fs.rmSync(root, { recursive: true, force: true })
  })
  const runAs = user ? ['--run_as', user] : []
  return { root, tarball, cache, env, common: ['--tarball', tarball, '--heap', '256m', ...runAs],
    commonNoHeap: ['--tarball', tarball, ...runAs] }
}

const cluster = (args, options) => runTool('bin/crate-bench.js', ['cluster', ...args], options)
const stateOf = (dir) => JSON.parse(fs.readFileSync(path.join(dir, 'cluster.json'), 'utf8'))
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

/** The pids whose command line holds `arg` (Linux /proc). */
function processesWith (arg) {
  return fs.readdirSync('/proc').filter((p) => /^[0-9]+$/.test(p)).filter((pid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(arg)
    } catch {
      return false
    }
  })
}

/** Whether any node of `state` still runs, polled up to `ms`: false once all are gone. */
async function anyAlive (state, ms = 10_000) {
  const deadline = Date.now() + ms
  for (;;) {
    const alive = state.nodes.some((n) => isNodeOf(n, state))
    if (!alive || Date.now() > deadline) return alive
    await sleep(100)
  }
}

/** Waits up to `ms` for `file` to be gone: whether it is. */
async function gone (file, ms = 15_000) {
  const deadline = Date.now() + ms
  while (fs.existsSync(file) && Date.now() < deadline) await sleep(200)
  return !fs.existsSync(file)
}

module.exports = { provisionSetUp, cluster, stateOf, processesWith, anyAlive, gone, sleep, user, skip: why || false,
  skipWhy: why }
