'use strict'

const { UsageError } = require('../base/errors')

// --start_cluster and its flags as a run, a sweep or a study takes them, and the connection of a run of a cluster the
// tool starts. Parsing only: what starts the cluster is lib/provision/, loaded only when a run starts one.

const FLAGS = ['start_cluster', 'crate_version', 'crate_tarball', 'crate_sha256', 'crate_heap', 'crate_setting',
  'crate_http_port', 'crate_run_as']
const REPEATABLE = new Set(['crate_setting'])

/**
 * The benchmark's arguments without the cluster's flags, and those flags' values: { rest, given } (given: flag ->
 * list of values). Both --flag value and --flag=value are taken.
 */
function splitClusterArgs (argv) {
  const rest = []
  const given = {}
  for (let i = 0; i < argv.length; i++) {
    const m = /^--([a-z_]+)(?:=(.*))?$/s.exec(argv[i])
    if (!m || !FLAGS.includes(m[1])) {
      rest.push(argv[i])
      continue
    }
    let value = m[2]
    if (value === undefined) {
      if (i + 1 >= argv.length || /^--/.test(argv[i + 1])) throw new UsageError(`--${m[1]} needs a value`)
      value = argv[++i]
    }
    if (given[m[1]] && !REPEATABLE.has(m[1])) throw new UsageError(`--${m[1]} was given twice: give it once`)
    ;(given[m[1]] ||= []).push(value)
  }
  return { rest, given }
}

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

// What points a run at a cluster: beside a cluster the tool starts, only the tool names it (its hosts, ports and user).
const CONNECTION_FLAG = /^--(host|port|pg_port|user|password|ssl|no-ssl|insecure|start_cluster|crate_[a-z_]+)(=|$)/

/** The first connection option in `args`, as given (--pg_port), or null. */
function connectionFlagIn (args) {
  const found = args.find((a) => CONNECTION_FLAG.test(a))
  return found ? found.split('=')[0] : null
}

/**
 * A connection option beside --start_cluster (or in a study's args:): refused, since `runs` go to the cluster started,
 * on the ports the tool gives its nodes, and nowhere else.
 */
function refuseConnectionFlags (args, runs = 'the run at the cluster it starts') {
  const flag = connectionFlagIn(args)
  if (flag) {
    throw new UsageError(`--start_cluster points ${runs}: leave ${flag} out (no --host, --port, --pg_port, --user, ` +
      '--ssl or --insecure: the tool gives the hosts and ports of the nodes it starts)')
  }
}

/** The protocol the runs take: --protocol in `args`, else CRATE_PROTOCOL, else http. */
function protocolOf (args, env = process.env) {
  const at = args.findIndex((a) => a === '--protocol' || a.startsWith('--protocol='))
  if (at >= 0) return args[at].includes('=') ? args[at].slice(args[at].indexOf('=') + 1) : args[at + 1]
  return env.CRATE_PROTOCOL || 'http'
}

/**
 * The connection of a run of a started cluster (`ports`: each node's { http, pg }), appended to its `args`: every
 * node's HTTP address, the user crate, and the protocol said outright (no .env's CRATE_PROTOCOL or CRATE_PG_PORT
 * can send the load elsewhere), over PostgreSQL each node's own port.
 */
function connectionArgs (ports, args, env = process.env) {
  const protocol = protocolOf(args, env)
  const given = args.some((a) => a === '--protocol' || a.startsWith('--protocol='))
  return ['--host', ports.map((p) => `http://127.0.0.1:${p.http}`).join(','), '--user', 'crate',
    ...(given ? [] : ['--protocol', protocol]), ...(protocol === 'pg' ? ['--pg_port', ports.map((p) => p.pg)
      .join(',')] : [])]
}

module.exports = { splitClusterArgs, clusterOptionsOf, connectionFlagIn, refuseConnectionFlags, protocolOf,
  connectionArgs, CLUSTER_FLAGS: FLAGS }
