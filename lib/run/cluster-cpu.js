'use strict'

const { round } = require('../base/format')

// What the cluster spent of CPU over the measured window (from the warm-up's end to the last answer): a cost per row
// that the machine's other tenants move far less than the rate (they take the cores' time, not the work a row needs),
// and by the operational laws a bound on the rate (rate ≤ cores / cost). Three sources, the first one at hand:
// - proc: the nodes' processes on this machine (/proc/PID/stat, lib/run/machine-share.js): exact, and of it the JIT
//   compiler's threads (jit_s, lib/run/jit-threads.js), which the cost per row leaves out;
// - cgroup: each node in a control group of its own (a container), sys.nodes' os['cgroup']['cpuacct'] read at the
//   window's two ends: exact, for a cluster elsewhere;
// - process.cpu.percent: the monitor's samples of each node's recent CPU share, times its cores, integrated over the
//   window: as fine as --monitor_interval, and said with its sampling error (samplingError): up to a sample interval
//   of CPU at each end of the window, and CrateDB's whole percents (±0.5 of a node's cores a sample).

const CPU_SQL = "SELECT name, os_info['available_processors'] AS cores, os['cgroup']['cpuacct'] AS cpuacct " +
  'FROM sys.nodes'

const SOURCE_TEXT = {
  proc: 'the nodes\' processes on this machine (/proc)',
  cgroup: 'each node\'s control group (sys.nodes os[\'cgroup\'][\'cpuacct\'])',
  'process.cpu.percent': 'sys.nodes process[\'cpu\'][\'percent\'] samples, integrated'
}

/** Each node's cores and control group CPU time: Map(name → { cores, group, usage_ns }); figures null where unknown. */
function parseCpuAnswer (answer) {
  if (!answer || !Array.isArray(answer.rows) || !Array.isArray(answer.cols)) return null
  const at = (name) => answer.cols.indexOf(name)
  const nodes = new Map()
  for (const row of answer.rows) {
    const cpuacct = row[at('cpuacct')] || {}
    const usage = Number(cpuacct.usage_nanos)
    nodes.set(row[at('name')], {
      cores: Number.isInteger(row[at('cores')]) && row[at('cores')] > 0 ? row[at('cores')] : null,
      group: typeof cpuacct.control_group === 'string' ? cpuacct.control_group : null,
      usage_ns: Number.isFinite(usage) && usage >= 0 ? usage : null
    })
  }
  return nodes
}

/**
 * The CPU seconds of nodes that each have a control group of their own, between two answers; null where one does
 * not (the root group '/' is the whole machine's, and two nodes in one group would count it twice).
 */
function cgroupSeconds (from, to) {
  if (!from || !to || from.size === 0 || from.size !== to.size) return null
  const groups = [...to.values()].map((n) => n.group)
  if (groups.some((g) => !g || g === '/') || new Set(groups).size !== groups.length) return null
  let ns = 0
  for (const [name, end] of to) {
    const start = from.get(name)
    if (!start || start.group !== end.group || start.usage_ns === null || end.usage_ns === null) return null
    if (end.usage_ns < start.usage_ns) return null
    ns += end.usage_ns - start.usage_ns
  }
  return ns / 1e9
}

const coresOf = (nodes) => (nodes && [...nodes.values()].every((n) => n.cores !== null)
  ? [...nodes.values()].reduce((a, n) => a + n.cores, 0) : null)

/**
 * The measured window's cluster CPU, from `share` (MachineShare), the monitor (its integrated CPU shares) and a
 * `client` to ask sys.nodes. markMeasured() at the warm-up's end, finish(machine) after the last answer, with the
 * monitor's last sample taken: { source, source_text, cpu_s, cores } or null.
 */
class ClusterCpu {
  constructor ({ share = null, monitor = null, client = null, now = Date.now }) {
    Object.assign(this, { share, monitor, client, now })
    this.markedAt = null
    this.marked = false
    this.marking = null
    this.from = null
    this.monitorFrom = null
  }

  async query () {
    if (!this.client) return null
    try {
      return parseCpuAnswer(await this.client.sql(CPU_SQL))
    } catch {
      return null
    }
  }

  /** Whether /proc will tell: then sys.nodes is not asked at all. */
  get local () {
    return Boolean(this.share && this.share.clusterKnown && this.share.clusterPids > 0)
  }

  markMeasured () {
    this.marked = true
    this.markedAt = this.now()
    if (this.share) this.share.markMeasured()
    if (this.monitor) this.monitorFrom = this.monitor.cpuPctSeconds()
    this.marking = this.local ? Promise.resolve() : this.query().then((nodes) => { this.from = nodes })
    return this.marking
  }

  async finish (machine) {
    if (!this.marked) return null
    await this.marking
    if (machine && typeof machine.cluster_cpu_s === 'number') {
      return { ...sourced('proc', machine.cluster_cpu_s, machine.cores),
        jit_s: typeof machine.cluster_jit_s === 'number' ? round(machine.cluster_jit_s, 3) : null }
    }
    const to = await this.query()
    const cores = coresOf(to)
    const cgroup = cgroupSeconds(this.from, to)
    if (cgroup !== null) return sourced('cgroup', cgroup, cores)
    if (!this.monitor || !this.monitorFrom || !to) return null
    const now = this.monitor.cpuPctSeconds()
    let seconds = 0
    for (const [name, pctS] of now) {
      const node = to.get(name)
      if (!node || node.cores === null) return null
      seconds += ((pctS - (this.monitorFrom.get(name) ?? 0)) / 100) * node.cores
    }
    if (!now.size) return null
    const nodeCores = [...now.keys()].map((name) => to.get(name).cores)
    return { ...sourced('process.cpu.percent', seconds, cores), ...samplingError(seconds, nodeCores, {
      intervalS: this.monitor.intervalMs / 1000, windowS: (this.now() - this.markedAt) / 1000 }) }
  }
}

/**
 * How far CPU integrated from samples may be from the CPU spent (relative, ±%): the window's two ends, each up to a
 * sample interval of the window's mean CPU (a sample's share is of the time since the one before it, which the mark
 * and the end cut), and whole percents (±0.5% of each node's cores, a sample). A bound, not a spread: a short window
 * sampled coarsely is said to be so. { sampling_error_pct, sampled_every_s, window_s }.
 */
function samplingError (cpuS, nodeCores, { intervalS, windowS }) {
  if (!(cpuS > 0) || !(windowS > 0) || !(intervalS > 0)) return {}
  const ends = 2 * Math.min(1, intervalS / windowS) * cpuS
  const rounding = 0.005 * nodeCores.reduce((a, c) => a + c, 0) * windowS
  return { sampling_error_pct: round((100 * (ends + rounding)) / cpuS, 1), sampled_every_s: round(intervalS, 3),
    window_s: round(windowS, 1) }
}

const sourced = (source, cpuS, cores) => ({ source, source_text: SOURCE_TEXT[source], cpu_s: round(cpuS, 3),
  cores: cores ?? null })

module.exports = { ClusterCpu, parseCpuAnswer, cgroupSeconds, samplingError, CPU_SQL }
