'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { ClusterMonitor, parseNodesAnswer, NODES_SQL } = require('../../lib/cluster/monitor')
const { fixture } = require('../helpers/crate-test-double')

const BEFORE = fixture('56-sys-nodes-before-load')
const AFTER = fixture('57-sys-nodes-after-rejections')

test('the statement is the captured one, and its answer parses into our units', () => {
  assert.equal(NODES_SQL, BEFORE.request.body.stmt)
  const [node] = parseNodesAnswer(AFTER.response.body)
  assert.equal(node.name, 'rej')
  assert.equal(node.heapUsedPct, 52.6, '564258144 of 1073741824 bytes')
  assert.equal(node.processCpuPct, 81)
  assert.equal(node.osCpuPct, null, 'the capture has os cpu -1: hidden by the OS, never shown as -1')
  assert.equal(node.load1, 0.79)
  assert.deepEqual(node.pools.write, { active: 0, queue: 0, rejected: 1855, completed: 48 })
  assert.throws(() => parseNodesAnswer({ error: 'x' }), /without rows/)
  assert.throws(() => parseNodesAnswer({ cols: ['1'], rows: [[1]] }), /without the columns name, thread_pools/)
})

/** A client that answers sys.nodes with the given bodies in turn (the last one repeats). */
function scriptedClient (bodies) {
  let n = 0
  return { sql: async () => bodies[Math.min(n++, bodies.length - 1)] }
}

test('rejections are deltas from the first sample, per node and pool', async () => {
  let clock = 1000
  const monitor = new ClusterMonitor({
    client: scriptedClient([BEFORE.response.body, AFTER.response.body]),
    intervalMs: 60_000,
    now: () => clock
  })
  await monitor.start()
  assert.equal(monitor.rejected('write'), 0)
  clock += 4000
  await monitor.stop()
  const json = monitor.toJSON()
  assert.equal(json.write_rejected, 1855)
  assert.equal(json.search_rejected, 0)
  assert.deepEqual(json.samples.map((s) => s.t_s), [0, 4])
  assert.deepEqual(json.samples[1].nodes[0].write, { active: 0, queue: 0, rejected_delta: 1855 })
  assert.deepEqual(json.nodes, [{ name: 'rej', peak: { load_1m: 0.79, heap_used_pct: 52.6, process_cpu_pct: 81,
    os_cpu_pct: null, write_queue: 0 }, write_rejected: 1855, search_rejected: 0 }])
})

test('a counter that starts before this run does not count; a node restart counts from zero', async () => {
  // Start from the "after" answer: its 1855 rejections happened before the run.
  const restarted = JSON.parse(JSON.stringify(AFTER.response.body))
  restarted.rows[0][5].find((p) => p.name === 'write').rejected = 7
  const monitor = new ClusterMonitor({
    client: scriptedClient([AFTER.response.body, AFTER.response.body, restarted]),
    intervalMs: 60_000
  })
  await monitor.start()
  await monitor.sample()
  assert.equal(monitor.rejected('write'), 0)
  await monitor.stop()
  assert.equal(monitor.rejected('write'), 7)
})

test('a failed sample is counted and shown, never thrown', async () => {
  const refusing = { sql: async () => { throw new Error('permission denied for sys.nodes') } }
  const monitor = new ClusterMonitor({ client: refusing, intervalMs: 60_000 })
  await monitor.start()
  await monitor.stop()
  const json = monitor.toJSON()
  assert.equal(json.failed_samples, 2)
  assert.equal(json.last_sample_error, 'permission denied for sys.nodes')
  assert.deepEqual(json.samples, [])
})

test('samples at every tick of its interval, skips a tick while a sample is in flight, and once more at stop',
  async () => {
  let calls = 0
  let answer = null
  const client = {
    sql: () => {
      calls++
      return new Promise((resolve) => {
        answer = () => resolve(BEFORE.response.body)
      })
    }
  }
  const ticks = []
  const timers = { setInterval: (fn, ms) => { ticks.push({ fn, ms }); return 1 }, clearInterval: () => {} }
  const monitor = new ClusterMonitor({ client, intervalMs: 20, timers })
  const started = monitor.start()
  answer()
  await started
  assert.deepEqual(ticks.map((t) => t.ms), [20])
  for (let i = 0; i < 5; i++) {
    ticks[0].fn()
    ticks[0].fn()
    answer()
    await monitor.inFlight
  }
  const stopped = monitor.stop()
  await Promise.resolve()
  answer()
  await stopped
  assert.equal(calls, 7,
    'the baseline, five ticks (the second tick of each pair found a sample in flight), the final one')
  assert.equal(monitor.toJSON().samples.length, 7)
})

test('after the first hour a minute\'s samples are one: its highest figures, the latest rejections', async () => {
  let clock = 0
  const monitor = new ClusterMonitor({
    client: scriptedClient([BEFORE.response.body, BEFORE.response.body, AFTER.response.body, AFTER.response.body,
      BEFORE.response.body]),
    intervalMs: 5000,
    now: () => clock
  })
  monitor.startedAt = 0
  for (const t of [3590, 3600, 3630, 3655, 3660]) {
    clock = t * 1000
    await monitor.sample()
  }
  assert.deepEqual(monitor.samples.map((s) => [s.t_s, s.span_s]), [[3590, undefined], [3600, 55], [3660, undefined]])
  const [node] = monitor.samples[1].nodes
  assert.equal(node.process_cpu_pct, 81, 'the busiest moment of the minute')
  assert.equal(node.write.rejected_delta, 1855, 'rejections counted since the start: the minute\'s latest')
  // A day at one sample every 5 s: 720 for the first hour, then one a minute.
  const day = new ClusterMonitor({ client: scriptedClient([BEFORE.response.body]), intervalMs: 5000, now: () => clock })
  day.startedAt = 0
  for (let t = 0; t < 86_400; t += 5) day.record(parseNodesAnswer(BEFORE.response.body), t * 1000)
  assert.equal(day.samples.length, 720 + 1380)
})

test('a node that lies (a CPU share past 100%, escapes in its name) records no CPU figure and is named, its name ' +
  'shown without its escapes', async () => {
  const { clusterSection } = require('../../lib/reports/cluster-section')
  const lying = JSON.parse(JSON.stringify(AFTER.response.body))
  lying.rows[0][0] = 'rej\u001b]0;owned\u0007'
  lying.rows[0][3].percent = 1e7
  let clock = 0
  const monitor = new ClusterMonitor({ client: scriptedClient([BEFORE.response.body, lying, lying]),
    intervalMs: 60_000, now: () => clock })
  await monitor.start()
  clock += 2000
  await monitor.sample()
  clock += 2000
  await monitor.stop()
  const json = monitor.toJSON()
  const liar = json.nodes.find((n) => n.name.startsWith('rej\\u001b'))
  assert.equal(liar.name, 'rej\\u001b]0;owned\\u0007')
  assert.equal(liar.peak.process_cpu_pct, null, 'no busiest CPU of 10,000,000%')
  assert.deepEqual(json.impossible_cpu, [{ name: 'rej\\u001b]0;owned\\u0007', said_pct: 1e7 }])
  assert.equal(monitor.cpuPctSeconds().get(liar.name), 0, 'nothing integrated from it')
  const lines = clusterSection(json, 0).join('\n')
  assert.match(lines, /^warning: rej\\u001b\]0;owned\\u0007 reported a CPU share of 10,000,000% \(a share of a /m)
  assert.equal(lines.includes('\u001b'), false)
})
