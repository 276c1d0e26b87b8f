'use strict'

const { splitClusterArgs, clusterOptionsOf, refuseConnectionFlags, withStudyRecord, plannedHostArgs, startForRun,
  provisionedLine, provisionedRecord } = require('../provision/for-benchmark')

// --start_cluster in a study's benchmark options (a sweep, a grid, find-capacity): one cluster for the whole study,
// started before its first run and stopped after its last (however the study ends: a watchdog ends it with the
// study), never one a run. The runs are pointed at its nodes instead.

/** The benchmark options without the cluster's flags, and with the hosts of the cluster to start: { args, cluster }. */
function studyBenchmarkArgs (args) {
  const { rest, given } = splitClusterArgs(args)
  const cluster = clusterOptionsOf(given)
  if (!cluster) return { args, cluster: null }
  refuseConnectionFlags(rest, 'the runs at the cluster the study starts')
  const at = rest.findIndex((a) => a === '--protocol' || a.startsWith('--protocol='))
  const protocol = at < 0 ? null : rest[at].includes('=') ? rest[at].split('=')[1] : rest[at + 1]
  return { args: [...rest, ...plannedHostArgs(cluster, { pg: protocol === 'pg' })], cluster }
}

/** `body()` with the study's cluster running (when it starts one), stopped after it whatever it returns or throws. */
async function withStudyCluster (cluster, { stderr, signals, env = process.env }, body) {
  if (!cluster) return body()
  const log = (line) => stderr.write(`${line}\n`)
  const started = await startForRun(cluster, { log, signals, env })
  const record = { ...provisionedRecord(started.state), by: 'the study' }
  log(provisionedLine(record, 'this study'))
  try {
    // Each run records what its study started.
    return await withStudyRecord(record, () => body(started))
  } finally {
    const stopped = await started.stop().catch((error) => ({ error }))
    log(stopped && stopped.error ? `warning: stopping the cluster this study started: ${stopped.error.message}`
      : `stopped the cluster this study started (${started.state.name}); nothing of it is left`)
  }
}

module.exports = { studyBenchmarkArgs, withStudyCluster }
