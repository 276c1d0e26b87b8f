'use strict'

const { visible } = require('../base/format')
const { confirmBusyCpu } = require('./idle-cpu')
const { knownFigure, percentFigure } = require('./monitor')

// The cluster a result was measured on, from sys.nodes at the start: what lets results of different clusters be put
// side by side (a sizing study), and says when a "cluster" of several nodes is one machine.
// Read before the run does anything to the cluster (no table made, nothing sent): each node's CPU then is what it did
// without this run (read again for a few seconds when it is busy: idle-cpu.js).
const SHAPE_SQL = "SELECT name, hostname, os_info['available_processors'] AS cores, heap, mem, " +
  "version['number'] AS version, process['cpu']['percent'] AS cpu_pct FROM sys.nodes ORDER BY name"

/**
 * Each node of the answer: name, hostname, cores, heap max and OS memory in bytes, CrateDB version, and its process's
 * CPU (% of its machine) before the run.
 */
function parseShape (answer) {
  if (!answer || !Array.isArray(answer.cols) || !Array.isArray(answer.rows)) return null
  const at = (name) => answer.cols.indexOf(name)
  return answer.rows.map((row) => {
    const heap = row[at('heap')] || {}
    const mem = row[at('mem')] || {}
    const memTotal = knownFigure(mem.used) !== null && knownFigure(mem.free) !== null ? mem.used + mem.free : null
    return {
      name: visible(row[at('name')]),
      hostname: row[at('hostname')] === null || row[at('hostname')] === undefined ? null : visible(row[at('hostname')]),
      cores: knownFigure(row[at('cores')]),
      heap_max_bytes: knownFigure(heap.max),
      memory_bytes: memTotal,
      version: row[at('version')] === null || row[at('version')] === undefined ? null : visible(row[at('version')]),
      cpu_pct_before_run: at('cpu_pct') >= 0 ? percentFigure(row[at('cpu_pct')]) : null
    }
  })
}

/**
 * The shape in a few figures: nodes, cores and heap per node (one number when every node has the same, else the
 * list), the version(s), and whether several nodes share a machine (the same hostname): a scaling figure from such
 * a cluster is no scaling figure.
 */
function summarizeShape (nodes, cpuReadOverS = 0) {
  if (!nodes || nodes.length === 0) return null
  const same = (key) => {
    const values = [...new Set(nodes.map((n) => n[key]))]
    return values.length === 1 ? values[0] : nodes.map((n) => n[key])
  }
  const byHost = new Map()
  for (const n of nodes) if (n.hostname !== null) byHost.set(n.hostname, [...(byHost.get(n.hostname) || []), n.name])
  const shared = [...byHost].filter(([, names]) => names.length > 1)
    .map(([hostname, names]) => ({ hostname, nodes: names }))
  return {
    nodes: nodes.length,
    cores_per_node: same('cores'),
    heap_bytes_per_node: same('heap_max_bytes'),
    memory_bytes_per_node: same('memory_bytes'),
    version: same('version'),
    shared_machine: shared.length > 0,
    machines_shared: shared,
    node_list: nodes,
    // The seconds over which each node's cpu_pct_before_run is the lowest reading (0: a single reading).
    cpu_read_over_s: cpuReadOverS
  }
}

/** environment.cluster, or null (with the reason logged) when the cluster would not say. */
async function clusterShape (client, log = () => {}, { sleep } = {}) {
  try {
    const nodes = parseShape(await client.sql(SHAPE_SQL))
    if (!nodes || nodes.length === 0) return null
    return summarizeShape(nodes, await confirmBusyCpu(client, nodes, { sleep }))
  } catch (error) {
    log(`warning: could not read the cluster's shape from sys.nodes: ${error.message}`)
    return null
  }
}

/** "3 nodes x 8 cores, 32 GB heap" (or the list where nodes differ), and a word when nodes share a machine. */
function shapeText (shape) {
  if (!shape) return null
  const gb = (bytes) => `${Math.round((bytes / 2 ** 30) * 10) / 10} GB`
  const list = (v, unit) => (Array.isArray(v) ? `${v.map((x) => (x === null ? '?' : unit(x))).join('/')}` : v === null
    ? '?' : unit(v))
  const text = `${shape.nodes} node${shape.nodes === 1 ? '' : 's'} x ${list(shape.cores_per_node, (c) => `${c}`)} ` +
    `cores, ${list(shape.heap_bytes_per_node, gb)} heap`
  return shape.shared_machine
    ? `${text}; SHARED MACHINE: ${shape.machines_shared.map((m) => `${m.nodes.join(', ')} on ${m.hostname}`)
      .join('; ')} (no scaling figure)`
    : text
}

module.exports = { SHAPE_SQL, parseShape, summarizeShape, clusterShape, shapeText }
