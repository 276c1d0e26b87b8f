'use strict'

// A real CrateDB cluster across hosts of their own (hosts.js), as on machines of one's own: a node on each of `count`
// hosts, started by the tool's provisioner in its namespace (--listen, --seed_hosts, --cluster_name), `clients` more
// hosts for the load, and a user with a password for it (CrateDB trusts its superuser from a node's own host only).
// Every node is stopped when the test ends, before its folder and its namespace go.

const path = require('node:path')
const assert = require('node:assert/strict')
const { runTool } = require('./run-tool')
const { tempDir } = require('./temp-files')
const { openDir } = require('./fake-distribution')
const fs = require('node:fs')
const { makeHosts, hostsUnavailable } = require('./hosts')

const ROOT = path.join(__dirname, '..', '..')
const TOOL = path.join(ROOT, 'bin', 'crate-bench.js')

/** SQL on `host`'s own node over its loopback (as crate, whom CrateDB trusts there): the answer's body. */
async function sqlOn (host, port, stmt, args = []) {
  const script = `fetch('http://127.0.0.1:${port}/_sql', { method: 'POST', headers: { 'content-type': ` +
    `'application/json' }, body: ${JSON.stringify(JSON.stringify({ stmt, args }))} }).then(async (a) => ` +
    '{ const text = await a.text(); console.log(text); process.exitCode = a.status === 200 ? 0 : 1 })'
  const answer = await host.run(process.execPath, ['-e', script], { timeoutMs: 60_000 })
  if (answer.code !== 0) throw new Error(`${stmt}: ${answer.stdout || answer.stderr}`)
  return JSON.parse(answer.stdout)
}

async function clusterOnHosts (t, { count, clients = 1, tarball, httpPort = 4650, heap = '384m' }) {
  const dirs = []
  // The first hook registered runs first: the nodes stopped (by signals, from this namespace) before the folders and
  // the namespaces go, however the test ended.
  t.after(async () => {
    for (const dir of dirs) await runTool('bin/crate-bench.js', ['cluster', 'stop', '--dir', dir])
  })
  const made = makeHosts(t, count + clients)
  const nodes = made.hosts.slice(0, count)
  const root = openDir(tempDir(t))
  const transport = httpPort + 200
  const started = await Promise.all(nodes.map((host, i) => {
    const dir = path.join(root, `host${i + 1}`)
    dirs.push(dir)
    const seeds = nodes.filter((other) => other !== host).map((other) => `${other.address}:${transport}`)
    return host.run(process.execPath, [TOOL, 'cluster', 'start', '--tarball', tarball, '--heap', heap,
      '--http_port', String(httpPort), '--listen', host.address, '--seed_hosts', seeds.join(','), '--cluster_name',
      `${made.tag}-cluster`, '--dir', dir, '--stop_with', String(process.pid), '--json'], { timeoutMs: 300_000 })
  }))
  for (const s of started) assert.equal(s.code, 0, s.stderr)
  const password = `pw-${made.tag}`
  await sqlOn(nodes[0], httpPort, `CREATE USER bench WITH (password = '${password}')`)
  await sqlOn(nodes[0], httpPort, 'GRANT ALL TO bench')
  return {
    nodes,
    clients: made.hosts.slice(count),
    tag: made.tag,
    dirs,
    states: started.map((s) => JSON.parse(s.stdout)),
    started,
    password,
    urls: nodes.map((h) => `http://${h.address}:${httpPort}`),
    pgPort: httpPort + 100,
    /** A run of the benchmark `app` on `client` as the user made for it: { code, stdout, stderr, json }. */
    bench: async (client, app, args, { timeoutMs = 300_000 } = {}) => {
      const run = await client.run(process.execPath, [path.join(ROOT, app), '--user', 'bench', ...args],
        { timeoutMs, cwd: ROOT, env: { ...process.env, CRATE_PASSWORD: password } })
      let json = null
      try {
        json = JSON.parse(run.stdout)
      } catch { /* no result printed */ }
      return { ...run, json }
    },
    sql: (stmt, args) => sqlOn(nodes[0], httpPort, stmt, args)
  }
}

/**
 * The real CrateDB to start across hosts (CRATE_TEST_TARBALL), and why a test of `what` skips where it cannot (no
 * tarball, no namespaces): { tarball, skip } with the skip line printed once.
 */
function realHostsOr (what) {
  const tarball = process.env.CRATE_TEST_TARBALL
  const skip = !(tarball && fs.existsSync(tarball))
    ? `CRATE_TEST_TARBALL does not name a CrateDB tarball: ${what} skipped`
    : hostsUnavailable() ?? false
  if (skip) console.log(`# ${skip}`)
  return { tarball, skip }
}

module.exports = { clusterOnHosts, sqlOn, realHostsOr }
