'use strict'

const path = require('node:path')
const { UsageError, underKey } = require('../base/errors')
const { plannedPorts } = require('../provision/target')
const { gridConfig } = require('../sweep/grid/config')
const { capacityConfig } = require('../sweep/capacity-config')
const { checkBenchmarkOptions, APP_OF } = require('../sweep/benchmark-run')
const { BenchmarkOptions } = require('../cli/benchmark-options')
const { tablesWritten } = require('../sweep/target-tables')
const { ingestAt, notCarriedToMixed, mixedOf, refuseOverride, TO_MIXED } = require('./configuration')

// A study's plan as data: each cluster shape (or each contender of a comparison) with its folder, the options of the
// cluster to start, its nodes' ports, and each part's configuration as a value, built by the part's own builder (the
// grid's, the capacity search's; the benchmark's check for a run), whose errors name the study file's key: checked
// before any cluster starts, and given to the part when it runs. No command line is written or parsed for a part;
// argv is built only for a benchmark run, the child process. The parts run at one configuration (configuration.js).


const shapeName = (nodes) => `${nodes}-node${nodes === 1 ? '' : 's'}`

/** How a study file names a part's key in an error: grid.repeat, mixed.max_steps; its benchmark options: grid.args. */
const keysOf = (part) => ({ keyOf: (name) => `${part}.${name === 'plateau_pct' ? 'plateau' : name}`,
  benchmarkKey: `${part}.args`, ownPlace: (name) => `give it as ${part}.${name}, not in ${part}.args` })

/** Each part's own args of the study file, read once: { grid, mixed, sustained } (BenchmarkOptions). */
const argsOf = (study) => ({ grid: BenchmarkOptions.parse(study.grid.args),
  mixed: BenchmarkOptions.parse(study.mixed ? study.mixed.args : []),
  sustained: BenchmarkOptions.parse(study.sustained ? study.sustained.args : []) })

/**
 * The shapes of a sizing study: [{ key, nodes, name, index, dir, cluster, ports, grid }], each in DIR/<N>-nodes/; or,
 * for a study of targets (clusters of the user's own), [{ key, nodes, name, index, dir, target, grid }], each in
 * DIR/<its name>/.
 */
function planShapes (study, { out, env }) {
  if (study.targets) {
    return study.targets.map((target, i) => {
      const shape = { key: target.name, nodes: target.nodes, name: target.name, index: i + 1,
        dir: path.join(out, target.name), target }
      return { ...shape, grid: gridOf(study, shape, env) }
    })
  }
  return study.shapes.map((nodes, i) => {
    const dir = path.join(out, shapeName(nodes))
    // The cluster's folder under the study's: its nodes' logs stay with the results.
    const cluster = { nodes, ...study.cluster, dir: path.join(dir, 'cluster') }
    const shape = { key: nodes, nodes, name: shapeName(nodes), index: i + 1, dir, cluster,
      ports: plannedPorts(cluster) }
    return { ...shape, grid: gridOf(study, shape, env) }
  })
}

/**
 * The options that point a run of `args` at `shape` (or a contender): a started cluster's nodes (their ports;
 * --protocol pg their PostgreSQL ports), or a target's hosts as the study file names them (its user; the password
 * from CRATE_PASSWORD).
 */
function connectionOf (shape, args, env) {
  const options = BenchmarkOptions.parse(args)
  if (!shape.target) return options.connectionTo(shape.ports, env)
  const t = shape.target
  return BenchmarkOptions.parse(['--host', t.hosts.join(','), ...(t.user ? ['--user', t.user] : []),
    ...(options.protocol({}) === 'pg' ? ['--pg_port', String(t.pgPort ?? 5432)] : [])])
}

/** The grid's configuration (sweep/grid/config.js) on `shape`. */
function gridOf (study, shape, env) {
  const g = study.grid
  const args = argsOf(study).grid
  return gridConfig({ vary: g.vary, repeat: g.repeat, slo: g.slo ?? undefined, precision: g.precision ?? undefined,
    budget: g.budget ?? undefined, prefill: g.prefill ?? undefined, out: path.join(shape.dir, 'grid'),
    benchmark: connectionOf(shape, args, env).plus(['--duration', g.duration, ...(g.warmup ? ['--warmup', g.warmup]
      : [])]).plus(args) }, keysOf('grid'))
}

/**
 * The mixed capacity's configuration (sweep/capacity-config.js) on `shape`, its ingest at the cell's `settings`: the
 * grid's configuration carried (mixedOf), the part's own args beside it.
 */
function mixedConfigOf (study, shape, settings, env, { start = study.mixed.start } = {}) {
  const m = study.mixed
  const args = argsOf(study)
  const carried = mixedOf(ingestAt(args.grid, settings))
  const load = args.mixed.without(carried).with(carried)
  return capacityConfig({ workload: 'mixed', query_rate: m.queryRate, slo: m.slo, duration: m.duration,
    warmup: m.warmup ?? undefined, edge_repeat: m.edgeRepeat, start: start ?? undefined,
    max_steps: m.maxSteps ?? undefined, out: path.join(shape.dir, 'mixed'),
    benchmark: connectionOf(shape, load, env).plus(['--queries_config', path.resolve(m.queries)]).plus(load) },
  keysOf('mixed'))
}

/** The sustained run's benchmark options (the argv of its child process) on `shape`, at the cell's `settings`. */
function sustainedArgs (study, shape, settings, env) {
  const s = study.sustained
  const args = argsOf(study)
  const ingest = ingestAt(args.grid, settings)
  const own = args.sustained.without(ingest)
  return connectionOf(shape, ingest.plus(own), env).plus(['--duration', s.duration]).plus(ingest)
    .plus(s.prefill ? ['--prefill', String(s.prefill)] : []).plus(own).plus(['--json']).toArgv()
}

/** The cells of the grid to check the later parts with: its first and its last ({ name: value }). */
function edgeCells (study) {
  const dimensions = study.grid.vary.map((v) => [v.name, v.values])
  const cell = (pick) => Object.fromEntries(dimensions.map(([name, values]) => [name, pick(values)]))
  return [cell((values) => values[0]), cell((values) => values.at(-1))]
}

/**
 * Checks the later parts of a sizing study as they will run, before any cluster starts (the grid's configuration of
 * each shape was built, and so checked, by planShapes): the mixed capacity's and the sustained run's at the grid's
 * first and last cells, and the configuration they share (an option of the grid's the mixed ingest cannot take, a
 * part's args that would change it).
 */
function checkSizingPlan (study, shapes, { env }) {
  const shape = shapes[0]
  const args = argsOf(study)
  if (study.mixed) {
    const ingest = ingestAt(args.grid, edgeCells(study)[0])
    const refused = notCarriedToMixed(ingest)
    if (refused.length) {
      throw new UsageError(`grid.args: --${refused[0]} cannot be carried to mixed: (the ingest beside its queries ` +
        `takes ${Object.keys(TO_MIXED).join(', ')} and the connection's options): the mixed capacity would measure ` +
        'another load than the grid; leave it out, or leave mixed: out')
    }
    refuseOverride(args.mixed, mixedOf(ingest), 'mixed.args')
    for (const cell of edgeCells(study)) mixedConfigOf(study, shape, cell, env)
  }
  if (study.sustained) {
    refuseOverride(args.sustained, ingestAt(args.grid, edgeCells(study)[0]), 'sustained.args')
    for (const cell of edgeCells(study)) {
      underKey('sustained', () => checkBenchmarkOptions(APP_OF.ingest, sustainedArgs(study, shape, cell, env)))
    }
  }
}

/** The contenders of a comparison: [{ ...contender, cluster, ports }], each cluster's folder given per fork. */
function planContenders (study) {
  // A cluster of the user's own is reached at its hosts: no ports of this machine are planned for it.
  if (!study.duet) return study.contenders.map((c) => (c.target ? c : { ...c, ports: plannedPorts(c) }))
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

/**
 * A contender's run: the benchmark's options against its nodes (a target's: its hosts); `duration`: a comparison's
 * runs lengthened for its precision (study/run-length.js) measure that long instead of run.args' --duration.
 */
function contenderArgs (study, contender, env, { duration = null } = {}) {
  const args = BenchmarkOptions.parse(study.run.args).withSteadyWarmup()
  const run = (duration ? args.with(BenchmarkOptions.parse(['--duration', duration])) : args).toArgv()
  return [...connectionOf(contender, study.run.args, env).toArgv(), ...run, '--json']
}

/**
 * The tables the runs of a study write on a target (or a contender of the user's own), read from the benchmark's
 * options as each run will read them: a sizing's ingest at the grid's first cell (the mixed capacity's ingest and the
 * sustained run write the same --table), a comparison's run.
 */
function tablesOnTarget (study, shape, env) {
  if (study.contenders) return tablesWritten(APP_OF[study.run.workload], contenderArgs(study, shape, env))
  const ingest = ingestAt(argsOf(study).grid, edgeCells(study)[0])
  return tablesWritten(APP_OF.ingest, connectionOf(shape, ingest, env).plus(ingest).toArgv())
}

/** Checks a comparison's run as it will run against each contender, before any cluster starts. */
function checkComparisonPlan (study, contenders, { env }) {
  for (const contender of contenders) {
    underKey('run.args', () => checkBenchmarkOptions(APP_OF[study.run.workload], contenderArgs(study, contender, env)))
  }
}

module.exports = { planShapes, tablesOnTarget, gridOf, mixedConfigOf, sustainedArgs, checkSizingPlan, planContenders,
  contenderArgs, checkComparisonPlan, shapeName }
