'use strict'

const fs = require('node:fs')
const { readCompilerTicks, compilerTicksBetween } = require('./jit-threads')

// What the rest of this machine took while the load ran. The machine's CPU time (/proc/stat) less the time of the
// run's own processes (its master and workers) and of the cluster's nodes that run here (/proc/PID/stat): what other
// tenants took. A node's load average counts its own threads too (three nodes on two cores load them to 12 by
// themselves), so it cannot tell a busy machine from a busy cluster; this can. Sampled every second over the load:
// a process that ends between two samples leaves its last second to the others (a worker's last second: little).

const SAMPLE_MS = 1000
// /proc/PID/stat's CPU times are in USER_HZ, 100 a second on every Linux ABI (sysconf(_SC_CLK_TCK)).
const USER_HZ = 100
// Others taking more than this share of the machine's CPU, on average over the load, make a run busy.
const DEFAULT_BUSY_OTHERS_PCT = 25

/** /proc/stat's machine line: { total, busy, cores } in clock ticks, or null where there is none. */
function readMachine (procRoot = '/proc') {
  let text
  try {
    text = fs.readFileSync(`${procRoot}/stat`, 'utf8')
  } catch {
    return null
  }
  const line = text.split('\n').find((l) => l.startsWith('cpu '))
  if (!line) return null
  // user nice system idle iowait irq softirq steal (guest and guest_nice are within user and nice).
  const ticks = line.trim().split(/\s+/).slice(1, 9).map(Number)
  if (ticks.length < 8 || ticks.some((t) => !Number.isFinite(t))) return null
  const total = ticks.reduce((a, b) => a + b, 0)
  const cores = text.split('\n').filter((l) => /^cpu[0-9]+ /.test(l)).length
  return { total, busy: total - ticks[3] - ticks[4], cores }
}

/** A process's CPU time in clock ticks (utime + stime of /proc/PID/stat), or null when it is gone or unreadable. */
function readProcess (pid, procRoot = '/proc') {
  try {
    const stat = fs.readFileSync(`${procRoot}/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    const ticks = Number(fields[11]) + Number(fields[12])
    return Number.isFinite(ticks) ? ticks : null
  } catch {
    return null
  }
}

const round1 = (x) => Math.round(x * 10) / 10

/**
 * Samples the machine and the processes `pids()` names ({ own, cluster }: pids, or cluster null when the cluster's
 * processes on this machine cannot be told), from start() to stop(), which returns the summary: { cores, machine_pct,
 * own_pct, cluster_pct, others_pct, cluster_known, busy_over_pct, others_busy }, each _pct a share of the whole
 * machine's CPU, others_busy whether others took more than `busyOverPct` of it; null where /proc says nothing.
 */
class MachineShare {
  constructor ({ pids, procRoot = '/proc', everyMs = SAMPLE_MS, timers = { setInterval, clearInterval },
    machine = () => readMachine(procRoot), process: proc = (pid) => readProcess(pid, procRoot),
    compiler = (pid) => readCompilerTicks(pid, procRoot), busyOverPct = DEFAULT_BUSY_OTHERS_PCT, forwarders = [] }) {
    Object.assign(this, { pids, everyMs, timers, machine, proc, compiler, busyOverPct, forwarders })
    this.last = null
    this.timer = null
    this.sums = { total: 0, busy: 0, own: 0, cluster: 0, jit: 0 }
    this.jitKnown = true
    this.compilerSeen = false
    this.clusterKnown = true
    this.clusterPids = 0
    this.measuredFrom = null
    this.cores = null
  }

  snapshot () {
    const machine = this.machine()
    if (!machine) return null
    const { own, cluster } = this.pids()
    if (cluster === null) this.clusterKnown = false
    else this.clusterPids = cluster.length
    const ticksOf = (list) => new Map((list || []).map((pid) => [pid, this.proc(pid)]).filter(([, t]) => t !== null))
    return { machine, own: ticksOf(own), cluster: ticksOf(cluster), compiler: this.compilerTicks(cluster) }
  }

  /** The cluster's compiler threads' ticks (lib/run/jit-threads.js), or null when a node's threads cannot be read. */
  compilerTicks (cluster) {
    const all = new Map()
    for (const pid of cluster || []) {
      const ticks = this.compiler(pid)
      if (!ticks) return null
      for (const [thread, used] of ticks) all.set(thread, used)
    }
    if (all.size > 0) this.compilerSeen = true
    return all
  }

  start () {
    this.last = this.snapshot()
    if (!this.last) return this
    this.cores = this.last.machine.cores
    this.timer = this.timers.setInterval(() => this.sample(), this.everyMs)
    if (this.timer && this.timer.unref) this.timer.unref()
    return this
  }

  sample () {
    const now = this.snapshot()
    if (!now || !this.last) return
    const delta = (from, to) => {
      let sum = 0
      for (const [pid, ticks] of to) if (from.has(pid)) sum += Math.max(0, ticks - from.get(pid))
      return sum
    }
    this.sums.total += now.machine.total - this.last.machine.total
    this.sums.busy += now.machine.busy - this.last.machine.busy
    this.sums.own += delta(this.last.own, now.own)
    this.sums.cluster += delta(this.last.cluster, now.cluster)
    if (this.last.compiler && now.compiler) this.sums.jit += compilerTicksBetween(this.last.compiler, now.compiler)
    else this.jitKnown = false
    this.last = now
  }

  /** The start of the measured window (the warm-up's end): the cluster's CPU time is counted from here too. */
  markMeasured () {
    if (!this.last) return
    this.sample()
    this.measuredFrom = { cluster: this.sums.cluster, jit: this.sums.jit }
    this.jitKnown = true
  }

  stop () {
    if (this.timer) this.timers.clearInterval(this.timer)
    this.timer = null
    if (!this.last) return null
    this.sample()
    const { total, busy, own, cluster, jit } = this.sums
    if (!(total > 0)) return null
    const pct = (ticks) => round1((100 * ticks) / total)
    const othersPct = this.clusterKnown ? pct(Math.max(0, busy - own - cluster)) : null
    const from = this.measuredFrom ?? { cluster: 0, jit: 0 }
    const clusterCpuKnown = this.clusterKnown && this.clusterPids > 0
    return { cores: this.cores, machine_pct: pct(busy), own_pct: pct(own), cluster_pct: pct(cluster),
      others_pct: othersPct, cluster_known: this.clusterKnown, busy_over_pct: this.busyOverPct,
      // The cluster's processes counted here; 0: its nodes are not on this machine (forwarded ports named).
      cluster_processes: this.clusterKnown ? this.clusterPids : null,
      ...(this.forwarders.length ? { forwarders: this.forwarders } : {}),
      others_busy: othersPct !== null && othersPct > this.busyOverPct,
      // The cluster's own CPU seconds over the measured window (utime + stime of its processes, /proc's ticks of
      // USER_HZ, 100 a second on Linux): the cost per row that the machine's other tenants do not move.
      cluster_cpu_s: clusterCpuKnown ? (cluster - from.cluster) / USER_HZ : null,
      // Of which the nodes' JIT compiler threads (lib/run/jit-threads.js), where every sample could read them.
      // None seen (not a HotSpot JVM, or threads hidden): unknown, not 0.
      cluster_jit_s: clusterCpuKnown && this.jitKnown && this.compilerSeen ? (jit - from.jit) / USER_HZ : null }
  }
}

/**
 * The processes of the cluster under test that run on this machine: the nodes the run (or its study) started, by
 * their pids; else, for hosts of this machine, whoever listens on their ports (/proc) when it is a CrateDB JVM. A
 * listener that is not (kubectl port-forward, ssh -L) forwards to a node elsewhere: its host is named in
 * `forwarders` and its CPU is other work, not the cluster's. `pids` is null where a local listener cannot be told
 * (another user's process, read by another user); [] when every node is elsewhere.
 * @returns {{ pids: number[]|null, forwarders: { host: string, pid: number, name: string }[] }}
 */
function clusterProcessesOf (options, { holderPid, isLocal, kindOf = () => ({ crate: true }) }) {
  const started = options.startedCluster
  if (started && started.pids) return { pids: started.pids, forwarders: [] }
  const pids = []
  const forwarders = []
  let unknown = false
  for (const host of options.connection.hosts.filter((h) => isLocal(h.hostname))) {
    const pid = holderPid(host.port)
    const kind = pid === null ? null : kindOf(pid)
    if (kind === null) unknown = true
    else if (kind.crate) pids.push(pid)
    else forwarders.push({ host: `${host.hostname}:${host.port}`, pid, name: kind.name })
  }
  return { pids: unknown ? null : [...new Set(pids)], forwarders }
}

module.exports = { MachineShare, readMachine, readProcess, clusterProcessesOf, DEFAULT_BUSY_OTHERS_PCT }
