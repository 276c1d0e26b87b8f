'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { startCluster, clusterSpec } = require('./cluster')
const { living } = require('./stop')
const { causeOf } = require('./nodes')
const { lastLogLines, readNodeFile, listNodeFolder, KEPT_BYTES } = require('./node-files')
const { makeNewDir, writeNewFile } = require('./owned-paths')
const { nodePorts } = require('./ports')
const { BenchmarkOptions } = require('../cli/benchmark-options')
const { provisionedRecord } = require('../results/provisioned')

// The cluster under test as a run, a sweep or a study holds it once the tool started it: its hosts and each node's
// PostgreSQL port, the connection of a run of it, the record a result keeps, its nodes that died (with their logs),
// and its stop. One handle for every user of a started cluster; lib/provision/cluster.js starts it.

class Target {
  /** `started`: what startCluster resolved ({ state, stop }). */
  constructor (started) {
    this.started = started
    this.state = started.state
  }

  /**
   * Starts the cluster `options` describe (cluster.js clusterSpec), its progress on `log`, interrupted by `signals`;
   * tied to this process by a watchdog (it never outlives it) unless `watchdog` is false. Resolves a Target.
   */
  static async start (options, { log, signals, env, watchdog = true }) {
    return new Target(await startCluster(options, { log, signals, env, watchdog }))
  }

  get name () {
    return this.state.name
  }

  /** Each node's { http, pg } port. */
  get ports () {
    return this.state.nodes.map((n) => ({ http: n.http_port, pg: n.pg_port }))
  }

  get hosts () {
    return this.state.nodes.map((n) => `http://127.0.0.1:${n.http_port}`)
  }

  /** The options that point a run with `options` (BenchmarkOptions, or argv) at these nodes. */
  connectionOf (options, env) {
    return BenchmarkOptions.parse(options).connectionTo(this.ports, env)
  }

  /** What a result records of it (environment.cluster.provisioned); `by` who started it ('the study'). */
  record (by = null) {
    return provisionedRecord(this.state, { by })
  }

  /** Its nodes that no longer run: [{ node, pid, cause, last_lines }]. */
  lostNodes () {
    return lostNodesOf(this.state)
  }

  /**
   * Its nodes that died, each with its logs copied into `into`/<node>/ before the stop removes the cluster's folder
   * (its output and CrateDB's own log; the GC logs are left): [{ node, pid, cause, last_lines, kept }].
   */
  keepLostNodeLogs (into) {
    const base = this.state.dir
    return this.lostNodes().map((lost) => {
      const node = this.state.nodes.find((n) => n.name === lost.node)
      const kept = path.join(into, lost.node)
      fs.mkdirSync(into, { recursive: true })
      try {
        makeNewDir(kept)
      } catch (error) {
        // Kept after an earlier part already (a real folder of the study's own): kept once.
        if (error.code === 'EEXIST' && fs.lstatSync(kept).isDirectory()) return { ...lost, kept }
        throw error
      }
      const logs = path.join(node.dir, 'logs')
      const names = listNodeFolder(logs, { base }).filter((n) => n.endsWith('.log') && !n.startsWith('gc') &&
        n !== 'out.log')
      const refused = []
      for (const [from, name] of [[node.log, 'out.log'], ...names.map((n) => [path.join(logs, n), n])]) {
        const text = readNodeFile(from, { base, uid: this.state.run_uid, maxBytes: KEPT_BYTES, refused })
        if (text !== null) writeNewFile(path.join(kept, name), text)
      }
      return { ...lost, kept, ...(refused.length ? { not_kept: refused } : {}) }
    })
  }

  /** Stops every node; with `keep`, its folder (data, logs) stays. */
  stop (options) {
    return this.started.stop(options)
  }
}

/** Nodes of the started cluster `state` that are no longer running: [{ node, pid, cause, last_lines }]. */
function lostNodesOf (state) {
  const alive = new Set(living(state).map((n) => n.name))
  return state.nodes.filter((n) => !alive.has(n.name)).map((n) => {
    const lines = lastLogLines(n, state, 10)
    return { node: n.name, pid: n.pid, cause: causeOf(lines), last_lines: lines }
  })
}

/** Each node's { http, pg } port of a cluster still to start (`options` checked as the start will check them). */
function plannedPorts (options) {
  const spec = clusterSpec(options)
  return Array.from({ length: spec.nodes }, (_, i) => nodePorts(spec.httpPort, i))
}

module.exports = { Target, lostNodesOf, plannedPorts }
