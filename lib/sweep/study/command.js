'use strict'

// crate-bench study FILE --out DIR: the whole sizing study in one command. For each cluster shape of the file a fresh
// cluster is started (lib/provision), the grid run on it, the mixed capacity at the grid's recommended cell (or its
// best, said so), the sustained run at the same settings, the cluster stopped; then the sizing of every shape
// (DIR/sizing.json, DIR/sizing.html). Each part is a child process of the tool, as the grid's runs are.

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { EXIT, UsageError } = require('../../base/errors')
const { fmt } = require('../../base/format')
const { commandParser } = require('../../cli/command-args')
const { commandMain } = require('../../cli/command-main')
const { parseDuration } = require('../../base/values')
const { runBenchmark } = require('../benchmark-run')
const { takeLock } = require('../grid/folder')
const { readStudy } = require('./study-file')
const { startForRun, hostArgs, provisionedRecord, withStudyRecord } = require('../../provision/for-benchmark')

const NAME = 'crate-bench study'

const USAGE = `Usage: crate-bench study FILE.yml --out DIR

One command for a sizing study: for each cluster shape the file names (cluster.nodes), a fresh cluster is started on
this machine (crate-bench cluster), the grid run on it (crate-bench sweep grid), the mixed capacity at the grid's
recommended cell (its best when it recommends none, said so; find-capacity --workload mixed), the sustained run at
the same settings, and the cluster stopped; results under DIR/<N>-nodes/. Then the sizing of all shapes (what
crate-bench sizing writes) as DIR/sizing.json and DIR/sizing.html, each shape with what was started for it.

The study file (YAML; every key is checked before anything starts):
  cluster:    version: X.Y.Z or tarball: PATH|URL, nodes: [1, 3], heap: 1g, settings: {key: value}, http_port,
              run_as (as root)
  grid:       vary: {batch_size: [2000, 5000], concurrent_requests: [2, 8]}, repeat (3), duration (10s), warmup,
              prefill (rows before the grid), slo (p99=…), args ([benchmark options])
  mixed:      queries: FILE, query_rate: Q, slo: p99=…, duration (10s), warmup, start, edge_repeat (3), max_steps,
              args
  sustained:  duration (10m), prefill, args

A study is resumable: DIR/study.json records each shape; the same command runs only the shapes not done (one half
done is started again from a fresh cluster). One study a folder (DIR/study.lock). Ctrl-C stops the part in progress
and the cluster, and leaves the folder resumable. Shapes started on one machine share its cores and disk: the sizing
says so.

Examples:
  crate-bench study study.yml --out study-6.4.3

To compare (a version, a setting: did it change the throughput?), the file names contenders: instead:
  contenders: a list, each name: with its own version: or tarball:, nodes, heap, settings, http_port, run_as
  forks:      how many times each contender is started fresh and run (default 5), in alternating order (a, b;
              b, a; …) so that a drift of the machine falls on both
  run:        workload: ingest or query, args: [the benchmark's options]
and the study writes compare's figures of the first contender against each other (change, 95% interval, verdict;
throughput and p99 among them) as DIR/comparison.json and DIR/comparison.html. Run an A/A study first (two
contenders that are the same cluster): it must come out "no significant difference" before a version comparison
means anything.

Exit codes: 0 every shape measured and sized (or every fork run and compared), 2 a bad study file or folder, 3
nothing could be measured, 4 interrupted or a shape failed (the others are sized; the same command runs what is
left).`

function parseArgs (argv) {
  const parsed = commandParser(argv).options({ out: { type: 'string', requiresArg: true } }).parseSync()
  if (parsed.help) return { help: true }
  const [file, ...rest] = parsed._.map(String)
  if (!file) throw new UsageError('give the study file (see --help)')
  if (rest.length) throw new UsageError(`unexpected argument '${rest[0]}' (see --help)`)
  if (!parsed.out) throw new UsageError('give --out DIR: where the study goes (and resumes)')
  return { file: path.resolve(file), study: readStudy(file), out: path.resolve(parsed.out) }
}

const shapeName = (nodes) => `${nodes}-node${nodes === 1 ? '' : 's'}`
const seconds = (text) => parseDuration(text, 'duration') / 1000

/** About how long a shape takes (its cluster's start, the grid's runs, the mixed search, the sustained run): s. */
function shapePlanS (study) {
  const g = study.grid
  const cells = g.vary.reduce((n, v) => n * v.split('=')[1].split(',').length, 1)
  const gridS = cells * g.repeat * (seconds(g.duration) + (g.warmup ? seconds(g.warmup)
    : Math.max(5, seconds(g.duration) / 10)) + 4)
  const mixedS = study.mixed ? 10 * (seconds(study.mixed.duration) + (study.mixed.warmup ? seconds(study.mixed.warmup)
    : 10) + 3) : 0
  const sustainedS = study.sustained ? seconds(study.sustained.duration) + 10 : 0
  return 40 + gridS + mixedS + sustainedS
}

const minutes = (s) => (s >= 5400 ? `${fmt(Math.round(s / 360) / 10)} h` : `${Math.max(1, Math.round(s / 60))} min`)

/** DIR/study.json: the study as parsed, and each shape's state; a folder of another study is refused. */
function readProgress (file, study) {
  if (!fs.existsSync(file)) return { study, shapes: {}, forks: {} }
  let saved
  try {
    saved = JSON.parse(fs.readFileSync(file, 'utf8'))
  } catch (error) {
    throw new UsageError(`${file} is no study this tool wrote (${error.message})`)
  }
  if (!saved || JSON.stringify(saved.study) !== JSON.stringify(study)) {
    throw new UsageError(`${file} holds a study of another file or settings: give another --out, or the same file to ` +
      'resume')
  }
  return { study, shapes: saved.shapes || {}, forks: saved.forks || {} }
}

function writeProgress (file, progress) {
  fs.writeFileSync(`${file}.tmp`, `${JSON.stringify(progress, null, 1)}\n`)
  fs.renameSync(`${file}.tmp`, file)
}

/** The settings the later parts run at: the grid's recommended cell, else its best (said so), else none. */
function cellOf (gridDir) {
  try {
    const grid = JSON.parse(fs.readFileSync(path.join(gridDir, 'grid.json'), 'utf8'))
    if (grid.recommended && !grid.recommended.untested) {
      return { settings: grid.recommended.settings, which: 'recommended' }
    }
    if (grid.best) return { settings: grid.best.settings, which: 'best (the grid recommended none)' }
  } catch {
    // No grid to read: the parts after it run at the benchmark's defaults.
  }
  return null
}

const flagsOf = (settings) => Object.entries(settings || {}).flatMap(([k, v]) => [`--${k}`, String(v)])
const ingestFlagsOf = (settings) => Object.entries(settings || {})
  .filter(([k]) => ['batch_size', 'concurrent_requests', 'processes'].includes(k))
  .flatMap(([k, v]) => [`--ingest_${k}`, String(v)])

/** One shape: its cluster started, its parts run, its cluster stopped. Returns { done, failed, why }. */
async function runShape (nodes, context) {
  const { study, out, stderr, signals, run, env, index, count } = context
  const log = (line) => stderr.write(`${line}\n`)
  const dir = path.join(out, shapeName(nodes))
  // A shape half done is measured again from a fresh cluster: nothing of an earlier cluster's runs is mixed in.
  fs.rmSync(dir, { recursive: true, force: true })
  fs.mkdirSync(dir, { recursive: true })
  const head = `[shape ${index} of ${count}: ${nodes} node${nodes === 1 ? '' : 's'}]`
  log(`${head} starting the cluster`)
  let cluster
  try {
    cluster = await startForRun({ nodes, ...study.cluster }, { log: (line) => log(`  ${line}`), signals, env })
  } catch (error) {
    if (signals.interrupted) return { interrupted: true }
    log(`${head} its cluster did not start: ${error.message}`)
    return { failed: true, why: `its cluster did not start: ${error.message}` }
  }
  const record = { ...provisionedRecord(cluster.state), by: 'the study' }
  fs.writeFileSync(path.join(dir, 'cluster.json'), `${JSON.stringify(record, null, 1)}\n`)
  const part = async (name, app, args, resultFile = path.join(dir, `${name}.out`)) => {
    log(`${head} ${name}`)
    const { code, signal } = await run({ app, args, resultFile, logFile: path.join(dir, `${name}.log`), signals })
    log(`${head} ${name}: ${signal ? `ended by ${signal}` : `exit ${code}`} (its report: ${path.join(dir,
      `${name}.log`)})`)
    return { code, signal }
  }
  try {
    // Every run of the shape records what the study started for it.
    return await withStudyRecord(record, async () => {
      const host = hostArgs(cluster)
      const g = study.grid
      const grid = await part('grid', 'bin/crate-bench.js', ['sweep', 'grid', ...g.vary.flatMap((v) => ['--vary', v]),
        '--repeat', String(g.repeat), ...(g.slo ? ['--slo', g.slo] : []), ...(g.prefill ? ['--prefill',
          String(g.prefill)] : []), '--out', path.join(dir, 'grid'), '--', ...host, '--duration', g.duration,
        ...(g.warmup ? ['--warmup', g.warmup] : []), ...g.args])
      if (signals.interrupted) return { interrupted: true }
      const cell = cellOf(path.join(dir, 'grid'))
      if (cell) log(`${head} the later parts run at the grid's ${cell.which} cell: ${flagsOf(cell.settings).join(' ')}`)
      if (study.mixed) {
        const m = study.mixed
        await part('mixed', 'bin/crate-bench.js', ['sweep', 'capacity', '--workload', 'mixed', '--query_rate',
          String(m.queryRate), '--slo', m.slo, '--duration', m.duration, ...(m.warmup ? ['--warmup', m.warmup] : []),
          '--edge_repeat', String(m.edgeRepeat), ...(m.start ? ['--start', String(m.start)] : []),
          ...(m.maxSteps ? ['--max_steps', String(m.maxSteps)] : []), '--out',
          path.join(dir, 'mixed'), '--', ...host, '--queries_config', path.resolve(m.queries),
          ...ingestFlagsOf(cell && cell.settings), ...m.args])
        if (signals.interrupted) return { interrupted: true }
      }
      if (study.sustained) {
        const s = study.sustained
        await part('sustained', 'appClusterIngest.js', [...host, '--duration', s.duration, ...flagsOf(cell &&
          cell.settings), ...(s.prefill ? ['--prefill', String(s.prefill)] : []), ...s.args, '--json'],
        path.join(dir, 'sustained.json'))
        if (signals.interrupted) return { interrupted: true }
      }
      return { done: true, grid: grid.code }
    })
  } finally {
    await cluster.stop().catch((error) => log(`${head} warning: stopping its cluster: ${error.message}`))
    log(`${head} its cluster stopped`)
  }
}

/** The sizing inputs a shape left: its grid folder, its mixed capacity folder, its sustained result. */
function sizingInputs (dir) {
  const inputs = []
  if (fs.existsSync(path.join(dir, 'grid', 'grid.json'))) inputs.push(path.join(dir, 'grid'))
  if (fs.existsSync(path.join(dir, 'mixed', 'capacity.summary.json'))) inputs.push(path.join(dir, 'mixed'))
  const sustained = path.join(dir, 'sustained.json')
  try {
    if (JSON.parse(fs.readFileSync(sustained, 'utf8')).workload) inputs.push(sustained)
  } catch {
    // No whole result: the sustained run did not finish.
  }
  return inputs
}

/** The sizing of every shape done: DIR/sizing.json and sizing.html, its text on stderr. Returns its exit code. */
async function sizeStudy (out, shapes, { stderr, env }) {
  const inputs = shapes.flatMap((n) => sizingInputs(path.join(out, shapeName(n))))
  if (inputs.length === 0) return EXIT.CANNOT_RUN
  let json = ''
  const code = await require('../../reports/sizing/command').main([...inputs, '--report',
    path.join(out, 'sizing.html'), '--json'], { stdout: { write: (s) => { json += s } }, stderr, env })
  if (code !== EXIT.OK) return code
  const sizing = JSON.parse(json)
  const cores = os.availableParallelism ? os.availableParallelism() : os.cpus().length
  const several = shapes.filter((n) => n > 1)
  sizing.study_caveats = several.length ? [`${several.map((n) => `${n} nodes`).join(', ')} on one ${cores}-core ` +
    'machine: this measures CrateDB\'s scaling on shared cores, not the throughput of as many machines'] : []
  sizing.started = Object.fromEntries(shapes.map((n) => {
    try {
      return [shapeName(n), JSON.parse(fs.readFileSync(path.join(out, shapeName(n), 'cluster.json'), 'utf8'))]
    } catch {
      return [shapeName(n), null]
    }
  }))
  fs.writeFileSync(path.join(out, 'sizing.json'), `${JSON.stringify(sizing, null, 1)}\n`)
  for (const caveat of sizing.study_caveats) stderr.write(`caveat: ${caveat}\n`)
  return EXIT.OK
}

/**
 * A comparison: each fork starts each contender fresh, in alternating order (a, b; b, a; …) so that a drift of the
 * machine falls on both, and runs the same benchmark on it; then compare's figures of the first contender against
 * each other (DIR/comparison.json, comparison.html). Forks done are kept across a resume.
 */
async function runComparison (config, progress, file, { stderr, signals, run, env }) {
  const { contenders, forks } = config.study
  const log = (line) => stderr.write(`${line}\n`)
  const app = config.study.run.workload === 'query' ? 'appClusterAnalytical.js' : 'appClusterIngest.js'
  const dir = path.join(config.out, 'forks')
  fs.mkdirSync(dir, { recursive: true })
  const runs = forks * contenders.length
  const walls = []
  const done = () => Object.values(progress.forks).filter((f) => f.status === 'done').length
  log(`study: ${contenders.map((c) => c.name).join(' against ')}, ${forks} fork${forks === 1 ? '' : 's'} (each ` +
    `contender started fresh in each, in alternating order), ${config.study.run.workload}; ${done() ? `resuming: ` +
    `${done()} of ${runs} runs done; ` : ''}results in ${config.out}`)
  for (let fork = 1; fork <= forks; fork++) {
    const order = fork % 2 === 1 ? contenders : [...contenders].reverse()
    for (const contender of order) {
      const key = `${fork}-${contender.name}`
      if (progress.forks[key] && progress.forks[key].status === 'done') continue
      const head = `[fork ${fork} of ${forks}: ${contender.name}]`
      // The time left from the runs this command did: each one a cluster's start, its run and its stop.
      const left = walls.length ? ` (${done()} of ${runs} runs done, about ${minutes((walls.reduce((a, b) => a + b, 0) /
        walls.length) * (runs - done()))} left)` : done() ? ` (${done()} of ${runs} runs done)` : ''
      log(`${head} starting the cluster${left}`)
      const began = Date.now()
      progress.forks[key] = { status: 'started' }
      writeProgress(file, progress)
      let cluster
      try {
        cluster = await startForRun(contender, { log: (line) => log(`  ${line}`), signals, env })
      } catch (error) {
        if (signals.interrupted) return EXIT.PARTIAL
        throw Object.assign(new Error(`${head} its cluster did not start: ${error.message}`),
          { exitCode: EXIT.CANNOT_RUN })
      }
      let outcome
      try {
        outcome = await withStudyRecord({ ...provisionedRecord(cluster.state), by: 'the study' }, () => run({ app,
          args: [...hostArgs(cluster), ...config.study.run.args, '--json'], resultFile: path.join(dir, `${key}.json`),
          logFile: path.join(dir, `${key}.log`), signals }))
      } finally {
        await cluster.stop().catch((error) => log(`${head} warning: stopping its cluster: ${error.message}`))
      }
      if (signals.interrupted) {
        log(`interrupted: fork ${fork} of ${contender.name} is not counted; the same command runs it again`)
        return EXIT.PARTIAL
      }
      log(`${head} exit ${outcome.code ?? outcome.signal}`)
      walls.push((Date.now() - began) / 1000)
      progress.forks[key] = { status: 'done', exit_code: outcome.code }
      writeProgress(file, progress)
    }
  }
  return compareContenders(config, { stderr })
}

/** compare's figures of the first contender against each of the others, from every fork's result. */
function compareContenders (config, { stderr }) {
  const { contenders, forks } = config.study
  const { compareRuns } = require('../../reports/compare')
  const { renderCompareHtml } = require('../../reports/compare/html')
  const resultsOf = (name) => {
    const files = Array.from({ length: forks }, (_, i) => path.join(config.out, 'forks', `${i + 1}-${name}.json`))
    return files.map((f) => {
      try {
        return JSON.parse(fs.readFileSync(f, 'utf8'))
      } catch {
        return null
      }
    }).filter((r) => r && r.workload)
  }
  const [base, ...others] = contenders
  const baseResults = resultsOf(base.name)
  const comparisons = others.map((other) => {
    const comparison = compareRuns(baseResults, resultsOf(other.name), {
      baseNames: baseResults.map((_, i) => `${base.name} fork ${i + 1}`),
      newNames: resultsOf(other.name).map((_, i) => `${other.name} fork ${i + 1}`) })
    return { base: base.name, new: other.name, ...comparison }
  })
  fs.writeFileSync(path.join(config.out, 'comparison.json'), `${JSON.stringify({ contenders, forks, comparisons },
    null, 1)}\n`)
  fs.writeFileSync(path.join(config.out, 'comparison.html'), comparisons.map((c) => renderCompareHtml(c)).join('\n'))
  for (const c of comparisons) {
    stderr.write(`${c.new} against ${c.base} (${c.base_runs} and ${c.new_runs} runs; ${c.judged ? c.method
      : 'fewer than 3 runs a side: not judged'}):\n`)
    for (const f of c.figures.filter((x) => x.of !== 'client')) {
      stderr.write(`  ${f.figure}: ${fmt(f.base)} -> ${fmt(f.new)} (${f.change_pct === null ? 'no change in %'
        : `${f.change_pct > 0 ? '+' : ''}${fmt(f.change_pct)}%`}${f.ci_pct ? `, 95% interval ${fmt(f.ci_pct[0])}% .. ` +
        `${fmt(f.ci_pct[1])}%` : ''}): ${f.verdict}\n`)
    }
  }
  stderr.write(`wrote ${path.join(config.out, 'comparison.json')} and comparison.html\n`)
  return EXIT.OK
}

async function runStudy (config, options) {
  fs.mkdirSync(config.out, { recursive: true })
  if (config.study.contenders) {
    const release = takeLock(config.out, { name: 'study.lock', what: 'study',
      said: (line) => options.stderr.write(`${line}\n`) })
    try {
      const file = path.join(config.out, 'study.json')
      const progress = readProgress(file, config.study)
      progress.forks = progress.forks || {}
      return await runComparison(config, progress, file, options)
    } finally {
      release()
    }
  }
  return runSizing(config, options)
}

async function runSizing (config, { stderr, signals, run, env }) {
  const release = takeLock(config.out, { name: 'study.lock', what: 'study', said: (line) => stderr.write(`${line}\n`) })
  try {
    const file = path.join(config.out, 'study.json')
    const progress = readProgress(file, config.study)
    progress.file = config.file
    const shapes = config.study.shapes
    const left = shapes.filter((n) => !(progress.shapes[n] && progress.shapes[n].status === 'done'))
    const planS = shapePlanS(config.study)
    stderr.write(`study: ${shapes.length} shape${shapes.length === 1 ? '' : 's'} (${shapes.map((n) =>
      `${n} node${n === 1 ? '' : 's'}`).join(', ')}) of CrateDB ${config.study.cluster.version ??
      config.study.cluster.tarball}; ${left.length < shapes.length ? `resuming: ${shapes.length - left.length} done, `
      : ''}${left.length} to run, about ${minutes(planS * left.length)}; results in ${config.out}\n`)
    const failed = []
    for (const [i, nodes] of left.entries()) {
      if (i > 0) stderr.write(`about ${minutes(planS * (left.length - i))} left\n`)
      progress.shapes[nodes] = { status: 'started', started_at: new Date().toISOString() }
      writeProgress(file, progress)
      const outcome = await runShape(nodes, { study: config.study, out: config.out, stderr, signals, run, env,
        index: shapes.indexOf(nodes) + 1, count: shapes.length })
      if (outcome.interrupted) {
        stderr.write(`interrupted: ${shapeName(nodes)} is not counted; the same command runs it again, from a fresh ` +
          'cluster\n')
        return EXIT.PARTIAL
      }
      progress.shapes[nodes] = outcome.done ? { status: 'done', finished_at: new Date().toISOString() }
        : { status: 'failed', why: outcome.why }
      if (outcome.failed) failed.push(`${shapeName(nodes)}: ${outcome.why}`)
      writeProgress(file, progress)
    }
    const done = shapes.filter((n) => progress.shapes[n] && progress.shapes[n].status === 'done')
    const sized = done.length ? await sizeStudy(config.out, done, { stderr, env }) : EXIT.CANNOT_RUN
    for (const f of failed) stderr.write(`warning: shape ${f}\n`)
    if (sized === EXIT.OK) stderr.write(`wrote ${path.join(config.out, 'sizing.json')} and sizing.html\n`)
    if (done.length === 0) return EXIT.CANNOT_RUN
    return failed.length ? EXIT.PARTIAL : sized
  } finally {
    release()
  }
}

/** crate-bench study … Returns the exit code. `signals`: Ctrl-C or SIGTERM stops the part in progress. */
function main (argv, { stdout = process.stdout, stderr = process.stderr, signals, run = runBenchmark,
  env = process.env } = {}) {
  return commandMain({ name: NAME, usage: () => `${USAGE}\n`, parse: () => parseArgs(argv), stdout, stderr,
    body: (config) => runStudy(config, { stderr, signals, run, env }) })
}

module.exports = { main, USAGE, shapePlanS, compareContenders }
