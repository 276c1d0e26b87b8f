'use strict'

const path = require('node:path')
const { clusterOptionsOf, refuseConnectionFlags } = require('../cli/cluster-flags')
const { BenchmarkOptions } = require('../cli/benchmark-options')
const { provisionedLine, stoppedLine } = require('../reports/provisioned')

// --start_cluster in a study's benchmark options (a sweep, a grid, find-capacity): one cluster for the whole study,
// started before its first run and stopped after its last (however the study ends: a watchdog ends it with the
// study), never one a run. The runs are pointed at its nodes instead, and each is given the record of what was
// started (--started_by_study, a file in the study's folder), which it records and reports.

const RECORD_FILE = 'started-cluster.json'

/**
 * The benchmark options (argv, or BenchmarkOptions) without the cluster's flags, and with the hosts of the cluster to
 * start: { options (BenchmarkOptions), cluster }.
 */
function studyBenchmarkOptions (args) {
  const options = args instanceof BenchmarkOptions ? args : BenchmarkOptions.fromCommandLine(args)
  const { rest, given } = options.splitCluster()
  const cluster = clusterOptionsOf(given)
  if (!cluster) return { options: rest, cluster: null }
  refuseConnectionFlags(rest, 'the runs at the cluster the study starts')
  const { plannedPorts } = require('../provision/target')
  return { options: rest.plus(rest.connectionTo(plannedPorts(cluster))), cluster }
}

/**
 * `body(run)` with the study's cluster running (when it starts one), stopped after it whatever it returns or throws:
 * `run` is the study's run of a benchmark with the record of the cluster given to every run.
 */
async function withStudyCluster (cluster, { out, stderr, signals, run, env = process.env }, body) {
  if (!cluster) return body(run)
  const { withRecordedCluster } = require('../provision/recorded-start')
  const log = (line) => stderr.write(`${line}\n`)
  return withRecordedCluster(cluster, { recordFile: path.join(out, RECORD_FILE), log, signals, env,
    stopped: (error, { target }) => log(stoppedLine(target.name, 'this study', error)) }, (started) => {
    log(provisionedLine(started.record, 'this study'))
    return body((options) => run({ ...options, args: [...options.args, '--started_by_study', started.recordFile] }))
  })
}

module.exports = { studyBenchmarkOptions, withStudyCluster, RECORD_FILE }
