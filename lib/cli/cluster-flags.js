'use strict'

const { UsageError } = require('../base/errors')
const { BenchmarkOptions } = require('./benchmark-options')

// --start_cluster and its flags as a run, a sweep or a study takes them (split out of the benchmark's options by
// BenchmarkOptions.splitCluster). Parsing only: what starts the cluster is lib/provision/, loaded only when a run
// starts one.

/**
 * The options of the cluster to start, from those flags; null without --start_cluster (then none of the others may be
 * given). The provisioner checks them (clusterSpec) before anything starts.
 */
function clusterOptionsOf (given, { distributionRequired = true } = {}) {
  const named = Object.keys(given)
  if (!given.start_cluster) {
    if (named.length) throw new UsageError(`--${named[0]} goes with --start_cluster N (the cluster the run starts)`)
    return null
  }
  const first = (flag) => given[flag] && given[flag][0]
  const options = { nodes: first('start_cluster'), version: first('crate_version'), tarball: first('crate_tarball'),
    sha256: first('crate_sha256'), heap: first('crate_heap'), settings: given.crate_setting || [],
    httpPort: first('crate_http_port'), runAs: first('crate_run_as') }
  if (distributionRequired && !options.version && !options.tarball) {
    throw new UsageError('--start_cluster needs the distribution: --crate_version X.Y.Z or --crate_tarball PATH|URL')
  }
  return options
}

/**
 * A connection option beside --start_cluster (or in a study's args:): refused, since `runs` go to the cluster started,
 * on the ports the tool gives its nodes, and nowhere else.
 */
function refuseConnectionFlags (options, runs = 'the run at the cluster it starts') {
  const flag = BenchmarkOptions.parse(options).connectionFlag()
  if (flag) {
    throw new UsageError(`--start_cluster points ${runs}: leave ${flag} out (no --host, --port, --pg_port, --user, ` +
      '--ssl or --insecure: the tool gives the hosts and ports of the nodes it starts)')
  }
}

module.exports = { clusterOptionsOf, refuseConnectionFlags }
