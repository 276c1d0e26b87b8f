'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { busyNodes } = require('../../lib/reports/cluster-limits')

/** A run's cluster of nodes on `hosts` (one entry a node), each 2 cores, every node's peak load `load`. */
const run = (hosts, load) => ({
  cluster: { nodes: hosts.map((_, i) => ({ name: `n${i + 1}`, peak: { load_1m: load } })) },
  environment: { cluster: { nodes: hosts.length, cores_per_node: 2,
    node_list: hosts.map((hostname, i) => ({ name: `n${i + 1}`, hostname, cores: 2 })) } }
})

test('a load far above the cores is busy; nodes that share a machine each bring their own load to its average', () => {
  assert.deepEqual(busyNodes(run(['a'], 12)).map((b) => b.node), ['n1'], 'one node, load 12 on 2 cores')
  // Three nodes on one 2-core machine (a study's cluster on this machine) load it to 12 by themselves.
  assert.deepEqual(busyNodes(run(['vm', 'vm', 'vm'], 11.9)), [])
  assert.deepEqual(busyNodes(run(['vm', 'vm', 'vm'], 30)).map((b) => b.node), ['n1', 'n2', 'n3'])
  assert.deepEqual(busyNodes(run(['a', 'b', 'c'], 11.9)).length, 3, 'three machines of 2 cores each at 11.9')
})
