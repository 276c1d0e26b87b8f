'use strict'

const crypto = require('node:crypto')
const { UsageError } = require('../base/errors')
const { requirePositiveInteger } = require('../base/values')
const { parseRunId } = require('../results/run-identity')

const WORKLOADS = { ingest: 'ingest', query: 'query' }
// Flags of the fleet itself: every other flag goes to each generator as it is.
const OWN_VALUE_FLAGS = ['--generators', '--report']
const OWN_BOOLEAN_FLAGS = ['--json']
// What `crate-bench report` needs to reach the cluster, read from the generators' flags.
const CONNECTION_FLAGS = ['host', 'port', 'user', 'ssl', 'insecure', 'timeout']

/**
 * `[--generators N] [--json] [--report F] <ingest|query> [benchmark flags…]`: the fleet's flags (before or after the
 * workload), the workload, and the flags each generator gets, with the run id and seed every generator must share
 * (given, or chosen here once).
 */
function parseFleetArgs (argv) {
  const own = {}
  const rest = []
  let workload = null
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    const [name, inline] = arg.split(/=(.*)/s)
    if (OWN_VALUE_FLAGS.includes(name)) {
      const value = inline ?? argv[++i]
      if (value === undefined) throw new UsageError(`${name} needs a value`)
      own[name.slice(2)] = value
    } else if (OWN_BOOLEAN_FLAGS.includes(arg)) {
      own[arg.slice(2)] = true
    } else if (workload === null && WORKLOADS[arg]) {
      workload = arg
    } else {
      rest.push(arg)
    }
  }
  if (own.generators === undefined) throw new UsageError('give --generators N (the number of load generators)')
  const generators = requirePositiveInteger(/^\d+$/.test(own.generators) ? Number(own.generators) : own.generators,
    'generators')
  if (generators < 2) throw new UsageError('--generators must be at least 2: one generator is a plain run')
  if (generators > 1000) throw new UsageError('--generators must be at most 1000')
  if (!workload) throw new UsageError('name the workload: crate-bench fleet --generators N <ingest|query> [flags…]')
  for (const flag of ['--generator', '--generators', '--start_at']) {
    if (rest.some((a) => a === flag || a.startsWith(`${flag}=`))) {
      throw new UsageError(`${flag} is the fleet's to set: leave it out`)
    }
  }
  const runId = flagValue(rest, 'run_id') ?? parseRunId(undefined)
  parseRunId(runId)
  const seed = flagValue(rest, 'seed') ?? String(crypto.randomInt(0, 0x7fffffff))
  const shared = [...rest]
  if (flagValue(rest, 'run_id') === undefined) shared.push('--run_id', runId)
  if (flagValue(rest, 'seed') === undefined) shared.push('--seed', seed)
  return {
    workload,
    generators,
    json: Boolean(own.json),
    report: own.report ?? null,
    runId,
    shared,
    resultsTable: flagValue(rest, 'results_table') ?? 'doc.crate_bench_results',
    connection: Object.fromEntries(CONNECTION_FLAGS.map((f) => [f, flagValue(rest, f)])
      .filter(([, v]) => v !== undefined))
  }
}

/** The value of --name in a list of flags (the last one), true for a bare boolean flag. */
function flagValue (args, name) {
  let value
  for (let i = 0; i < args.length; i++) {
    const [flag, inline] = args[i].split(/=(.*)/s)
    if (flag !== `--${name}`) continue
    if (inline !== undefined) value = inline
    else if (args[i + 1] !== undefined && !args[i + 1].startsWith('--')) value = args[++i]
    else value = true
  }
  return value
}

module.exports = { parseFleetArgs, flagValue }
