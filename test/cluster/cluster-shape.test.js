'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { parseShape, summarizeShape, clusterShape, shapeText } = require('../../lib/cluster/cluster-shape')
const { startCrateTestCluster } = require('../helpers/crate-test-double')
const { CrateClient } = require('../../lib/cluster/http-client')

const GB = 2 ** 30

test('the shape from sys.nodes: per node its machine; summarised, with nodes that share a machine named', async (t) => {
  const double = await startCrateTestCluster({ nodeShapes: [{ hostname: 'm1', cores: 8, heapMax: 32 * GB },
    { hostname: 'm2', cores: 8, heapMax: 32 * GB }, { hostname: 'm2', cores: 8, heapMax: 32 * GB }] }, { nodes: 3 })
  t.after(() => double.stop())
  const client = new CrateClient({ hosts: [{ protocol: 'http', hostname: '127.0.0.1', port: double.port }],
    user: 'crate', password: '', timeoutMs: 2000 })
  t.after(() => client.close())
  const shape = await clusterShape(client)
  assert.deepEqual([shape.nodes, shape.cores_per_node, shape.heap_bytes_per_node, shape.version],
    [3, 8, 32 * GB, '6.4.3'])
  assert.equal(shape.shared_machine, true)
  assert.equal(shape.machines_shared.length, 1)
  assert.equal(shape.machines_shared[0].hostname, 'm2')
  assert.equal(shape.node_list[0].memory_bytes, 4506423296 + 20770091008, 'capture 20: used + free')
  assert.match(shapeText(shape), /^3 nodes x 8 cores, 32 GB heap; SHARED MACHINE: .+ on m2 \(no scaling figure\)$/)
})

test('nodes that differ keep their list; a missing figure is null, never a guess; no answer is no shape', () => {
  const nodes = parseShape({ cols: ['name', 'hostname', 'cores', 'heap', 'mem', 'version'], rows: [
    ['a', 'h1', 4, { max: 8 * GB }, { used: 1, free: 3 }, '6.4.3'],
    ['b', 'h2', 16, { max: 31 * GB }, {}, '6.4.3']] })
  const shape = summarizeShape(nodes)
  assert.deepEqual([shape.cores_per_node, shape.heap_bytes_per_node, shape.shared_machine], [[4, 16], [8 * GB, 31 * GB],
    false])
  assert.equal(nodes[1].memory_bytes, null)
  assert.equal(shapeText(shape), '2 nodes x 4/16 cores, 8 GB/31 GB heap')
  assert.equal(summarizeShape(parseShape({ error: 'x' })), null)
})
