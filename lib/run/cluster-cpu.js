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
//   window: as fine as --monitor_interval.

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
  constructor ({ share = null, monitor = null, client = null }) {
    Object.assign(this, { share, monitor, client })
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
    return now.size ? sourced('process.cpu.percent', seconds, cores) : null
  }
}

const sourced = (source, cpuS, cores) => ({ source, source_text: SOURCE_TEXT[source], cpu_s: round(cpuS, 3),
  cores: cores ?? null })

module.exports = { ClusterCpu, parseCpuAnswer, cgroupSeconds, CPU_SQL }
