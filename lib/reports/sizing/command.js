'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { EXIT, UsageError, errorText } = require('../../base/errors')
const { commandParser, CONNECTION_FLAGS, connectionFlagsOf } = require('../../cli/command-args')
const { commandMain } = require('../../cli/command-main')
const { fmt, fmtWhole: whole, pairsText } = require('../../base/format')
const { table } = require('../text')
const { readResult } = require('../result-file')
const { shapeText } = require('../../cluster/cluster-shape')
const { pointOf, sizingOf, DEFAULT_HEADROOM_PCT } = require('./index')

const USAGE = `Usage: crate-bench sizing RESULT.json|GRID_DIR... [--headroom PCT] [--report FILE.html] [--json]
       crate-bench sizing --results_table TABLE --run_id ID... [the same options, connection flags]

A sizing reference from runs measured on clusters of different shapes (each result's environment.cluster, read
from sys.nodes when it ran): per shape its peak (the highest rows/s or queries/s of its runs without failures,
partial runs or a saturated load generator) with the settings that reached it and its p99, per node and per core,
the recommended ceiling (--headroom below the peak, default ${DEFAULT_HEADROOM_PCT}%), and the scaling efficiency of
every larger shape against the smallest (throughput per node: 100% is linear).

Compare each size at its own best: a grid folder (crate-bench sweep grid --out) counts at its recommended cell (its
best without --slo), a sweep at its best; never at a load raised with the nodes. Results of different workloads or
data models are never mixed in one table; a shape with one result is a point, not a peak; nodes that share a machine
are flagged: no scaling figure. With four sizes or more of the same machines, the Universal Scalability Law is
fitted (an estimate: one node's throughput, contention σ, coherency κ, which term limits, where more nodes stop
paying). --report writes an HTML page: throughput against cluster size with the linear line and the fit, and the p99
at each peak. With --results_table, each run id is one run (its load generators merged), read from the cluster
(connection flags or CRATE_* as for the benchmarks).

Examples:
  crate-bench sizing small/*.json medium/*.json large/*.json
  crate-bench sizing grid-3x8 grid-6x8 grid-12x8
  crate-bench sizing runs/*.json --headroom 30 --json > sizing.json
  crate-bench sizing grid-3 grid-6 grid-9 grid-12 --report sizing.html
  crate-bench sizing --results_table doc.crate_bench_results --run_id small-1 --run_id large-1

Exit codes: 0 the reference printed, 2 bad input (a file that is not a result), 3 no result with a cluster shape.`

function parseArgs (argv) {
  const text = { type: 'string', requiresArg: true }
  const parsed = commandParser(argv)
    .options({ headroom: text, json: { type: 'boolean', default: false }, results_table: text, report: text,
      run_id: { type: 'string', array: true, requiresArg: true, default: [] }, ...CONNECTION_FLAGS })
    .parseSync()
  if ((parsed.results_table === undefined) !== (parsed.run_id.length === 0)) {
    throw new UsageError('--results_table and --run_id go together')
  }
  if (parsed.results_table !== undefined && parsed._.length > 0) {
    throw new UsageError('give result files or --results_table with --run_id, not both')
  }
  const headroom = parsed.headroom === undefined ? DEFAULT_HEADROOM_PCT
    : Number(String(parsed.headroom).replace(/%$/, ''))
  if (!(headroom >= 0 && headroom < 100)) {
    throw new UsageError(`--headroom must be a percentage from 0 to below 100 (got '${parsed.headroom}')`)
  }
  return { help: parsed.help, files: parsed._.map(String), headroom, json: parsed.json, report: parsed.report,
    resultsTable: parsed.results_table, runIds: parsed.run_id.map(String), connection: connectionFlagsOf(parsed) }
}

function render (sizing) {
  const out = []
  for (const g of sizing.groups) {
    out.push(`${g.workload} (${g.model}): ${g.unit}/s at each cluster's own best`)
    // Field values/s (Lindorm's unit) for a model that has them; writes with their replicas where there are any.
    const fields = g.shapes.some((s) => s.peak && s.peak.field_values_per_sec)
    const replicated = g.shapes.some((s) => s.replicated_writes_per_node !== null)
    const t = table(['cluster', `peak ${g.unit}/s`, ...(fields ? ['field values/s'] : []), 'settings at the peak',
      'p99 ms', 'per node', ...(replicated ? ['with replicas per node'] : []), 'per core',
      `recommended (-${sizing.headroom_pct}%)`, 'efficiency'])
    for (const s of g.shapes) {
      const shape = shapeText({ nodes: s.nodes, cores_per_node: s.cores_per_node,
        heap_bytes_per_node: s.heap_bytes_per_node, shared_machine: false })
      const settings = s.peak ? Object.entries(s.peak.settings).map(([k, v]) => `${k} ${fmt(v)}`).join(', ') : ''
      t.push([
        `${shape}${s.shared_machine ? ' (SHARED MACHINE)' : ''}`,
        s.peak ? `${whole(s.peak.per_sec)}${s.single_result ? ' (one run: a point)' : ''}` : 'no run within the rules',
        ...(fields ? [s.peak ? whole(s.peak.field_values_per_sec) : ''] : []),
        settings,
        s.peak ? fmt(s.peak.p99_ms) : '',
        whole(s.per_node),
        ...(replicated ? [whole(s.replicated_writes_per_node)] : []),
        whole(s.per_core),
        whole(s.recommended_per_sec),
        s.efficiency_pct === null ? '' : `${fmt(s.efficiency_pct)}%`
      ])
    }
    out.push(t.toString())
    for (const u of g.usl) {
      out.push(`scaling (Universal Scalability Law over ${u.sizes.join(', ')} nodes${u.cores_per_node
        ? ` of ${u.cores_per_node} cores` : ''}; an estimate, R² ${u.r2}): one node ~${fmt(u.lambda)} ${g.unit}/s, ` +
        `contention σ ${u.sigma}, coherency κ ${u.kappa}: ${u.limited_by === 'nothing measured (linear)'
          ? 'linear over the sizes measured' : `limited by ${u.limited_by}`}${u.peak_nodes
          ? `; more nodes stop adding throughput near ${fmt(u.peak_nodes)}` : ''}`)
    }
    if (!g.usl.length && g.shapes.length > 1) out.push(g.usl_note)
    if (g.shared_machine) {
      out.push('warning: some of these clusters run several nodes on one machine: their scaling is no scaling figure')
    }
    const excluded = g.shapes.flatMap((s) => s.excluded)
    if (excluded.length) out.push(`not peaks: ${excluded.map((e) => `${e.source} (${e.why})`).join('; ')}`)
  }
  if (sizing.without_shape.length) {
    out.push(`left out (measured before results carried the cluster's shape): ${sizing.without_shape.join(', ')}`)
  }
  return `${out.join('\n')}\n`
}

function writeReport (file, sizing, text, stderr) {
  const { renderSizingHtml } = require('./html')
  try {
    fs.writeFileSync(file, renderSizingHtml(sizing, text))
  } catch (error) {
    throw Object.assign(new Error(`cannot write ${file}: ${error.message}`), { exitCode: EXIT.CANNOT_RUN })
  }
  stderr.write(`sizing report written to ${path.resolve(file)}\n`)
}

/** Each input as sizing reads it: result files, or each run of a results table (its generators merged). */
async function pointsOf (args, env) {
  if (args.resultsTable !== undefined) {
    const { readRuns } = require('../read-runs')
    const runs = await readRuns(args.resultsTable, args.runIds, args.connection, env)
    return runs.map((run) => pointOf(run.result, run.runId))
  }
  if (args.files.length === 0) throw new UsageError('give the result files of the runs to size (see --help)')
  return args.files.map((file) => {
    if (isGrid(file)) return gridPoint(file)
    const point = pointOf(readResult(file), path.basename(file))
    if (!point) throw new UsageError(`${file} is not a result of crate-bench`)
    return point
  })
}

const gridFileOf = (input) => (input.endsWith('grid.json') ? input : path.join(input, 'grid.json'))

function isGrid (input) {
  try {
    return fs.statSync(input).isDirectory() || path.basename(input) === 'grid.json'
  } catch {
    return false
  }
}

/**
 * A grid (crate-bench sweep grid's folder or its grid.json) at its own best: its recommended cell, or without one its
 * best, as the run that stands for the cell measured it (the median of its repeats).
 */
function gridPoint (input) {
  const file = gridFileOf(input)
  let grid
  try {
    grid = JSON.parse(fs.readFileSync(file, 'utf8'))
  } catch (error) {
    throw new UsageError(`${input} is no grid folder (crate-bench sweep grid --out): ${error.code === 'ENOENT'
      ? `no ${file}` : error.message}`)
  }
  const cell = grid.recommended || grid.best
  if (!cell || !cell.median_result_file) {
    throw new UsageError(`${file}: the grid has no cell without failures to size with`)
  }
  const which = grid.recommended ? 'recommended' : 'best'
  const point = pointOf(readResult(path.join(path.dirname(file), cell.median_result_file)),
    `${input} (the grid's ${which} cell: ${pairsText(cell.settings)})`)
  return { ...point, runs: grid.runs_done ?? 1 }
}

/** crate-bench sizing … Returns the exit code. */
function main (argv, { stdout = process.stdout, stderr = process.stderr, env = process.env } = {}) {
  return commandMain({ name: 'crate-bench sizing', usage: () => `${USAGE}\n`, parse: () => parseArgs(argv), stdout,
    stderr, body: (args) => size(args, { stdout, stderr, env }) })
}

async function size (args, { stdout, stderr, env }) {
  const points = await pointsOf(args, env)
  const sizing = sizingOf(points, { headroomPct: args.headroom })
  if (sizing.groups.length === 0) {
    stderr.write(errorText('crate-bench sizing', 'none of the results says what cluster it ran on ' +
      '(environment.cluster): run them again with this version'))
    return EXIT.CANNOT_RUN
  }
  const text = render(sizing)
  stderr.write(text)
  if (args.report !== undefined) writeReport(args.report, sizing, text, stderr)
  if (args.json) stdout.write(`${JSON.stringify(sizing)}\n`)
  return EXIT.OK
}

module.exports = { main, USAGE, render }
