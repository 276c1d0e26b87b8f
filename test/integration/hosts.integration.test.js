'use strict'

// A cluster across hosts of its own: three network namespaces (test/helpers/hosts.js), a node of the real CrateDB
// (CRATE_TEST_TARBALL) started on each of two by the tool's provisioner under `ip netns exec`, with --listen,
// --seed_hosts and --cluster_name; they form one cluster, which a run from the third host loads over the bridge; both
// stopped, nothing left (no node, no namespace, no link).

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { runTool } = require('../helpers/run-tool')
const { tempDir } = require('../helpers/temp-files')
const { openDir } = require('../helpers/fake-distribution')
const { hostsUnavailable, makeHosts, leftOf } = require('../helpers/hosts')
const { isNodeOf } = require('../../lib/provision/state')

const tarball = process.env.CRATE_TEST_TARBALL
const SKIP = !(tarball && fs.existsSync(tarball))
  ? 'CRATE_TEST_TARBALL does not name a CrateDB tarball: a cluster across hosts of their own skipped'
  : hostsUnavailable() ?? false
if (SKIP) console.log(`# ${SKIP}`)

const HTTP_PORT = 4650
const ROOT = path.join(__dirname, '..', '..')

test('two hosts of their own, a node on each: one cluster, loaded from a third over the bridge, stopped, nothing left',
  { skip: SKIP, timeout: 420_000 }, async (t) => {
    let tag
    const dirs = []
    await t.test('the cluster', async (inner) => {
      // Stopped by signals from this namespace, whatever the test came to (a stop of a stopped cluster is a no-op):
      // the first hook registered, so the first run (before the folders and the namespaces go).
      inner.after(async () => {
        for (const dir of dirs) await runTool('bin/crate-bench.js', ['cluster', 'stop', '--dir', dir])
      })
      const made = makeHosts(inner, 3)
      tag = made.tag
      const [h1, h2, client] = made.hosts
      const root = openDir(tempDir(inner))
      const start = (host, other, i) => {
        const dir = path.join(root, `host${i}`)
        dirs.push(dir)
        return host.run(process.execPath, [path.join(ROOT, 'bin', 'crate-bench.js'), 'cluster', 'start', '--tarball',
          tarball, '--heap', '384m', '--http_port', String(HTTP_PORT), '--listen', host.address, '--seed_hosts',
          `${other.address}:${HTTP_PORT + 200}`, '--cluster_name', `${made.tag}-cluster`, '--dir', dir,
          '--stop_with', String(process.pid), '--json'], { timeoutMs: 240_000 })
      }
      const [s1, s2] = await Promise.all([start(h1, h2, 1), start(h2, h1, 2)])
      assert.equal(s1.code, 0, s1.stderr)
      assert.equal(s2.code, 0, s2.stderr)
      assert.match(s1.stderr, new RegExp(`^warning: the nodes listen on ${h1.address.replace(/\./g, '\\.')} as ` +
        'well as loopback', 'm'))
      const states = [JSON.parse(s1.stdout), JSON.parse(s2.stdout)]
      console.log(`# ${s1.stderr.split('\n').find((l) => l.startsWith('ready in'))}`)
      // As on machines of one's own: CrateDB trusts its superuser from the node's own host only, and asks every
      // other host a password. A user for the load, made on h1 (its loopback), run from the third host.
      const password = `pw-${made.tag}`
      const made1 = await h1.run(process.execPath, ['-e', `(async () => { for (const stmt of [${JSON.stringify(
        `CREATE USER bench WITH (password = '${password}')`)}, 'GRANT ALL TO bench']) { const a = await fetch(` +
        `'http://127.0.0.1:${HTTP_PORT}/_sql', { method: 'POST', headers: { 'content-type': 'application/json' }, ` +
        'body: JSON.stringify({ stmt }) }); if (a.status !== 200) throw new Error(await a.text()) } })()'],
      { timeoutMs: 60_000 })
      assert.equal(made1.code, 0, made1.stderr)
      const hosts = [h1, h2].map((h) => `http://${h.address}:${HTTP_PORT}`)
      const crateAsRemote = await client.run(process.execPath, [path.join(ROOT, 'appClusterIngest.js'), '--host',
        hosts[0], '--max_rows', '1000', '--json'], { timeoutMs: 60_000, cwd: ROOT })
      assert.equal(crateAsRemote.code, 3, 'the superuser from another host: refused')
      assert.match(crateAsRemote.stderr, /No valid auth\.host_based\.config entry found for host/)
      const run = await client.run(process.execPath, [path.join(ROOT, 'appClusterIngest.js'), '--host',
        hosts.join(','), '--user', 'bench', '--max_rows', '20000', '--processes', '1', '--replicas', '1', '--table',
        `doc.hosts_${process.pid}`, '--json'], { timeoutMs: 180_000, cwd: ROOT,
        env: { ...process.env, CRATE_PASSWORD: password } })
      assert.equal(run.code, 0, run.stderr)
      const result = JSON.parse(run.stdout)
      assert.equal(result.rows_ok, 20_000)
      assert.equal(result.environment.cratedb_nodes, 2, 'one cluster of both hosts\' nodes')
      assert.deepEqual(result.environment.cluster.node_list.map((n) => n.name).sort(),
        states.map((s) => s.nodes[0].name).sort())
      for (const dir of dirs) {
        const stopped = await runTool('bin/crate-bench.js', ['cluster', 'stop', '--dir', dir])
        assert.equal(stopped.code, 0, stopped.stderr)
      }
      assert.ok(states.every((state) => state.nodes.every((n) => !isNodeOf(n, state))), 'every node ended')
    })
    assert.deepEqual(leftOf(tag), [], 'no namespace or link of the test left')
  })
