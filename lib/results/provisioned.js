'use strict'

// What a result records of the cluster a run or its study started on this machine (environment.cluster.provisioned),
// from the provisioner's state (lib/provision/cluster.js): plain data, no process of it read here.

/**
 * What a result keeps of a cluster the tool started (environment.cluster.provisioned), and what a study's parts hand
 * their runs (--started_by_study).
 * @typedef {object} ProvisionedRecord
 * @property {string} name the cluster's name (crate-bench-…)
 * @property {string} version CrateDB's version, as its nodes report it
 * @property {string|null} build_hash its build, as its nodes report it (null when they did not answer)
 * @property {{ sha256: string, version?: string, url?: string, tarball?: string }} distribution the tarball started,
 *   by its SHA-256 and where it came from (a release's version and URL, a URL, or a file)
 * @property {number} nodes how many nodes
 * @property {string} heap each node's heap as given (1g)
 * @property {number} heap_bytes each node's heap in bytes
 * @property {string[]} settings the CrateDB settings given, key=value
 * @property {number|null} processors the processors each node was given (null: the machine's)
 * @property {{ major: number, bundled: boolean }} java the Java the nodes ran on
 * @property {'this machine'} on where the nodes ran
 * @property {number} ready_s seconds from the start until every node answered
 * @property {{ node: string, http: number, pg: number, pid: number }[]} ports each node's ports and process
 * @property {string} [by] who started it ('the study'), when not the run itself
 */

/**
 * The record of a started cluster's `state`; `by` who started it ('the study'), when not the run itself.
 * @returns {ProvisionedRecord}
 */
function provisionedRecord (state, { by = null } = {}) {
  return {
    name: state.name,
    version: state.version,
    build_hash: state.build_hash,
    distribution: { sha256: state.distribution.sha256, ...state.distribution.source },
    nodes: state.nodes.length,
    heap: state.heap,
    heap_bytes: state.heap_bytes,
    settings: state.settings,
    processors: state.processors,
    java: { major: state.java.major, bundled: state.java.bundled },
    on: 'this machine',
    ready_s: state.ready_s,
    // The pids too: a run tells the nodes' CPU from what others took on this machine (run/machine-share.js).
    ports: state.nodes.map((n) => ({ node: n.name, http: n.http_port, pg: n.pg_port, pid: n.pid })),
    ...(by ? { by } : {})
  }
}

/** Whether `value` is a record provisionedRecord wrote (read back from a file a study wrote). */
const isProvisionedRecord = (value) => Boolean(value) && typeof value === 'object' && typeof value.nodes === 'number' &&
  Array.isArray(value.ports)

module.exports = { provisionedRecord, isProvisionedRecord }
