'use strict'

const { fmt, visible } = require('../base/format')
const { table } = require('./table')
const { growingWriteQueues } = require('./cluster-limits')

/** The per-node table of the sys.nodes samples, and the warnings a tuner must not miss. */
function clusterSection (cluster, unitsFailed = null) {
  const out = []
  const na = (x) => (x === null || x === undefined ? 'n/a' : fmt(x))
  if (cluster.nodes.length > 0) {
    // CrateDB 6.4 reports the OS's CPU as -1 (hidden): a column of n/a says nothing, so it is shown only with values.
    const osCpu = cluster.nodes.some((n) => n.peak && typeof n.peak.os_cpu_pct === 'number')
    const nodes = table([
      'node',
      'peak process CPU %',
      ...(osCpu ? ['peak OS CPU %'] : []),
      'peak heap %',
      'peak load 1m',
      'peak write queue',
      'write rejected',
      'search rejected'
    ])
    for (const n of cluster.nodes) {
      nodes.push([
        visible(n.name),
        na(n.peak.process_cpu_pct),
        ...(osCpu ? [na(n.peak.os_cpu_pct)] : []),
        na(n.peak.heap_used_pct),
        na(n.peak.load_1m),
        na(n.peak.write_queue),
        na(n.write_rejected),
        na(n.search_rejected)
      ])
    }
    out.push(
      `Cluster during the run (sys.nodes every ${fmt(cluster.interval_ms / 1000)} s, ${cluster.samples.length} ` +
      `samples; rejections counted from the first sample):`
    )
    out.push(nodes.toString())
  }
  if (cluster.write_rejected > 0) {
    // Rejected operations are not rejected rows: CrateDB retries a shard's bulk it rejected before it answers.
    const retried = unitsFailed === 0 ? ' (CrateDB retried them: no row failed, but the write pool was full)' : ''
    out.push(`warning: the cluster rejected ${fmt(cluster.write_rejected)} write operations: past its saturation ` +
      `point${retried}`)
  }
  if (cluster.search_rejected > 0) {
    out.push(
      `warning: the cluster rejected ${fmt(cluster.search_rejected)} search operations: past its saturation point`
    )
  }
  for (const node of cluster.impossible_cpu || []) {
    out.push(`warning: ${visible(node.name)} reported a CPU share of ${fmt(node.said_pct)}% (a share of a machine is ` +
      '0–100%): none of its CPU figures past 100% were recorded')
  }
  if (cluster.failed_samples > 0) {
    out.push(`note: ${fmt(cluster.failed_samples)} sys.nodes samples failed: ${cluster.last_sample_error}`)
  }
  for (const growth of growingWriteQueues(cluster.samples || [])) {
    out.push(
      `warning: the write queue of ${visible(growth.node)} grew from ${fmt(growth.from)} to ${fmt(growth.to)} during ` +
      'the run: the cluster takes writes slower than they come; lower --concurrent_requests or --batch_size, or ' +
      'find the rate it keeps up with (--rate, scripts/find-capacity.sh)'
    )
  }
  return out
}

module.exports = { clusterSection }
