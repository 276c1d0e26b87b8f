'use strict'

const { fmt } = require('../base/format')
const { isBusy } = require('../cluster/idle-cpu')

// What the cluster's own samples say about a run: whether the cluster was the limit of a load it could not serve
// (its write queue growing, writes rejected), and whether its machines ran more than this load (a load average far
// above their cores, or a node's CPU busy before the run made a table or sent a row): then the figures are not the
// cluster's alone.

// A write queue this long that is still at its peak at the end of the run is growing, not a burst.
const GROWING_QUEUE_MIN = 100
const MIN_QUEUE_SAMPLES = 3

/** Nodes whose write queue kept growing: at least doubled from the first sample, and longest in the last third. */
function growingWriteQueues (samples) {
  const byNode = new Map()
  for (const sample of samples) {
    for (const n of sample.nodes || []) {
      if (!n.write || typeof n.write.queue !== 'number') continue
      if (!byNode.has(n.name)) byNode.set(n.name, [])
      byNode.get(n.name).push(n.write.queue)
    }
  }
  const growing = []
  for (const [node, queues] of byNode) {
    if (queues.length < MIN_QUEUE_SAMPLES) continue
    const from = queues[0]
    const to = queues[queues.length - 1]
    const peakAt = queues.lastIndexOf(queues.reduce((max, q) => Math.max(max, q), 0))
    if (to >= GROWING_QUEUE_MIN && to >= 2 * from && peakAt >= (queues.length * 2) / 3) growing.push({ node, from, to })
  }
  return growing
}

// A node whose 1-minute load is this many times its cores ran far more than CrateDB serving this load.
const BUSY_LOAD_PER_CORE = 4

/** The cores of node `name` from the result's cluster shape, or null. */
function coresOf (result, name) {
  const shape = result.environment && result.environment.cluster
  if (!shape) return null
  const listed = Array.isArray(shape.node_list) ? shape.node_list.find((n) => n.name === name) : null
  if (listed && typeof listed.cores === 'number' && listed.cores > 0) return listed.cores
  return typeof shape.cores_per_node === 'number' && shape.cores_per_node > 0 ? shape.cores_per_node : null
}

/** How many nodes of the cluster share the machine of node `name` (1 where the shape does not say). */
function nodesOnMachineOf (result, name) {
  const shape = result.environment && result.environment.cluster
  const list = shape && Array.isArray(shape.node_list) ? shape.node_list : []
  const node = list.find((n) => n.name === name)
  if (!node || !node.hostname) return 1
  return Math.max(1, list.filter((n) => n.hostname === node.hostname).length)
}

/**
 * Nodes whose peak 1-minute load was far above their cores: [{ node, load, cores }]. Nodes that share a machine each
 * bring their own load to its average: the bound grows with them (three nodes on 2 cores load it to 12 by themselves).
 */
function busyNodes (result) {
  const nodes = (result.cluster && Array.isArray(result.cluster.nodes)) ? result.cluster.nodes : []
  return nodes.map((n) => ({ node: n.name, load: n.peak ? n.peak.load_1m : null, cores: coresOf(result, n.name),
    sharing: nodesOnMachineOf(result, n.name) }))
    .filter((n) => typeof n.load === 'number' && n.cores !== null &&
      n.load > n.cores * BUSY_LOAD_PER_CORE * n.sharing)
}

/**
 * Nodes busy before the run began: their CPU when the run read the cluster's shape, before it made a table or sent
 * anything (another client's work, or the merges of an earlier load), the lowest of readings a second apart over
 * `overS` seconds (cluster/idle-cpu.js): [{ node, cpu, overS }]. Not the monitor's first sample: that one follows the
 * run's own DDL (a CREATE TABLE of 12 shards kept a 6.4.3 node at 34–48%).
 */
function busyBeforeLoad (result) {
  const shape = result.environment && result.environment.cluster
  const nodes = shape && Array.isArray(shape.node_list) ? shape.node_list : []
  const overS = shape && shape.cpu_read_over_s > 0 ? shape.cpu_read_over_s : 0
  return nodes.filter((n) => isBusy(n.cpu_pct_before_run))
    .map((n) => ({ node: n.name, cpu: n.cpu_pct_before_run, overS }))
}

/**
 * What others took of the machine the run and its nodes ran on, when more than the run allowed them (its
 * busy_over_pct, run/machine-share.js): the share, or null.
 */
function othersTook (result) {
  const m = result.machine
  return m && m.others_busy === true && typeof m.others_pct === 'number' ? m : null
}

/**
 * "other work took 38% of this machine's CPU during the load …", "the nodes were busy beyond this load (n1: load 12 on
 * 2 cores): …", "the nodes were busy before this run began (n1: CPU 85% before it made a table or sent a row: …): …",
 * any of them, or null.
 */
function busyMachineLine (result) {
  const reasons = []
  const others = othersTook(result)
  if (others) {
    reasons.push(`other work took ${fmt(others.others_pct)}% of this machine's CPU during the load (more than ` +
      `${fmt(others.busy_over_pct)}%; the run's own processes ${fmt(others.own_pct)}%, the cluster's nodes ` +
      `${fmt(others.cluster_pct)}% of its ${others.cores} cores)`)
  }
  const beyond = busyNodes(result)
  if (beyond.length) {
    reasons.push(`the nodes were busy beyond this load (${beyond.map((b) => `${b.node}: load ${fmt(b.load)} on ` +
      `${b.cores} core${b.cores === 1 ? '' : 's'}`).join('; ')})`)
  }
  const before = busyBeforeLoad(result)
  if (before.length) {
    const cpu = (b) => (b.overS > 0 ? `CPU ${fmt(b.cpu)}% or more through ${fmt(b.overS)} s` : `CPU ${fmt(b.cpu)}%`)
    reasons.push(`the nodes were busy before this run began (${before.map((b) => `${b.node}: ${cpu(b)}`)
      .join('; ')} before it made a table or sent a row: another client, or the merges of an earlier load)`)
  }
  return reasons.length ? `${reasons.join('; ')}: these figures are not the cluster's alone` : null
}

// The median latency this many times longer in the last tenth of a run than in the first (the drift's windows): the
// cluster slowed down under the load, not the client's flight.
const MEDIAN_GROWTH = 3

/**
 * Why the cluster, not the client, limited a run: a write queue that kept growing, writes or searches rejected, or a
 * median latency that grew through the run (the drift's first and last windows). Null when nothing says so.
 */
function clusterLimitReason (result) {
  const reasons = []
  const cluster = result.cluster
  if (cluster) {
    reasons.push(...growingWriteQueues(cluster.samples || [])
      .map((g) => `the write queue of ${g.node} grew from ${fmt(g.from)} to ${fmt(g.to)}`))
    const rejected = (cluster.write_rejected || 0) + (cluster.search_rejected || 0)
    if (rejected > 0) reasons.push(`${fmt(rejected)} thread-pool rejections`)
  }
  const drift = result.drift
  if (drift && typeof drift.first.p50_ms === 'number' && typeof drift.last.p50_ms === 'number' &&
    drift.first.p50_ms > 0 && drift.last.p50_ms >= drift.first.p50_ms * MEDIAN_GROWTH) {
    reasons.push(`the median latency grew ×${fmt(Math.round((drift.last.p50_ms / drift.first.p50_ms) * 10) / 10)} ` +
      'through the run')
  }
  return reasons.length ? reasons.join('; ') : null
}

module.exports = {
  growingWriteQueues, busyNodes, busyBeforeLoad, busyMachineLine, clusterLimitReason, othersTook, BUSY_LOAD_PER_CORE
}
