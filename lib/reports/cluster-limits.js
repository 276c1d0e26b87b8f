'use strict'

const { fmt } = require('../base/format')

// What the cluster's own samples say about a run: whether the cluster was the limit of a load it could not serve
// (its write queue growing, writes rejected), and whether its machines ran more than this load (a load average far
// above their cores): then the figures are not the cluster's alone.

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

/** Nodes whose peak 1-minute load was far above their cores: [{ node, load, cores }]. */
function busyNodes (result) {
  const nodes = (result.cluster && Array.isArray(result.cluster.nodes)) ? result.cluster.nodes : []
  return nodes.map((n) => ({ node: n.name, load: n.peak ? n.peak.load_1m : null, cores: coresOf(result, n.name) }))
    .filter((n) => typeof n.load === 'number' && n.cores !== null && n.load > n.cores * BUSY_LOAD_PER_CORE)
}

/** "the nodes were busy beyond this load (n1: load 12 on 2 cores): …", or null. */
function busyMachineLine (result) {
  const busy = busyNodes(result)
  if (busy.length === 0) return null
  return `the nodes were busy beyond this load (${busy.map((b) => `${b.node}: load ${fmt(b.load)} on ${b.cores} ` +
    `core${b.cores === 1 ? '' : 's'}`).join('; ')}): these figures are not the cluster's alone`
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

module.exports = { growingWriteQueues, busyNodes, busyMachineLine, clusterLimitReason, BUSY_LOAD_PER_CORE }
