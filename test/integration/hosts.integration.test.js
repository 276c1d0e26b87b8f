'use strict'

// A cluster across hosts of its own: three network namespaces (test/helpers/hosts.js), a node of the real CrateDB
// (CRATE_TEST_TARBALL) started on each of two by the tool's provisioner under `ip netns exec`, with --listen,
// --seed_hosts and --cluster_name; they form one cluster, which a run from the third host loads over the bridge; both
// stopped, nothing left (no node, no namespace, no link).

const test = require('node:test')
const assert = require('node:assert/strict')
const { runTool } = require('../helpers/run-tool')
const { leftOf } = require('../helpers/hosts')
const { clusterOnHosts, realHostsOr } = require('../helpers/hosts-cluster')
const { isNodeOf } = require('../../lib/provision/state')

const { tarball, skip: SKIP } = realHostsOr('a cluster across hosts of their own')

test('two hosts of their own, a node on each: one cluster, loaded from a third over the bridge, stopped, nothing left',
  { skip: SKIP, timeout: 420_000 }, async (t) => {
    let tag
    await t.test('the cluster', async (inner) => {
      const cluster = await clusterOnHosts(inner, { count: 2, tarball })
      tag = cluster.tag
      const [h1] = cluster.nodes
      assert.match(cluster.started[0].stderr, new RegExp(`^warning: the nodes listen on ` +
        `${h1.address.replace(/\./g, '\\.')} as well as loopback`, 'm'))
      console.log(`# ${cluster.started[0].stderr.split('\n').find((l) => l.startsWith('ready in'))}`)
      const [client] = cluster.clients
      // CrateDB trusts its superuser from a node's own host only: from another host, crate is refused.
      const asCrate = await client.run(process.execPath, ['appClusterIngest.js', '--host', cluster.urls[0],
        '--max_rows', '1000', '--json'], { timeoutMs: 60_000, cwd: `${__dirname}/../..` })
      assert.equal(asCrate.code, 3, 'the superuser from another host: refused')
      assert.match(asCrate.stderr, /No valid auth\.host_based\.config entry found for host/)
      const run = await cluster.bench(client, 'appClusterIngest.js', ['--host', cluster.urls.join(','),
        '--max_rows', '20000', '--processes', '1', '--replicas', '1', '--table', `doc.hosts_${process.pid}`, '--json'])
      assert.equal(run.code, 0, run.stderr)
      assert.equal(run.json.rows_ok, 20_000)
      assert.equal(run.json.environment.cratedb_nodes, 2, 'one cluster of both hosts\' nodes')
      assert.deepEqual(run.json.environment.cluster.node_list.map((n) => n.name).sort(),
        cluster.states.map((s) => s.nodes[0].name).sort())
      for (const dir of cluster.dirs) {
        const stopped = await runTool('bin/crate-bench.js', ['cluster', 'stop', '--dir', dir])
        assert.equal(stopped.code, 0, stopped.stderr)
      }
      assert.ok(cluster.states.every((state) => state.nodes.every((n) => !isNodeOf(n, state))), 'every node ended')
    })
    assert.deepEqual(leftOf(tag), [], 'no namespace or link of the test left')
  })
