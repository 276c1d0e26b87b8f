'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { SHAPE_SQL, parseShape, summarizeShape, clusterShape, shapeText } = require('../../lib/cluster/cluster-shape')
const { BUSY_IDLE_CPU_PCT, CPU_SQL, MAX_READINGS } = require('../../lib/cluster/idle-cpu')
const { startCrateTestCluster, clientTo } = require('../helpers/crate-test-double')

const GB = 2 ** 30

test('the shape from sys.nodes: per node its machine; summarised, with nodes that share a machine named', async (t) => {
  const double = await startCrateTestCluster({ nodeShapes: [{ hostname: 'm1', cores: 8, heapMax: 32 * GB },
    { hostname: 'm2', cores: 8, heapMax: 32 * GB }, { hostname: 'm2', cores: 8, heapMax: 32 * GB }] }, { nodes: 3 })
  t.after(() => double.stop())
  const client = clientTo(double.port, { timeoutMs: 2000 })
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

/** A client whose sys.nodes answers the shape, then each CPU reading in turn: [[n1 cpu, n2 cpu], …]. */
function scriptedNodes (readings) {
  const statements = []
  let reading = 0
  const row = (name, cpu) => [name, `host-${name}`, 2, { max: GB }, { used: 1, free: 1 }, '6.4.3', cpu]
  const client = {
    statements,
    sql: async (stmt) => {
      statements.push(stmt)
      const cpus = readings[Math.min(reading++, readings.length - 1)]
      if (stmt === SHAPE_SQL) {
        return { cols: ['name', 'hostname', 'cores', 'heap', 'mem', 'version', 'cpu_pct'],
          rows: cpus.map((cpu, i) => row(`n${i + 1}`, cpu)) }
      }
      assert.equal(stmt, CPU_SQL)
      if (cpus === 'fail') throw new Error('no host answers')
      return { cols: ['name', 'cpu_pct'], rows: cpus.map((cpu, i) => [`n${i + 1}`, cpu]) }
    }
  }
  return client
}

test('a node busy before the run is read again a second apart: the tail of a load that just ended is not busy',
  async () => {
  const slept = []
  const sleep = async (ms) => { slept.push(ms) }
  // As a grid's next cell read the real node a second after the last cell's load: 92%, then 19%.
  const tail = scriptedNodes([[92, 0], [19, 0]])
  const afterLoad = await clusterShape(tail, undefined, { sleep })
  assert.deepEqual(afterLoad.node_list.map((n) => n.cpu_pct_before_run), [19, 0])
  assert.equal(afterLoad.cpu_read_over_s, 1)
  assert.deepEqual(slept, [1000])
  // Another client's queries keep it busy at every reading: the lowest of the readings, over 3 s.
  const otherClient = scriptedNodes([[88, 1], [91, 0], [84, 2], [97, 0], [99, 0]])
  const busy = await clusterShape(otherClient, undefined, { sleep })
  assert.deepEqual(busy.node_list.map((n) => n.cpu_pct_before_run), [84, 0])
  assert.equal(busy.cpu_read_over_s, MAX_READINGS - 1)
  assert.equal(otherClient.statements.length, MAX_READINGS, 'never more readings than that')
  // A quiet cluster is read once.
  const quiet = scriptedNodes([[1, 0]])
  assert.equal((await clusterShape(quiet, undefined, { sleep })).cpu_read_over_s, 0)
  assert.equal(quiet.statements.length, 1)
  // A reading that fails ends the readings; what was read stands.
  const lost = await clusterShape(scriptedNodes([[90, 0], 'fail']), undefined, { sleep })
  assert.deepEqual([lost.node_list[0].cpu_pct_before_run, lost.cpu_read_over_s], [90, 0])
  assert.ok(BUSY_IDLE_CPU_PCT > 19 && BUSY_IDLE_CPU_PCT <= 84, 'the mark lies between a tail and a busy node')
})

test('the double answers the CPU read again as a 6.4.3 node does, one reading after another', async (t) => {
  // Busy at every reading the run takes (the fifth, 2%, comes too late to count).
  const nodeShapes = [{ cpuPct: [95, 93, 90, 91, 2] }, { cpuPct: 1 }]
  const double = await startCrateTestCluster({ nodeShapes }, { nodes: 2 })
  t.after(() => double.stop())
  const client = clientTo(double.port, { timeoutMs: 2000 })
  t.after(() => client.close())
  const shape = await clusterShape(client, undefined, { sleep: async () => {} })
  assert.deepEqual(shape.node_list.map((n) => n.cpu_pct_before_run), [90, 1])
  assert.equal(shape.cpu_read_over_s, 3)
  assert.equal(double.statementsMatching(/process\['cpu'\]\['percent'\] AS cpu_pct FROM sys\.nodes$/).length, 3)
})
