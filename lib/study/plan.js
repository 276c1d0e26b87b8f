'use strict'

const path = require('node:path')
const { UsageError, underKey } = require('../base/errors')
const { connectionArgs } = require('../cli/cluster-flags')
const { plannedPorts } = require('../provision/target')
const { parseArgs: gridOptions } = require('../sweep/grid/command')
const { parseArgs: capacityOptions } = require('../sweep/capacity-command')
const { checkBenchmarkOptions } = require('../sweep/benchmark-run')
const { ingestArgs, notCarriedToMixed, mixedArgs, refuseOverride, withoutCarried, TO_MIXED } =
  require('./configuration')

// A study's plan as data: each cluster shape (or each contender of a comparison) with its folder, the options of the
// cluster to start, its nodes' ports, and the options of each part, built here once for both uses: checked with the
// part's own parser before any cluster starts (every value, as the grid, the capacity search and the benchmark check
// them), and given to the part when it runs. The parts run at one configuration (configuration.js).

const APPS = { ingest: 'appClusterIngest.js', query: 'appClusterAnalytical.js' }

const shapeName = (nodes) => `${nodes}-node${nodes === 1 ? '' : 's'}`

/** The shapes of a sizing study: [{ nodes, name, index, dir, cluster, ports }], each in DIR/<N>-nodes/. */
function planShapes (study, { out }) {
  return study.shapes.map((nodes, i) => {
    const dir = path.join(out, shapeName(nodes))
    // The cluster's folder under the study's: its nodes' logs stay with the results.
    const cluster = { nodes, ...study.cluster, dir: path.join(dir, 'cluster') }
    return { nodes, name: shapeName(nodes), index: i + 1, dir, cluster, ports: plannedPorts(cluster) }
  })
}

/** The grid's options (as `crate-bench sweep grid` takes them) on `shape`. */
function gridArgv (study, shape, env) {
  const g = study.grid
  return [...g.vary.flatMap((v) => ['--vary', v]), '--repeat', String(g.repeat), ...(g.slo ? ['--slo', g.slo] : []),
    ...(g.precision ? ['--precision', g.precision] : []), ...(g.budget ? ['--budget', g.budget] : []),
    ...(g.prefill ? ['--prefill', String(g.prefill)] : []), '--out', path.join(shape.dir, 'grid'), '--',
    ...connectionArgs(shape.ports, g.args, env), '--duration', g.duration, ...(g.warmup ? ['--warmup', g.warmup] : []),
    ...g.args]
}

/** The mixed capacity's options (as find-capacity takes them) on `shape`, its ingest at the cell's `settings`. */
function mixedArgv (study, shape, settings, env, { start = study.mixed.start } = {}) {
  const m = study.mixed
  const carried = mixedArgs(ingestArgs(study.grid.args, settings))
  const own = withoutCarried(m.args, carried)
  return ['--workload', 'mixed', '--query_rate', String(m.queryRate), '--slo', m.slo, '--duration', m.duration,
    ...(m.warmup ? ['--warmup', m.warmup] : []), '--edge_repeat', String(m.edgeRepeat),
    ...(start ? ['--start', String(start)] : []), ...(m.maxSteps ? ['--max_steps', String(m.maxSteps)] : []),
    '--out', path.join(shape.dir, 'mixed'), '--', ...connectionArgs(shape.ports, [...carried, ...own], env),
    '--queries_config', path.resolve(m.queries), ...carried, ...own]
}

/** The sustained run's benchmark options on `shape`: the grid's configuration at the cell's `settings`. */
function sustainedArgs (study, shape, settings, env) {
  const s = study.sustained
  const ingest = ingestArgs(study.grid.args, settings)
  const own = withoutCarried(s.args, ingest)
  return [...connectionArgs(shape.ports, [...ingest, ...own], env), '--duration', s.duration, ...ingest,
    ...(s.prefill ? ['--prefill', String(s.prefill)] : []), ...own, '--json']
}

/** The cells of the grid to check the later parts with: its first and its last ({ name: value }). */
function edgeCells (study) {
  const dimensions = study.grid.vary.map((v) => [v.split('=')[0], v.split('=')[1].split(',')])
  const cell = (pick) => Object.fromEntries(dimensions.map(([name, values]) => [name, pick(values)]))
  return [cell((values) => values[0]), cell((values) => values.at(-1))]
}

/**
 * Checks every part of a sizing study as it will run, before any cluster starts: the grid's options, the mixed
 * capacity's and the sustained run's at the grid's first and last cells, each by the part's own parser, and the
 * configuration they share (an option of the grid's the mixed ingest cannot take, a part's args that would change it).
 */
function checkSizingPlan (study, shapes, { env }) {
  const shape = shapes[0]
  underKey('grid', () => gridOptions(gridArgv(study, shape, env)))
  if (study.mixed) {
    const ingest = ingestArgs(study.grid.args, edgeCells(study)[0])
    const refused = notCarriedToMixed(ingest)
    if (refused.length) {
      throw new UsageError(`grid.args: --${refused[0]} cannot be carried to mixed: (the ingest beside its queries ` +
        `takes ${Object.keys(TO_MIXED).join(', ')} and the connection's options): the mixed capacity would measure ` +
        'another load than the grid; leave it out, or leave mixed: out')
    }
    refuseOverride(study.mixed.args, mixedArgs(ingest), 'mixed.args')
    for (const cell of edgeCells(study)) underKey('mixed', () => capacityOptions(mixedArgv(study, shape, cell, env)))
  }
  if (study.sustained) {
    refuseOverride(study.sustained.args, ingestArgs(study.grid.args, edgeCells(study)[0]), 'sustained.args')
    for (const cell of edgeCells(study)) {
      underKey('sustained', () => checkBenchmarkOptions(APPS.ingest, sustainedArgs(study, shape, cell, env)))
    }
  }
}

/** The contenders of a comparison: [{ ...contender, cluster, ports }], each cluster's folder given per fork. */
function planContenders (study) {
  if (!study.duet) return study.contenders.map((c) => ({ ...c, ports: plannedPorts(c) }))
  // A duet starts its contenders side by side: one whose ports meet an earlier one's moves past them (node i takes
  // http_port + i, + 100 + i, + 200 + i).
  const taken = new Set()
  return study.contenders.map((c) => {
    let planned = { ...c, ports: plannedPorts(c) }
    while (planned.ports.some((p) => taken.has(p.http))) {
      const httpPort = Math.max(...planned.ports.map((p) => p.http)) + 1
      planned = { ...c, httpPort, ports: plannedPorts({ ...c, httpPort }) }
    }
    for (const p of planned.ports) taken.add(p.http)
    return planned
  })
}

/** A contender's run: the benchmark's options against its nodes. */
function contenderArgs (study, contender, env) {
  return [...connectionArgs(contender.ports, study.run.args, env), ...study.run.args, '--json']
}

/** Checks a comparison's run as it will run against each contender, before any cluster starts. */
function checkComparisonPlan (study, contenders, { env }) {
  for (const contender of contenders) {
    underKey('run.args', () => checkBenchmarkOptions(APPS[study.run.workload], contenderArgs(study, contender, env)))
  }
}

module.exports = { planShapes, gridArgv, mixedArgv, sustainedArgs, checkSizingPlan, planContenders, contenderArgs,
  checkComparisonPlan, shapeName, APPS }
