'use strict'

const crypto = require('node:crypto')
const { UsageError } = require('../base/errors')
const { commandParser, passedThrough } = require('../cli/command-args')
const { requirePositiveInteger } = require('../base/values')
const { parseRunId } = require('../results/run-identity')
const { parseUi } = require('../cli/options')

const WORKLOADS = { ingest: 'ingest', query: 'query' }
// What `crate-bench report` needs to reach the cluster, read from the generators' flags.
const CONNECTION_FLAGS = ['host', 'port', 'user', 'ssl', 'insecure', 'timeout']

/**
 * `[--generators N] [--json] [--report F] <ingest|query> [benchmark flags…]`: the fleet's flags (before or after the
 * workload), the workload, and the flags each generator gets, with the run id and seed every generator must share
 * (given, or chosen here once). Every flag but the fleet's own goes to each generator as it is.
 */
function parseFleetArgs (argv) {
  const own = commandParser(argv, { passThrough: true })
    .options({
      generators: { type: 'string', requiresArg: true },
      report: { type: 'string', requiresArg: true },
      json: { type: 'boolean' },
      ui: { type: 'string' },
      ui_host: { type: 'string', requiresArg: true }
    })
    .parseSync()
  const passed = passedThrough(own)
  // `--ui ingest`: the workload, not a port, after a --ui without one.
  if (own.ui !== undefined && WORKLOADS[own.ui]) {
    passed.unshift(own.ui)
    own.ui = ''
  }
  const at = passed.findIndex((arg) => WORKLOADS[arg])
  const workload = at >= 0 ? passed[at] : null
  const rest = passed.filter((arg, i) => i !== at)
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
    // The fleet's own page (the generators each serve theirs on a loopback port it follows).
    ui: parseUi({ ui: own.ui, ui_host: own.ui_host }),
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
