'use strict'

const { UsageError } = require('../base/errors')
const { startCluster, clusterSpec } = require('./cluster')
const { living } = require('./stop')
const { lastLogLines, causeOf } = require('./nodes')
const { nodePorts } = require('./ports')

// --start_cluster on a benchmark or a study: its flags taken out of the benchmark's options, the cluster started
// before the run (with a watchdog: it never outlives the tool), the run pointed at its nodes, what was started
// recorded in the result, a node that died during the run named with its log, and the cluster stopped after it.

const FLAGS = ['start_cluster', 'crate_version', 'crate_tarball', 'crate_sha256', 'crate_heap', 'crate_setting',
  'crate_http_port', 'crate_run_as']
const REPEATABLE = new Set(['crate_setting'])
// What a study started, for each of its runs to record (a JSON of provisionedRecord, set by the study for its runs).
const STUDY_CLUSTER_ENV = 'CRATE_BENCH_STUDY_CLUSTER'

/** The cluster the study of this run started, as it recorded it; null for a run of no such study. */
function studyCluster (env = process.env) {
  try {
    const record = JSON.parse(env[STUDY_CLUSTER_ENV] || 'null')
    return record && typeof record === 'object' && typeof record.nodes === 'number' ? record : null
  } catch {
    return null
  }
}

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
 * The spec of the cluster to start, from those flags; null without --start_cluster (then none of the others may be
 * given). The nodes' settings are checked here, before anything starts.
 */
function clusterOptionsOf (given, { distributionRequired = true } = {}) {
  const named = Object.keys(given)
  if (!given.start_cluster) {
    if (named.length) throw new UsageError(`--${named[0]} goes with --start_cluster N (the cluster the run starts)`)
    return null
  }
  const options = { nodes: given.start_cluster[0], version: given.crate_version && given.crate_version[0],
    tarball: given.crate_tarball && given.crate_tarball[0], sha256: given.crate_sha256 && given.crate_sha256[0],
    heap: given.crate_heap && given.crate_heap[0], settings: given.crate_setting || [],
    httpPort: given.crate_http_port && given.crate_http_port[0], runAs: given.crate_run_as && given.crate_run_as[0] }
  if (!distributionRequired) return options
  if (!options.version && !options.tarball) {
    throw new UsageError('--start_cluster needs the distribution: --crate_version X.Y.Z or --crate_tarball PATH|URL')
  }
  clusterSpec(options)
  return options
}

/**
 * The connection the runs of a cluster still to start will take (its ports follow from --crate_http_port and the
 * nodes): a study checks its benchmark options, and records its hosts, before the cluster starts.
 */
function plannedHostArgs (options, { pg = false } = {}) {
  const spec = clusterSpec(options)
  const ports = Array.from({ length: spec.nodes }, (_, i) => nodePorts(spec.httpPort, i))
  return ['--host', ports.map((p) => `http://127.0.0.1:${p.http}`).join(','), '--user', 'crate',
    ...(pg ? ['--pg_port', String(ports[0].pg)] : [])]
}

/** --host, --port or --user beside --start_cluster: refused, since `runs` go to the cluster started. */
function refuseConnectionFlags (args, runs = 'the run at the cluster it starts') {
  if (args.some((a) => /^--(host|port|user)(=|$)/.test(a))) {
    throw new UsageError(`--start_cluster points ${runs}: leave --host, --port and --user out`)
  }
}

/** Runs `fn` with what a study started recorded for its runs (they inherit the variable), and without it after. */
async function withStudyRecord (record, fn) {
  process.env[STUDY_CLUSTER_ENV] = JSON.stringify(record)
  try {
    return await fn()
  } finally {
    delete process.env[STUDY_CLUSTER_ENV]
  }
}

/** The connection a run of the started cluster takes: every node, the user crate, the first node's PostgreSQL port. */
function hostArgs (cluster, { pg = false } = {}) {
  return ['--host', cluster.hosts.join(','), '--user', 'crate', ...(pg ? ['--pg_port', String(cluster.pgPorts[0])]
    : [])]
}

/** What every result records of the cluster a run started (environment.cluster.provisioned). */
function provisionedRecord (state) {
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
    ports: state.nodes.map((n) => ({ node: n.name, http: n.http_port, pg: n.pg_port }))
  }
}

/** "started by this run: CrateDB 6.4.3, 3 nodes × 1 GB heap on this machine". */
function provisionedLine (record, by = record.by ?? 'this run') {
  const heap = /^([0-9]+)g$/.test(record.heap) ? `${record.heap.slice(0, -1)} GB` : /^([0-9]+)m$/.test(record.heap)
    ? `${record.heap.slice(0, -1)} MB` : record.heap
  return `started by ${by}: CrateDB ${record.version ?? '?'}, ${record.nodes} node${record.nodes === 1 ? '' : 's'} ` +
    `× ${heap} heap on this machine`
}

/** Nodes of the started cluster that are no longer running: [{ node, pid, cause, last_lines }]. */
function lostNodes (state) {
  const alive = new Set(living(state).map((n) => n.name))
  return state.nodes.filter((n) => !alive.has(n.name)).map((n) => {
    const lines = lastLogLines(n, state.name, 10)
    return { node: n.name, pid: n.pid, cause: causeOf(lines), last_lines: lines }
  })
}

/** Starts the cluster for a run or a study, its progress on `log`, tied to this process by a watchdog. */
function startForRun (options, { log, signals, env }) {
  return startCluster(options, { log, signals, env, watchdog: true })
}

module.exports = { splitClusterArgs, clusterOptionsOf, refuseConnectionFlags, withStudyRecord, hostArgs,
  plannedHostArgs, provisionedRecord, provisionedLine, lostNodes, startForRun, studyCluster, CLUSTER_FLAGS: FLAGS,
  STUDY_CLUSTER_ENV }
