'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { ClusterCpu, parseCpuAnswer, cgroupSeconds, samplingError, CPU_SQL } = require('../../lib/run/cluster-cpu')
const { ClusterMonitor } = require('../../lib/cluster/monitor')
const { cpuCostOf } = require('../../lib/results/cpu-cost')
const { clusterCpuLine } = require('../../lib/reports/text')

// sys.nodes as CrateDB 6.4.3 answers CPU_SQL (captured on this machine: a node in the root group '/').
const captured = (usage, group = '/', name = 'n1', cores = 2) => ({ name, cores,
  cpuacct: { control_group: group, usage_nanos: usage } })
const answer = (...nodes) => ({ cols: ['name', 'cores', 'cpuacct'],
  rows: nodes.map((n) => [n.name, n.cores, n.cpuacct]), rowcount: nodes.length })

/** A client that answers CPU_SQL with the answers given, in turn. */
const clientOf = (...answers) => ({ asked: 0,
  sql (stmt) {
    assert.equal(stmt, CPU_SQL)
    return Promise.resolve(answers[this.asked++])
  } })

test('cgroup: nodes each in a control group of their own, their CPU time between the window\'s ends', async () => {
  const client = clientOf(answer(captured(10e9, '/docker/a', 'n1'), captured(4e9, '/docker/b', 'n2')),
    answer(captured(16e9, '/docker/a', 'n1'), captured(7.5e9, '/docker/b', 'n2')))
  const cpu = new ClusterCpu({ client })
  await cpu.markMeasured()
  const measured = await cpu.finish(null)
  assert.deepEqual(measured, { source: 'cgroup', source_text: 'each node\'s control group (sys.nodes ' +
    'os[\'cgroup\'][\'cpuacct\'])', cpu_s: 9.5, cores: 4 })
  const cost = cpuCostOf(measured, 190_000, 'rows')
  assert.equal(cost.ms_per_1000, 50)
  assert.equal(cost.bound_per_sec, 80_000, '4 cores / 50 µs a row')
  assert.equal(clusterCpuLine(cost), 'cluster CPU: 50 ms per 1,000 rows over the measured window (from each node\'s ' +
    'control group (sys.nodes os[\'cgroup\'][\'cpuacct\'])); 4 cores bound the rate at 80,000 rows/s')
})

test('CrateDB 6.4.3\'s own answer (captured): its cores and CPU time; a node in the root group is no cgroup figure',
  () => {
    const captured = JSON.parse(require('node:fs').readFileSync(require('node:path').join(__dirname, '..', 'fixtures',
      '88-sys-nodes-cpu.json'), 'utf8'))
    assert.equal(captured.request.body.stmt, CPU_SQL)
    const nodes = parseCpuAnswer(captured.response.body)
    const [node] = nodes.values()
    assert.deepEqual([nodes.size, node.cores, node.group, node.usage_ns > 0], [1, 2, '/', true])
    assert.equal(cgroupSeconds(nodes, nodes), null)
  })

test('no own control group (the root group, or one group for two nodes): not a cgroup figure', () => {
  const at = (usage, group, name) => parseCpuAnswer(answer(captured(usage, group, name)))
  assert.equal(cgroupSeconds(at(1e9, '/'), at(3e9, '/')), null, 'the root group is the whole machine\'s')
  const both = (usage) => parseCpuAnswer(answer(captured(usage, '/shared', 'n1'), captured(usage, '/shared', 'n2')))
  assert.equal(cgroupSeconds(both(1e9), both(2e9)), null, 'two nodes in one group would be counted twice')
  assert.equal(cgroupSeconds(at(1e9, '/a', 'n1'), at(2.5e9, '/a', 'n1')), 1.5)
  assert.equal(cgroupSeconds(at(2e9, '/a', 'n1'), at(1e9, '/a', 'n1')), null, 'a counter that went back: restarted')
})

test('process.cpu.percent: each node\'s share integrated over the window, times its cores', async () => {
  let clock = 0
  const samples = [[10, 10], [60, 40], [50, 50], [80, 20]]
  let n = 0
  const monitorClient = { sql: () => {
    const [a, b] = samples[n++]
    const row = (name, pct) => [name, {}, {}, { percent: pct }, {}, []]
    return Promise.resolve({ cols: ['name', 'load', 'heap', 'process_cpu', 'os_cpu', 'thread_pools'],
      rows: [row('n1', a), row('n2', b)] })
  } }
  const monitor = new ClusterMonitor({ client: monitorClient, intervalMs: 1000, now: () => clock,
    timers: { setInterval: () => ({}), clearInterval: () => {} } })
  await monitor.start()
  clock = 1000
  await monitor.sample()
  const cpu = new ClusterCpu({ monitor, now: () => clock, client: clientOf(answer(captured(0), { ...captured(0),
    name: 'n2' }), answer(captured(0), { ...captured(0), name: 'n2' })) })
  await cpu.markMeasured()
  clock = 3000
  await monitor.sample()
  clock = 4000
  await monitor.sample()
  // After the mark: 2 s at 50% + 50%, then 1 s at 80% + 20%, on nodes of 2 cores: (100 × 2 + 100 × 1) / 100 × 2.
  const measured = await cpu.finish(null)
  assert.deepEqual([measured.source, measured.cpu_s, measured.cores], ['process.cpu.percent', 6, 4])
  // Its sampling error: a 1-s interval at each end of the 3-s window (2/3 of its 6 s), whole percents of 4 cores
  // over 3 s (0.06 s): ±(4 + 0.06) / 6.
  assert.deepEqual([measured.sampling_error_pct, measured.sampled_every_s, measured.window_s], [67.7, 1, 3])
})

test('a sampled CPU\'s error: the window\'s ends shrink against a long window, whole percents do not', () => {
  assert.deepEqual(samplingError(60, [4, 4], { intervalS: 2, windowS: 60 }), { sampling_error_pct: 10.7,
    sampled_every_s: 2, window_s: 60 }, 'ends 2 × 2/60 of 60 s = 4 s, rounding 0.005 × 8 × 60 = 2.4 s: 6.4 of 60')
  assert.equal(samplingError(10, [2], { intervalS: 5, windowS: 4 }).sampling_error_pct, 200.4,
    'a window shorter than an interval: each end up to the whole window')
  assert.deepEqual(samplingError(0, [2], { intervalS: 1, windowS: 10 }), {}, 'no CPU: no error to say')
  // A cost sampled that coarsely bounds no rate; one sampled finely does.
  const sampled = (windowS) => cpuCostOf({ source: 'process.cpu.percent', cpu_s: 60, cores: 8,
    ...samplingError(60, [4, 4], { intervalS: 2, windowS }) }, 60_000, 'rows')
  assert.deepEqual([sampled(60).sampling_error_pct, sampled(60).bound_per_sec], [10.7, 8000])
  assert.deepEqual([sampled(6).sampling_error_pct, sampled(6).bound_per_sec], [67.1, null])
})

test('proc wins where the nodes run here; nothing is measured before the window starts', async () => {
  const local = new ClusterCpu({ share: { clusterKnown: true, clusterPids: 2, markMeasured () { this.marked = true } },
    client: { sql: () => assert.fail('sys.nodes is not asked when /proc tells') } })
  assert.equal(await local.finish({ cluster_cpu_s: 3, cores: 2 }), null, 'not marked: no window')
  await local.markMeasured()
  assert.equal(local.share.marked, true)
  assert.deepEqual(await local.finish({ cluster_cpu_s: 3, cores: 2 }), { source: 'proc',
    source_text: 'the nodes\' processes on this machine (/proc)', cpu_s: 3, cores: 2, jit_s: null })
  assert.equal(cpuCostOf({ cpu_s: 0, cores: 2 }, 100, 'rows'), null)
  assert.equal(cpuCostOf({ cpu_s: 1, cores: 2 }, 0, 'rows'), null)
})

test('the JIT compiler\'s share is left out of the cost per row, and said', async () => {
  const local = new ClusterCpu({ share: { clusterKnown: true, clusterPids: 1, markMeasured () {} } })
  await local.markMeasured()
  const measured = await local.finish({ cluster_cpu_s: 30, cluster_jit_s: 10, cores: 2 })
  assert.equal(measured.jit_s, 10)
  const cost = cpuCostOf(measured, 200_000, 'rows')
  // 20 s of the node's own work for 200,000 rows: 100 µs a row; 150 with the compiler's 10 s.
  assert.deepEqual([cost.ms_per_1000, cost.ms_per_1000_with_jit, cost.bound_per_sec], [100, 150, 20_000])
  assert.equal(clusterCpuLine(cost), 'cluster CPU: 100 ms per 1,000 rows over the measured window (from the nodes\' ' +
    'processes on this machine (/proc); the JIT compiler\'s 10 s left out, 150 ms with it); 2 cores bound the rate ' +
    'at 20,000 rows/s')
  // A compiler share that cannot be (all of the time, or less than none) is not taken.
  for (const jit of [30, -1]) {
    const whole = cpuCostOf({ ...measured, jit_s: jit }, 200_000, 'rows')
    assert.deepEqual([whole.ms_per_1000, whole.jit_s, whole.ms_per_1000_with_jit], [150, null, null])
  }
})
