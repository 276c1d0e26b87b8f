'use strict'

const fs = require('node:fs')
const path = require('node:path')
const yaml = require('js-yaml')
const { EXIT, UsageError } = require('../base/errors')
const { parseFleetArgs, flagValue } = require('./fleet-args')
const { commandParser, passedThrough } = require('../cli/command-args')
const { fleetManifests, mountedQueriesPath, dnsName } = require('./manifests')
const { crateDbResource, serviceHost } = require('./cratedb-resource')
const { clusterOptionsOf } = require('../cli/cluster-flags')
const { BenchmarkOptions } = require('../cli/benchmark-options')
const { parseOptions } = require('../cli/options')
const { loadWorkload } = require('../workloads')

/**
 * crate-bench fleet manifest --generators N <ingest|query> [flags…] [--image I] [--namespace NS]: the fleet's
 * Kubernetes manifests on stdout. The cluster address comes from --host/--port/--ssl or CRATE_HOST/… as for a run;
 * the password never: the Secret is printed empty, with the command that fills it.
 */
function main (argv, { stdout, env = process.env }) {
  // A line break in a value would end the "# made by:" comment and turn the rest of the flag into YAML.
  const control = argv.find((a) => [...a].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f))
  if (control !== undefined) {
    throw new UsageError(`a flag value with a control character (${JSON.stringify(control)}): no generator takes one`)
  }
  const { rest: withoutOwn, image, namespace, crate: podSize } = takeOwn(argv)
  const fleet = parseFleetArgs(withoutOwn)
  // --start_cluster N and its flags: the cluster under test as a CrateDB resource beside the generators.
  const { rest: sharedOptions, given } = BenchmarkOptions.fromCommandLine(fleet.shared).splitCluster()
  const started = clusterOptionsOf(given, { distributionRequired: false })
  fleet.shared = sharedOptions.toArgv()
  // Every option checked here exactly as each pod's generator will check it: a Job whose pods all exit 2 at start
  // is never printed.
  parseOptions(loadWorkload(fleet.workload === 'query' ? 'analytical' : 'ingest'),
    [...fleet.shared, '--generators', String(fleet.generators), '--generator', `1/${fleet.generators}`], env,
    { name: 'crate-bench fleet manifest' })
  if (fleet.ui) {
    throw new UsageError('--ui is a page on this machine; a fleet in Kubernetes is watched through --metrics_port ' +
      '(the PodMonitor scrapes it) and its merged report')
  }
  if (fleet.json || fleet.report) {
    throw new UsageError('--json and --report are for a fleet on this machine; in Kubernetes the merged report is in ' +
      "the log of the generator that prepared, and crate-bench report makes it from anywhere")
  }
  let shared = fleet.shared.filter((a) => a !== '--progress')
  let queriesFile = null
  const queries = flagValue(shared, 'queries_config')
  if (typeof queries === 'string') {
    let text
    try {
      text = fs.readFileSync(queries, 'utf8')
    } catch (error) {
      throw new UsageError(`--queries_config '${queries}': ${error.code === 'ENOENT' ? 'no such file' : error.message}`)
    }
    queriesFile = { name: path.basename(queries), text }
    shared = shared.map((a) => (a === queries ? mountedQueriesPath(queries) : a))
  }
  const processes = Number(flagValue(shared, 'processes') ?? 1)
  if (flagValue(shared, 'processes') === undefined) shared.push('--processes', '1')
  const clusterName = dnsName(`crate-bench-${fleet.runId}`)
  if (started && flagValue(shared, 'host') !== undefined) {
    throw new UsageError('--start_cluster writes the cluster the generators use: leave --host out')
  }
  const host = started ? serviceHost(clusterName, namespace) : flagValue(shared, 'host') ?? env.CRATE_HOST ?? 'cratedb'
  refuseLoopback(host, flagValue(shared, 'host') !== undefined ? '--host' : 'CRATE_HOST')
  const protocol = flagValue(shared, 'protocol') ?? env.CRATE_PROTOCOL ?? 'http'
  const pgPort = flagValue(shared, 'pg_port') ?? env.CRATE_PG_PORT ?? null
  const manifests = fleetManifests({
    workload: fleet.workload,
    generators: fleet.generators,
    runId: fleet.runId,
    shared: shared.filter((a, i) => !isConnectionFlag(shared, i)),
    processes: Number.isInteger(processes) && processes > 0 ? processes : 1,
    image,
    namespace,
    crate: {
      host,
      port: flagValue(shared, 'port') ?? env.CRATE_PORT ?? '4200',
      ssl: flagValue(shared, 'ssl') === true || env.CRATE_SSL === 'true',
      user: flagValue(shared, 'user') ?? env.CRATE_USER ?? 'crate',
      // Every connection setting the generators run with, as a local fleet would have run.
      protocol,
      pgPort: protocol === 'pg' ? pgPort : null
    },
    queriesFile
  })
  if (started) {
    manifests.unshift(crateDbResource({ name: clusterName, namespace, labels: manifests[0].metadata.labels,
      nodes: Number(started.nodes), version: started.version, heap: started.heap ?? '1g', cpus: podSize.cpus,
      disk: podSize.disk, storageClass: podSize.storageClass,
      settings: (started.settings || []).map((s) => [s.slice(0, s.indexOf('=')), s.slice(s.indexOf('=') + 1)]) }))
  }
  const secretName = manifests.find((m) => m.kind === 'Secret').metadata.name
  stdout.write([
    `# made by: crate-bench fleet manifest ${argv.join(' ')}`,
    `# crate-bench fleet: ${fleet.generators} generators of run ${fleet.runId}. Before applying, replace the`,
    `# password in the Secret ${secretName} below, or delete that Secret from this file and create it with`,
    `#   kubectl -n ${namespace} create secret generic ${secretName} --from-literal=CRATE_USER=... \\`,
    '#     --from-literal=CRATE_PASSWORD=...',
    '# then: kubectl apply -f this file. The PodMonitor needs the Prometheus operator (leave it out otherwise).',
    ...(started ? [`# The CrateDB resource ${clusterName} needs the CrateDB operator. Apply it first and wait`,
      `# until its Service ${serviceHost(clusterName, namespace)} answers: a generator that finds no cluster`,
      '# exits 3 and ends the Job.'] : []),
    '# The merged report: kubectl logs of the generator that prepared, or crate-bench report --results_table ' +
      `${fleet.resultsTable} --run_id ${fleet.runId}`,
    ...manifests.map((m) => `---\n${yaml.dump(m, { lineWidth: 120, noRefs: true })}`)
  ].join('\n'))
  return EXIT.OK
}

const CONNECTION_VALUE_FLAGS = new Set(['--host', '--port', '--user', '--protocol', '--pg_port'])

// In a pod, these name the pod itself: never the cluster a local fleet reached through them.
const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[?::1\]?|0\.0\.0\.0)$/i

/** A loopback host in a manifest would send every pod to itself: refused, naming where it came from. */
function refuseLoopback (hosts, source) {
  for (const entry of String(hosts).split(',').map((h) => h.trim()).filter(Boolean)) {
    const name = entry.replace(/^[a-z]+:\/\//i, '').replace(/:\d+$/, '').replace(/\/.*$/, '')
    if (LOOPBACK.test(name)) {
      throw new UsageError(`${source} ${JSON.stringify(entry)} is this machine; in a pod it is the pod itself: give ` +
        'the cluster\'s address as the pods reach it (--host cratedb.NAMESPACE.svc, or its load balancer)')
    }
  }
}

/** Connection flags become the ConfigMap and Secret, not arguments. */
function isConnectionFlag (args, i) {
  const [flag] = args[i].split('=')
  if (CONNECTION_VALUE_FLAGS.has(flag) || flag === '--ssl' || flag === '--no-ssl') return true
  return i > 0 && CONNECTION_VALUE_FLAGS.has(args[i - 1]) && !args[i - 1].includes('=')
}

function takeOwn (argv) {
  const own = commandParser(argv, { passThrough: true })
    .options({
      image: { type: 'string', requiresArg: true, default: `crate-bench:${require('../../package.json').version}` },
      namespace: { type: 'string', requiresArg: true, default: 'default' },
      crate_cpus: { type: 'string', requiresArg: true, default: '2' },
      crate_disk: { type: 'string', requiresArg: true, default: '100Gi' },
      crate_storage_class: { type: 'string', requiresArg: true, default: 'default' }
    })
    .parseSync()
  const { image, namespace } = own
  if (!image) throw new UsageError('--image needs a value')
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(namespace)) {
    throw new UsageError(`--namespace must be a Kubernetes namespace name (got '${namespace}')`)
  }
  return { rest: passedThrough(own), image, namespace, crate: { cpus: own.crate_cpus, disk: own.crate_disk,
    storageClass: own.crate_storage_class } }
}

module.exports = { main }
