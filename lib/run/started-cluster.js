'use strict'

const { processRuns } = require('../base/processes')
const { provisionedRecord } = require('../results/provisioned')

// The cluster under test as a run's stages see it when the tool started it: one form whoever started it (the run
// itself with --start_cluster, or its study, whose record the run was given with --started_by_study). The check
// stage says it, the machine's share counts its nodes' processes, the report records it with its nodes that died.

/**
 * @typedef {object} StartedCluster
 * @property {import('../results/provisioned').ProvisionedRecord} record what a result keeps of it
 *   (environment.cluster.provisioned)
 * @property {string|null} by who started it ('the study'), null when the run did
 * @property {number[]|null} pids its nodes' processes on this machine (null where the record names none)
 * @property {() => object[]} lostNodes its nodes no longer running: [{ node, pid, cause, last_lines, logs_with? }]
 */

/**
 * The cluster the run started: `target` (lib/provision/target.js) holds its processes, and its nodes' logs say why
 * one died.
 * @returns {StartedCluster}
 */
function startedByRun (target) {
  return { record: provisionedRecord(target.state), by: null, pids: target.state.nodes.map((n) => n.pid),
    lostNodes: () => target.lostNodes() }
}

/**
 * The cluster the run's study started, from the record the study wrote: its nodes that died are named by the pids the
 * record gives; the study reads their logs (it keeps them).
 * @returns {StartedCluster}
 */
function startedByStudy (record) {
  const ports = Array.isArray(record.ports) ? record.ports : []
  const pids = ports.length && ports.every((p) => Number.isSafeInteger(p.pid)) ? ports.map((p) => p.pid) : null
  return {
    record,
    by: record.by ?? 'the study',
    pids,
    lostNodes: () => ports.filter((p) => Number.isSafeInteger(p.pid) && p.pid > 1 && !processRuns(p.pid))
      .map((p) => ({ node: p.node, pid: p.pid, cause: null, last_lines: [], logs_with: 'the study' }))
  }
}

module.exports = { startedByRun, startedByStudy }
