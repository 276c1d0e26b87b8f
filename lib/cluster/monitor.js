'use strict'

const { round, visible } = require('../base/format')

// Samples sys.nodes during a run: load, heap, CPU and the write and search thread pools. The
// pools' `rejected` counters are cumulative since each node started, so every figure we show is a
// delta from the node's first sample of this run.

const NODES_SQL =
  "SELECT name, load, heap, process['cpu'] AS process_cpu, os['cpu'] AS os_cpu, thread_pools FROM sys.nodes"
const POOLS = ['write', 'search']

/** A figure of a sys.nodes answer: a number of 0 or more, else null (CrateDB writes -1 where the OS hides a value). */
const knownFigure = (v) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : null)

/**
 * A share of a machine's CPU as a sys.nodes answer gives it: 0–100 %, else null (-1 where the OS hides it; a figure
 * past 100 is no measurement, and the monitor names its node).
 */
const percentFigure = (v) => (knownFigure(v) !== null && v <= 100 ? v : null)
const pastPercent = (v) => knownFigure(v) !== null && v > 100

/** One node's row of a sys.nodes answer, in the units we report. CrateDB writes -1 where the OS hides a value. */
function parseNode (row, cols) {
  const get = (name) => row[cols.indexOf(name)]
  const heap = get('heap') || {}
  const load = get('load') || {}
  const osCpu = get('os_cpu') || {}
  const processCpu = get('process_cpu') || {}
  const pools = {}
  for (const pool of get('thread_pools') || []) {
    if (POOLS.includes(pool.name)) {
      pools[pool.name] = { active: pool.active, queue: pool.queue, rejected: pool.rejected, completed: pool.completed }
    }
  }
  const impossible = [['process', processCpu.percent], ['os', osCpu.used]].filter(([, v]) => pastPercent(v))
  return {
    name: visible(get('name')),
    load1: knownFigure(load['1']),
    heapUsedPct: heap.max > 0 ? round((heap.used / heap.max) * 100, 1) : null,
    processCpuPct: percentFigure(processCpu.percent),
    osCpuPct: percentFigure(osCpu.used),
    impossibleCpu: impossible.length ? Object.fromEntries(impossible) : null,
    pools
  }
}

function parseNodesAnswer (answer) {
  if (!answer || !Array.isArray(answer.rows) || !Array.isArray(answer.cols)) {
    throw new Error('sys.nodes answer without rows')
  }
  const missing = ['name', 'thread_pools'].filter((c) => !answer.cols.includes(c))
  if (missing.length > 0) {
    throw new Error(`sys.nodes answer without the column${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`)
  }
  return answer.rows.map((row) => parseNode(row, answer.cols))
}

/**
 * Samples every `intervalMs` from start() to stop(), taking one more sample at stop() so the
 * rejections of the last seconds are counted. A failed sample is counted and shown, never fatal:
 * monitoring must not end a benchmark.
 */
class ClusterMonitor {
  constructor ({ client, intervalMs, now = Date.now, timers = { setInterval, clearInterval } }) {
    this.client = client
    this.timers = timers
    this.intervalMs = intervalMs
    this.now = now
    this.baseline = new Map()
    this.latest = new Map()
    this.peaks = new Map()
    this.samples = []
    // Each node's CPU share integrated over time (percent × seconds): a sample's share is of the time since the one
    // before it (process.cpu.percent is the node's recent CPU), so it weighs that long.
    this.cpuIntegral = new Map()
    this.sampledAt = new Map()
    this.failures = 0
    this.lastError = null
    // Nodes that reported a CPU share past 100%, with the highest they said: those figures were not recorded.
    this.impossibleCpu = new Map()
    this.startedAt = null
    this.timer = null
    this.inFlight = null
  }

  async start () {
    this.startedAt = this.now()
    await this.sample()
    this.timer = this.timers.setInterval(() => { if (!this.inFlight) this.sample() }, this.intervalMs)
    if (this.timer.unref) this.timer.unref()
  }

  async stop () {
    this.timers.clearInterval(this.timer)
    this.timer = null
    if (this.inFlight) await this.inFlight
    await this.sample()
  }

  sample () {
    this.inFlight = this.client.sql(NODES_SQL)
      .then((answer) => this.record(parseNodesAnswer(answer), this.now()))
      .catch((error) => {
        this.failures++
        this.lastError = error.message
      })
      .finally(() => { this.inFlight = null })
    return this.inFlight
  }

  record (nodes, at) {
    const sample = { t_s: round((at - this.startedAt) / 1000, 1), nodes: [] }
    for (const node of nodes) {
      if (!this.baseline.has(node.name)) this.baseline.set(node.name, node)
      if (node.impossibleCpu) {
        const said = Math.max(...Object.values(node.impossibleCpu))
        this.impossibleCpu.set(node.name, Math.max(said, this.impossibleCpu.get(node.name) ?? said))
      }
      const base = this.baseline.get(node.name)
      const entry = {
        name: node.name,
        load_1m: node.load1,
        heap_used_pct: node.heapUsedPct,
        process_cpu_pct: node.processCpuPct,
        os_cpu_pct: node.osCpuPct
      }
      for (const pool of POOLS) {
        const now = node.pools[pool]
        if (!now) continue
        const before = base.pools[pool] || now
        // A counter lower than its baseline means the node restarted: count from zero again.
        const rejected = now.rejected >= before.rejected ? now.rejected - before.rejected : now.rejected
        entry[pool] = { active: now.active, queue: now.queue, rejected_delta: rejected }
      }
      sample.nodes.push(entry)
      this.integrateCpu(node, at)
      this.latest.set(node.name, entry)
      this.trackPeaks(entry)
    }
    const previous = this.samples[this.samples.length - 1]
    if (previous && sameCoarseMinute(previous.t_s, sample.t_s)) foldSample(previous, sample)
    else this.samples.push(sample)
  }

  integrateCpu (node, at) {
    const before = this.sampledAt.get(node.name)
    this.sampledAt.set(node.name, at)
    if (before === undefined || node.processCpuPct === null) return
    const added = node.processCpuPct * ((at - before) / 1000)
    this.cpuIntegral.set(node.name, (this.cpuIntegral.get(node.name) ?? 0) + added)
  }

  /** Each node's CPU share integrated up to its latest sample (percent × seconds): Map(name → figure), a copy. */
  cpuPctSeconds () {
    return new Map([...this.sampledAt.keys()].map((name) => [name, this.cpuIntegral.get(name) ?? 0]))
  }

  trackPeaks (entry) {
    const peak = this.peaks.get(entry.name) || {
      load_1m: null,
      heap_used_pct: null,
      process_cpu_pct: null,
      os_cpu_pct: null,
      write_queue: null
    }
    const max = (a, b) => (b === null || b === undefined ? a : a === null ? b : Math.max(a, b))
    peak.load_1m = max(peak.load_1m, entry.load_1m)
    peak.heap_used_pct = max(peak.heap_used_pct, entry.heap_used_pct)
    peak.process_cpu_pct = max(peak.process_cpu_pct, entry.process_cpu_pct)
    peak.os_cpu_pct = max(peak.os_cpu_pct, entry.os_cpu_pct)
    peak.write_queue = max(peak.write_queue, entry.write ? entry.write.queue : null)
    this.peaks.set(entry.name, peak)
  }

  /** Rejections since the run started, over all nodes, per pool. */
  rejected (pool) {
    let sum = 0
    for (const entry of this.latest.values()) sum += entry[pool] ? entry[pool].rejected_delta : 0
    return sum
  }

  /** What goes into --json as `cluster`. */
  toJSON () {
    return {
      interval_ms: this.intervalMs,
      samples: this.samples,
      nodes: [...this.latest.keys()].map((name) => ({
        name,
        peak: this.peaks.get(name),
        write_rejected: this.latest.get(name).write ? this.latest.get(name).write.rejected_delta : null,
        search_rejected: this.latest.get(name).search ? this.latest.get(name).search.rejected_delta : null
      })),
      write_rejected: this.rejected('write'),
      search_rejected: this.rejected('search'),
      failed_samples: this.failures,
      last_sample_error: this.lastError,
      ...(this.impossibleCpu.size ? { impossible_cpu: [...this.impossibleCpu].map(([name, said]) => ({ name,
        said_pct: said })) } : {})
    }
  }
}

// After the first hour a minute's samples are one (their highest figures, the latest counts): a day-long run's samples
// stay a few thousand per node, as the timeline's intervals do.
const FINE_FOR_S = 3600
const COARSE_S = 60

function sameCoarseMinute (a, b) {
  return a >= FINE_FOR_S && b >= FINE_FOR_S && Math.floor(a / COARSE_S) === Math.floor(b / COARSE_S)
}

/** A later sample of the same minute into the minute's: highs kept, rejections (counted since the start) the latest. */
function foldSample (minute, sample) {
  minute.span_s = round(sample.t_s - minute.t_s, 1)
  const higher = (a, b) => (typeof a === 'number' && typeof b === 'number' ? Math.max(a, b) : b ?? a)
  for (const node of sample.nodes) {
    const kept = minute.nodes.find((n) => n.name === node.name)
    if (!kept) {
      minute.nodes.push(node)
      continue
    }
    for (const key of ['load_1m', 'heap_used_pct', 'process_cpu_pct', 'os_cpu_pct']) {
      kept[key] = higher(kept[key], node[key])
    }
    for (const pool of POOLS) {
      if (!node[pool]) continue
      const before = kept[pool] || node[pool]
      kept[pool] = { active: higher(before.active, node[pool].active), queue: higher(before.queue, node[pool].queue),
        rejected_delta: node[pool].rejected_delta }
    }
  }
}

module.exports = { ClusterMonitor, parseNodesAnswer, NODES_SQL, knownFigure, percentFigure }
