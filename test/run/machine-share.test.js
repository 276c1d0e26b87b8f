'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { MachineShare, clusterProcessesOf, readMachine, readProcess } = require('../../lib/run/machine-share')
const { busyMachineLine, othersTook } = require('../../lib/reports/cluster-limits')
const { startedByStudy } = require('../../lib/run/started-cluster')

/** A machine of 2 cores whose ticks the test sets, and processes whose ticks it sets (undefined: gone). */
function fakeMachine () {
  const state = { total: 0, busy: 0, procs: {} }
  const timers = { setInterval: (fn) => { state.tick = fn; return {} }, clearInterval: () => {} }
  return {
    state,
    timers,
    machine: () => ({ total: state.total, busy: state.busy, cores: 2 }),
    process: (pid) => (pid in state.procs ? state.procs[pid] : null)
  }
}

test('what others took of the machine: its busy time less the run\'s processes and the cluster\'s nodes', () => {
  const m = fakeMachine()
  m.state.procs = { 10: 0, 11: 0, 20: 0 }
  let pids = { own: [10, 11], cluster: [20] }
  const share = new MachineShare({ pids: () => pids, timers: m.timers, machine: m.machine, process: m.process }).start()
  // A second: 200 ticks of machine (2 cores), 150 busy: the run 40, its node 60, others 50.
  Object.assign(m.state, { total: 200, busy: 150, procs: { 10: 30, 11: 10, 20: 60 } })
  m.state.tick()
  // Another: a worker ends (its ticks of this second are lost to the others), a new one starts.
  pids = { own: [10, 12], cluster: [20] }
  Object.assign(m.state, { total: 400, busy: 260, procs: { 10: 50, 12: 5, 20: 100 } })
  const summary = share.stop()
  // Busy 260 of 400; own 30 + 10 + 20 = 60; the node 100; others 100.
  assert.deepEqual(summary, { cores: 2, machine_pct: 65, own_pct: 15, cluster_pct: 25, others_pct: 25,
    cluster_known: true, busy_over_pct: 25, others_busy: false, cluster_processes: 1, cluster_cpu_s: 1,
    cluster_jit_s: null })
  assert.equal(othersTook({ machine: summary }), null, '25% is not more than 25%')
  const busier = { ...summary, others_pct: 38, others_busy: true }
  assert.match(busyMachineLine({ machine: busier }),
    /^other work took 38% of this machine's CPU during the load \(more /)
})

test('the cluster\'s CPU seconds count from the measured window\'s start (the warm-up\'s end), 100 ticks a second',
  () => {
  const m = fakeMachine()
  m.state.procs = { 20: 0, 21: 0 }
  const share = new MachineShare({ pids: () => ({ own: [], cluster: [20, 21] }), timers: m.timers,
    machine: m.machine, process: m.process }).start()
  // The warm-up: 70 ticks of the nodes, then the mark; the measured part: 150 + 100 more.
  Object.assign(m.state, { total: 200, busy: 100, procs: { 20: 40, 21: 30 } })
  share.markMeasured()
  Object.assign(m.state, { total: 400, busy: 300, procs: { 20: 190, 21: 130 } })
  assert.equal(share.stop().cluster_cpu_s, 2.5)
  // No cluster process known on this machine: no CPU figure, rather than 0.
  const remote = new MachineShare({ pids: () => ({ own: [], cluster: [] }), timers: m.timers, machine: m.machine,
    process: m.process }).start()
  Object.assign(m.state, { total: 600, busy: 400 })
  assert.equal(remote.stop().cluster_cpu_s, null)
})

test('the nodes\' JIT compiler threads: their ticks over the measured window, a thread that starts counted whole',
  () => {
  const m = fakeMachine()
  m.state.procs = { 20: 0 }
  let compiler = { 20: new Map([['20/31', 0], ['20/32', 0]]) }
  const share = new MachineShare({ pids: () => ({ own: [], cluster: [20] }), timers: m.timers, machine: m.machine,
    process: m.process, compiler: (pid) => compiler[pid] ?? null }).start()
  // The warm-up: the compilers take 50 of the node's 80 ticks; then the mark.
  Object.assign(m.state, { total: 200, busy: 100, procs: { 20: 80 } })
  compiler = { 20: new Map([['20/31', 30], ['20/32', 20]]) }
  share.markMeasured()
  // The measured part: thread 32 ends, 33 starts (its 15 ticks all after the mark), 31 takes 10 more.
  Object.assign(m.state, { total: 400, busy: 300, procs: { 20: 280 } })
  compiler = { 20: new Map([['20/31', 40], ['20/33', 15]]) }
  const summary = share.stop()
  assert.deepEqual([summary.cluster_cpu_s, summary.cluster_jit_s], [2, 0.25])
})

test('the JIT share unknown, never 0: no compiler thread seen, or a node\'s threads unreadable in a sample', () => {
  const m = fakeMachine()
  m.state.procs = { 20: 0 }
  const measure = (compiler) => {
    const share = new MachineShare({ pids: () => ({ own: [], cluster: [20] }), timers: m.timers, machine: m.machine,
      process: m.process, compiler }).start()
    m.state.total += 200
    m.state.procs[20] += 100
    m.state.tick()
    m.state.total += 200
    m.state.procs[20] += 100
    return share.stop()
  }
  assert.equal(measure(() => new Map()).cluster_jit_s, null, 'not a HotSpot JVM (a Node.js double)')
  let reads = 0
  const flaky = () => (++reads === 2 ? null : new Map([['20/31', reads * 10]]))
  assert.equal(measure(flaky).cluster_jit_s, null)
  assert.equal(measure(() => new Map([['20/31', 5]])).cluster_cpu_s, 2)
})

test('where the cluster\'s processes on this machine cannot be told, others are unknown, never guessed', () => {
  const m = fakeMachine()
  const share = new MachineShare({ pids: () => ({ own: [], cluster: null }), timers: m.timers, machine: m.machine,
    process: m.process }).start()
  Object.assign(m.state, { total: 200, busy: 180 })
  const summary = share.stop()
  assert.deepEqual([summary.others_pct, summary.cluster_known], [null, false])
  assert.equal(busyMachineLine({ machine: summary }), null)
  // No /proc (another system): nothing is measured.
  assert.equal(new MachineShare({ pids: () => ({ own: [], cluster: [] }), machine: () => null }).start().stop(), null)
})

test('the cluster\'s processes: the nodes the run or its study started, else who listens on a local host\'s port',
  () => {
  const hosts = (...list) => ({ connection: { hosts: list.map(([hostname, port]) => ({ hostname, port })) } })
  const holderPid = (port) => ({ 4200: 501, 4201: 502 })[port] ?? null
  const isLocal = (h) => h === '127.0.0.1' || h === 'localhost'
  const clusterPidsOf = (options, deps) => clusterProcessesOf(options, deps).pids
  const byStudy = (ports) => ({ ...hosts(['127.0.0.1', 4200]), startedCluster: startedByStudy({ nodes: 1, ports }) })
  assert.deepEqual(clusterPidsOf(byStudy([{ node: 'n1', pid: 7 }, { node: 'n2', pid: 8 }]), { holderPid, isLocal }),
    [7, 8])
  assert.deepEqual(clusterPidsOf(byStudy([{ node: 'n1' }]), { holderPid, isLocal }), [501],
    'a record that names no pid: who listens')
  assert.deepEqual(clusterPidsOf(hosts(['127.0.0.1', 4200], ['localhost', 4201], ['db.example', 4200]),
    { holderPid, isLocal }), [501, 502])
  assert.deepEqual(clusterPidsOf(hosts(['db.example', 4200]), { holderPid, isLocal }), [], 'every node elsewhere')
  assert.equal(clusterPidsOf(hosts(['127.0.0.1', 4299]), { holderPid, isLocal }), null, 'a local node not told')
  // A listener that is no CrateDB JVM (kubectl port-forward, ssh -L): its node is elsewhere, and it is named.
  const kindOf = (pid) => (pid === 501 ? { crate: true } : { crate: false, name: 'kubectl' })
  assert.deepEqual(clusterProcessesOf(hosts(['127.0.0.1', 4200], ['localhost', 4201]), { holderPid, isLocal, kindOf }),
    { pids: [501], forwarders: [{ host: 'localhost:4201', pid: 502, name: 'kubectl' }] })
  assert.deepEqual(clusterProcessesOf(hosts(['localhost', 4201]), { holderPid, isLocal, kindOf }).pids, [],
    'a forwarder alone: the nodes are not on this machine')
  assert.equal(clusterProcessesOf(hosts(['localhost', 4201]), { holderPid, isLocal, kindOf: () => null }).pids, null,
    'a listener /proc does not show')
})

test('/proc read as it is: the machine\'s ticks and a process\'s own', (t) => {
  const machine = readMachine()
  if (!machine) return t.skip('no /proc/stat on this system')
  assert.ok(machine.cores >= 1 && machine.total > machine.busy && machine.busy > 0)
  assert.ok(readProcess(process.pid) > 0)
  assert.equal(readProcess(2 ** 22 + 11), null)
})
