'use strict'

const os = require('node:os')
const { FatalError } = require('../base/errors')
const { describeOptions } = require('../cli/options')
const { envFileLine } = require('../cli/env-file')
const { CrateHttpError } = require('../cluster/http-client')
const { pgPortsText } = require('../cluster/connection')
const { now } = require('../base/clock')
const { stageText, granularityWarnings } = require('../data/load-profile')
const { unitsPerRequestOf } = require('../workloads/workload')
const { grouped } = require('../base/format')
const { clusterShape, shapeText } = require('../cluster/cluster-shape')
const { provisionedLine } = require('../reports/provisioned')

// The run's first stages: the header a person reads, then every host checked before any DDL.

/** A header a person reads at a glance; every option is in --json. */
function announce (ctx) {
  const { workload, options } = ctx
  ctx.describedOptions = describeOptions(options, workload.describeExclude)
  const c = options.connection
  const tls = c.hosts[0].protocol === 'https' ? (c.insecure ? 'TLS, certificates NOT verified' : 'TLS') : 'no TLS'
  const n = grouped
  const share = options.fleetRate == null ? ''
    : ` (this generator's share of the fleet's --rate ${n(options.fleetRate)} over ${options.generator.count})`
  const stagesShare = options.fleetStages ? ` (this generator's share of the fleet's, over ${options.generator.count})`
    : ''
  const pace = options.stages
    // As the flag is written: a thousands separator would read as the next stage.
    ? `--stages ${options.stages.map((st) => stageText(st)).join(',')} ${workload.unit}/s over all processes` +
      stagesShare
    : options.rate == null
      ? 'as fast as answers come'
      : `--rate ${n(options.rate)} ${workload.unit}/s over all processes${share}`
  const limit = workload.countLimit(options)
  const limits = [
    options.durationMs ? `${options.durationMs / 1000} s` : null,
    limit === Number.MAX_SAFE_INTEGER ? null : `${n(limit)} ${workload.unit} per process` +
      `${options.processes > 1 ? ` (${n(limit * options.processes)} in all)` : ''}`
  ]
    .filter(Boolean)
    .join(' or ')
  ctx.log(`${ctx.name}: ${workload.name} benchmark, run ${options.runId}, seed ${options.seed}`)
  ctx.log(
    `  cluster:  ${c.hosts.map((h) => `${h.protocol}://${h.hostname}:${h.port}`).join(', ')} as ${c.user} (${tls}), ` +
    `timeout ${c.timeoutMs / 1000} s`
  )
  const envFile = envFileLine()
  const started = options.startedCluster
  // A cluster the run started takes no connection from the environment file.
  if (envFile && !(started && started.by === null)) ctx.log(envFile)
  if (started) ctx.log(`  ${provisionedLine(started.record)}`)
  if (c.protocol === 'pg') {
    ctx.log(`  protocol: the load over the PostgreSQL wire protocol, port ${pgPortsText(c.pgPorts)} (checks and DDL ` +
      'over HTTP)')
  }
  ctx.log(`  workload: ${workload.describeLoad(options)}`)
  ctx.log(
    `  load:     ${options.processes} process${options.processes === 1 ? '' : 'es'} x ${options.concurrentRequests} ` +
    `in flight, ${pace}, until ${limits}`
  )
  if (options.stages) {
    for (const warning of granularityWarnings(options.stages, { unitsPerRequest: unitsPerRequestOf(workload, options),
      processes: options.processes, unit: workload.unit })) ctx.log(warning)
  }
}

/**
 * SELECT 1 on every host, so a wrong password or TLS setting fails before any DDL. A host that
 * does not answer is left out until it does (the workers start with it down) while another one
 * answers; with none answering the run cannot run.
 */
async function checkHosts (ctx) {
  const { client, options } = ctx
  let unreachable
  try {
    unreachable = await client.requireOneHost()
  } catch (error) {
    if (error instanceof CrateHttpError) {
      throw new FatalError(`${error.host} refused the connection check: ${error.message}`)
    }
    throw new FatalError(`cannot reach CrateDB: ${error.message}`)
  }
  for (const error of unreachable) {
    ctx.log(
      `warning: ${error.message}; the run goes on with the other hosts and tries this one again every few seconds`
    )
    ctx.hostEvents.report('check', { kind: 'host_down', host: error.host, detail: error.message, at: now() })
  }
  // Workers fork after this: they start with the same hosts down.
  options.connection.downHosts = client.downHosts()
  if (options.connection.protocol === 'pg') await checkPgHosts(ctx)
  return { ...(await environmentOf(client, ctx.log)), protocol: options.connection.protocol }
}

/** --protocol pg: every host's PostgreSQL port takes a session (the port, the password, TLS), before any DDL. */
async function checkPgHosts (ctx) {
  const { createTransport } = require('../cluster/transport')
  const pg = createTransport(ctx.options.connection, { maxSockets: 1 })
  // A check changes nothing: Ctrl-C ends it at once instead of waiting for a silent port's --timeout.
  const abandon = () => pg.abort()
  ctx.interrupts.on('interrupt', abandon)
  try {
    const unreachable = await pg.requireOneHost()
    for (const error of unreachable) ctx.log(`warning: PostgreSQL protocol: ${error.message}`)
  } catch (error) {
    throw new FatalError('cannot use the PostgreSQL protocol (--protocol pg, port ' +
      `${pgPortsText(ctx.options.connection.pgPorts)}): ${error.message}`)
  } finally {
    ctx.interrupts.off('interrupt', abandon)
    pg.close()
  }
}

const ENVIRONMENT_SQL = "SELECT count(*) AS nodes, max(version['number']) AS version FROM sys.nodes"

async function nodesAndVersion (client) {
  const cluster = await client.sql(ENVIRONMENT_SQL).catch(() => null)
  return (cluster && cluster.rows && cluster.rows[0]) || []
}

/** The highest of the nodes' versions as max(version['number']) orders them (text), or null. */
function highestVersion (nodeList) {
  const versions = nodeList.map((n) => n.version).filter((v) => v !== null && v !== undefined).map(String)
  return versions.length ? versions.reduce((a, b) => (b > a ? b : a)) : null
}

/** Where the numbers come from: this tool and machine, and the cluster's version and size. */
async function environmentOf (client, log) {
  // Every node's machine: results measured on different clusters can then be put side by side.
  const shape = await clusterShape(client, log)
  if (shape) log(`  shape:    ${shapeText(shape)}`)
  // Its node count and highest version are the shape's, read once; a cluster that would not give its shape is asked
  // for them alone.
  const [nodes, version] = shape ? [shape.nodes, highestVersion(shape.node_list)] : await nodesAndVersion(client)
  const cpus = os.cpus()
  return {
    tool_version: require('../../package.json').version,
    node_version: process.version,
    load_generator: os.hostname(),
    cpus: os.availableParallelism(),
    cpu_model: cpus.length ? cpus[0].model : null,
    cratedb_version: version ?? null,
    cratedb_nodes: nodes ?? null,
    cluster: shape
  }
}

module.exports = { announce, checkHosts }
