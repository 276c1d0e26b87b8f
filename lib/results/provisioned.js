'use strict'

// What a result records of the cluster a run or its study started on this machine (environment.cluster.provisioned),
// from the provisioner's state (lib/provision/cluster.js): plain data, no process of it read here.

/** The record of a started cluster's `state`; `by` who started it ('the study'), when not the run itself. */
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
