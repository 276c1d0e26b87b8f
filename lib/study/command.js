'use strict'

// crate-bench study FILE --out DIR: a whole study in one command. The file is read and checked whole (study-file.js),
// its plan built and every part of it checked as it will run (plan.js), all before any cluster starts; then the plan
// conducted (sizing-study.js, comparison.js), resumably, one study a folder.

const fs = require('node:fs')
const path = require('node:path')
const { UsageError, EXIT } = require('../base/errors')
const { makeDirectories } = require('../base/files')
const { commandParser } = require('../cli/command-args')
const { commandMain } = require('../cli/command-main')
const { runBenchmark } = require('../sweep/benchmark-run')
const { takeLock } = require('../sweep/grid/folder')
const { checkOwnedPath } = require('../provision/owned-paths')
const { readStudy, ownClustersOf } = require('./study-file')
const { planShapes, checkSizingPlan, planContenders, checkComparisonPlan } = require('./plan')
const { readProgress } = require('./progress')
const { endPreviousChildren } = require('./children')
const { bringDownLeftUp } = require('./target-session')
const { runSizingStudy } = require('./sizing-study')
const { runComparison } = require('./comparison')
const { teeTo } = require('./parts')

const NAME = 'crate-bench study'

const USAGE = `Usage: crate-bench study FILE.yml --out DIR

One command for a sizing study: for each cluster shape the file names (cluster.nodes), a fresh cluster is started on
this machine (crate-bench cluster; its folder and its nodes' logs in DIR/<N>-nodes/cluster), the grid run on it
(crate-bench sweep grid), the mixed capacity and the sustained run at the grid's recommended cell (its best when it
recommends none, said so) with every option of the grid's args (one configuration through every part), and the
cluster stopped; results under DIR/<N>-nodes/. Then the sizing of all shapes (what crate-bench sizing computes) as
DIR/sizing.json and DIR/sizing.html, headed by what was measured (CrateDB's version, build and distribution, this
machine, the date, the tool, the study file and its hash). The terminal's lines are kept in DIR/study.log.

The study file (YAML; every key and value is checked before anything starts, each part's as that part checks it):
  cluster:    version: X.Y.Z or tarball: PATH|URL, nodes: [1, 3], heap: 1g, settings: {key: value}, http_port,
              run_as (as root)
  grid:       vary: {batch_size: [2000, 5000], concurrent_requests: [2, 8]}, repeat (3), duration (10s), warmup,
              prefill (rows before the grid), slo (p99=…), args ([benchmark options])
  mixed:      queries: FILE, query_rate: Q, slo: p99=…, duration (10s), warmup, start, edge_repeat (3), max_steps,
              args
  sustained:  duration (10m), prefill, args
A study loads only the clusters it starts: an option of the connection in any args: (--host, --port, --pg_port,
--user, --ssl …) is refused; --protocol pg goes to each started node's own PostgreSQL port.

A study is resumable: DIR/study.json records each shape; the same command runs only the shapes not done (one half
done is started again from a fresh cluster). One study a folder (DIR/study.lock). Ctrl-C stops the part in progress
and the cluster, and leaves the folder resumable; a study killed outright leaves nothing running (its parts end
within seconds, its clusters with their watchdogs), and its resume first waits for what it left. A node that dies is
named with its last log lines, its logs kept, and its part kept out of the figures. Shapes started on one machine
share its cores and disk: the sizing says so.

Examples:
  crate-bench study studies/single-machine.yml --out study-6.4.3

To compare (a version, a setting: did it change the throughput?), the file names contenders: instead:
  contenders: a list, each name: with its own version: or tarball:, nodes, heap, settings, http_port, run_as;
              or each a cluster of your own, as a target: (name, hosts, up, down, wait, user, pg_port)
  forks:      how many times each contender is started fresh and run (default 5), in alternating order (a, b;
              b, a; …) so that a drift of the machine falls on both
  run:        workload: ingest or query, args: [the benchmark's options]; a run of a --duration warms up
              until its rate is steady (--warmup steady:2m) unless args give --warmup
  precision:  forks added (from forks: on) until each throughput ratio's 95% interval is within it (5%);
              cpu_precision: the same for the cluster's CPU per row; budget: the time they may take (1h);
              runs whose count of requests in fork 1 alone would take more than half the precision measure
              longer from fork 2 on, as far as the budget holds 4 more forks (run: lengthen: false keeps the
              --duration given)
  duet:       true: the contenders run at once, each with its own load generator (never for clusters of your
              own: they share no machine's moment); calibrate: true: an A/A first
and the study writes compare's figures of the first contender against each other (change, 95% interval, verdict;
throughput and p99 among them) as DIR/comparison.json and DIR/comparison.html, headed by what was measured and what
differs between the contenders. Run an A/A study first (two contenders that are the same cluster): it must come out
"no significant difference" before a version comparison means anything.

Exit codes: 0 every shape measured and sized (or every fork run and compared), 1 every shape measured but none
has a figure to plan with (each says why: a CI gate must not pass a study that sized nothing), 2 a bad study file
or folder, 3
nothing could be measured, 4 interrupted, or a shape or fork failed (the others are sized or compared; the same
command runs what is left).`

function parseArgs (argv, env) {
  const parsed = commandParser(argv).options({ out: { type: 'string', requiresArg: true } }).parseSync()
  if (parsed.help) return { help: true }
  const [file, ...rest] = parsed._.map(String)
  if (!file) throw new UsageError('give the study file (see --help)')
  if (rest.length) throw new UsageError(`unexpected argument '${rest[0]}' (see --help)`)
  if (!parsed.out) throw new UsageError('give --out DIR: where the study goes (and resumes)')
  const out = path.resolve(parsed.out)
  checkOwnedPath(out, { flag: '--out' })
  const study = readStudy(file)
  const config = { file: path.resolve(file), study, out }
  if (study.contenders) {
    config.contenders = planContenders(study)
    checkComparisonPlan(study, config.contenders, { env })
  } else {
    config.shapes = planShapes(study, { out, env })
    checkSizingPlan(study, config.shapes, { env })
  }
  return config
}

async function runStudy (config, { stderr: terminal, signals, run, env }) {
  studyFolder(config.out)
  // The lock before the log: a study refused on a busy folder writes nothing into the running study's log.
  const said = []
  const release = takeLock(config.out, { name: 'study.lock', what: 'study', said: (line) => said.push(line) })
  try {
    const stderr = teeTo(terminal, path.join(config.out, 'study.log'))
    stderr.write(`the study's log: ${path.join(config.out, 'study.log')}\n`)
    for (const line of said) stderr.write(`${line}\n`)
    await endPreviousChildren(config.out, { log: (line) => stderr.write(`${line}\n`) })
    await bringDownLeftUp(ownClustersOf(config.study), { out: config.out, cwd: path.dirname(config.file), signals,
      log: (line) => stderr.write(`${line}\n`) })
    if (signals && signals.interrupted) return EXIT.PARTIAL
    const progress = readProgress(path.join(config.out, 'study.json'), config.study)
    progress.file = config.file
    const options = { stderr, signals, run, env }
    // keep_tables: the tables kept in clusters of the user's own, said again as the study's last lines.
    config.keptTables = new Set()
    try {
      return config.study.contenders ? await runComparison(config, progress, options)
        : await runSizingStudy(config, progress, options)
    } finally {
      for (const line of config.keptTables) stderr.write(`${line}\n`)
    }
  } finally {
    release()
  }
}

/**
 * The study's folder, made where missing one level at a time (a recursive mkdir never returns under /proc): a name
 * that is no folder, or a place that cannot be written, is one line (exit 2).
 */
function studyFolder (out) {
  try {
    makeDirectories(out)
  } catch (error) {
    throw new UsageError(`--out '${out}': cannot create that folder (${error.code || error.message})`)
  }
  if (!fs.statSync(out).isDirectory()) throw new UsageError(`--out '${out}' is a file, not a folder`)
  try {
    fs.accessSync(out, fs.constants.W_OK)
  } catch {
    throw new UsageError(`--out '${out}': that folder cannot be written`)
  }
}

/** crate-bench study … Returns the exit code. `signals`: Ctrl-C or SIGTERM stops the part in progress. */
function main (argv, { stdout = process.stdout, stderr = process.stderr, signals, run = runBenchmark,
  env = process.env } = {}) {
  return commandMain({ name: NAME, usage: () => `${USAGE}\n`, parse: () => parseArgs(argv, env), stdout, stderr,
    body: (config) => runStudy(config, { stderr, signals, run, env }) })
}

module.exports = { main, USAGE, parseArgs }
