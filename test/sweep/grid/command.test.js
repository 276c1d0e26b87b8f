'use strict'

// The grid's loop with a scripted benchmark (test/helpers/grid-model.js): no child processes, no clock.

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { EventEmitter } = require('node:events')
const { XMLValidator } = require('fast-xml-parser')
const { main } = require('../../../lib/sweep/grid/command')
const { short } = require('../../../lib/sweep/grid/heatmap')
const { fakeGridBenchmark, noisyRuns, slowFirstRound } = require('../../helpers/grid-model')
const { memoryStream: sink } = require('../../helpers/memory-stream')
const { tempDir } = require('../../helpers/temp-files')
const { joined, escaped } = require('../../helpers/patterns')

const signals = () => Object.assign(new EventEmitter(), { interrupted: false })
const VARY = ['--vary', 'batch_size=100,500,2000,5000', '--vary', 'concurrent_requests=1,4,16,64']
const readGrid = (out) => JSON.parse(fs.readFileSync(path.join(out, 'grid.json'), 'utf8'))

/**
 * The grid command with the scripted benchmark and a clock that moves 10 s a run. Every earlier grid of a test ran in
 * this process and is over or abandoned (a killed grid): its lock is a dead process's (the lock's own test is below).
 */
async function grid (argv, bench, events = signals()) {
  const stderr = sink()
  let clock = 0
  const code = await main(argv, { stderr, stdout: sink(), signals: events, run: bench.run, now: () => (clock += 5000),
    processAlive: () => false })
  return { code, stderr: stderr.text }
}

test('every cell in rounds; grid.json with its runs, verdicts and sentences; a heatmap with every cell; the HTML page',
  async (t) => {
  const out = tempDir(t)
  const bench = fakeGridBenchmark()
  const run = await grid([...VARY, '--repeat', '2', '--slo', 'p99=200ms', '--out', out, '--', '--processes', '1',
    '--duration', '10s'], bench)
  assert.equal(run.code, 0, run.stderr)
  // A warm-up run of the first cell, then the 32 measured runs.
  assert.equal(bench.calls.length, 33)
  assert.deepEqual(bench.calls[0], bench.calls[1])
  assert.match(run.stderr, /^\[warm-up\] batch_size 100, concurrent_requests 1: a run of its own, not measured$/m)
  const order = bench.calls.slice(1).map((args) => JSON.stringify(bench.settingsOf(args)))
  assert.deepEqual(order.slice(16), order.slice(0, 16),
    'round 2 runs the cells in the order of round 1, after all of it')
  // Each cell warms up by default (10% of --duration, at least 5 s): issue 46.
  assert.deepEqual(bench.calls[0], ['--processes', '1', '--duration', '10s', '--warmup', '5s', '--batch_size', '100',
    '--concurrent_requests', '1', '--json'])
  const saved = readGrid(out)
  assert.equal(saved.unit, 'rows')
  assert.equal(saved.complete, true)
  assert.deepEqual([saved.runs_done, saved.runs_total, saved.cells.length], [32, 32, 16])
  const cell = saved.cells.find((c) => c.id === 'batch_size-2000_concurrent_requests-16')
  assert.deepEqual(cell.settings, { batch_size: 2000, concurrent_requests: 16 })
  assert.deepEqual(cell.runs.map((r) => [r.round, r.rows_per_sec, r.p99_ms, r.result_file]), [
    [1, 308_880, 180, 'runs/batch_size-2000_concurrent_requests-16-r1.json'],
    [2, 312_000, 180, 'runs/batch_size-2000_concurrent_requests-16-r2.json']
  ])
  assert.equal(cell.rows_per_sec, 308_880, 'the lower median of two runs')
  assert.ok(cell.ci95 && cell.ci95.low < 308_880 && cell.ci95.high > 312_000)
  const keys = ['field_values_per_sec', 'busiest_cpu_pct', 'write_queue_max', 'rejections', 'failed', 'in_doubt']
  assert.deepEqual(keys.map((k) => cell[k]), [3_088_800, 96, 16, 0, 0, 0])
  const empty = { size_bytes: 0, docs: 0, segments: 0 }
  assert.deepEqual(cell.table_at_start, [empty, empty])
  assert.deepEqual(saved.best.settings, { batch_size: 5000, concurrent_requests: 16 })
  assert.deepEqual(saved.recommended.settings, { batch_size: 2000, concurrent_requests: 16 })
  assert.equal(saved.recommended.first_break.reason, 'batch_size 5000: p99 420 ms over the 200 ms target')
  assert.ok(saved.sentences.length >= 2)
  assert.match(run.stderr,
    joined(
      /grid: 16 cells \(batch_size 4 × concurrent_requests 4\), 2 runs a /,
      /cell in rounds, after a warm-up run, ingest with --processes 1 --duration 10s/))
  assert.match(run.stderr, /\[cell 16 of 16, round 2 of 2\] batch_size 5000, concurrent_requests 64 — about 5 s left/)
  assert.match(run.stderr,
    /recommended \(p99 within 200 ms, no failures\): batch_size 2000, concurrent_requests 16: 308,880 rows\/s/)
  assert.match(run.stderr, /beyond it: batch_size 5000: p99 420 ms over the 200 ms target/)
  const svg = fs.readFileSync(path.join(out, 'grid.svg'), 'utf8')
  assert.equal(XMLValidator.validate(svg), true)
  for (const c of saved.cells) assert.ok(svg.includes(`>${short(c.rows_per_sec)}`), `${c.id}: ${short(c.rows_per_sec)}`)
  assert.match(svg, />317k best</)
  assert.match(svg, />309k rec\.</)
  const html = fs.readFileSync(path.join(out, 'grid.html'), 'utf8')
  assert.match(html, /<h1>crate-bench grid: batch_size × concurrent_requests<\/h1>/)
  assert.equal((html.match(/<svg/g) || []).length, 3, 'the heatmap and a chart per dimension')
})

test('a grid killed during a run resumes with the same command: only the runs left are run', async (t) => {
  const out = tempDir(t)
  const argv = [...VARY, '--out', out, '--', '--processes', '1']
  // The fifth run never ends: the grid is killed there (its promise abandoned, as a process killed would leave it).
  const first = fakeGridBenchmark({ hangAt: (n) => n === 5 })
  grid(argv, first)
  // Every step before the hanging run resolves at once: one turn of the event loop sees them all done.
  await new Promise((resolve) => setImmediate(resolve))
  assert.equal(readGrid(out).runs_done, 4)
  const second = fakeGridBenchmark()
  const run = await grid(argv, second)
  assert.equal(run.code, 0, run.stderr)
  assert.match(run.stderr, /resuming: 4 of 16 cells done \(4 of 16 runs\); 12 left/)
  assert.equal(second.calls.length, 12)
  assert.deepEqual(second.settingsOf(second.calls[0]), { batch_size: 500, concurrent_requests: 1 },
    'the killed run is run again')
  assert.equal(readGrid(out).runs_done, 16)
  assert.equal(readGrid(out).complete, true)
})

test('a --out holding a grid of other settings is refused in one line; a password in a host after -- is kept out of ' +
  'grid.json', async (t) => {
  const out = tempDir(t)
  const ok = await grid([...VARY, '--out', out, '--', '--host', 'crate:s3cret!@db1'], fakeGridBenchmark())
  assert.equal(ok.code, 0, ok.stderr)
  assert.doesNotMatch(fs.readFileSync(path.join(out, 'grid.json'), 'utf8'), /s3cret!/)
  assert.doesNotMatch(ok.stderr, /s3cret!/)
  assert.equal(readGrid(out).fixed_text, '--host crate:***@db1')
  for (const [argv, message] of [
    [['--vary', 'batch_size=100,500', '--vary', 'concurrent_requests=1,4', '--out', out, '--', '--host',
      'crate:s3cret!@db1'], /its vary differ/],
    [[...VARY, '--repeat', '2', '--out', out, '--', '--host', 'crate:s3cret!@db1'], /its repeat differ/],
    [[...VARY, '--out', out, '--', '--host', 'crate:s3cret!@db2'], /its benchmark options differ/]
  ]) {
    const bench = fakeGridBenchmark()
    const run = await grid(argv, bench)
    assert.equal(run.code, 2)
    assert.equal(bench.calls.length, 0)
    assert.match(run.stderr,
      new RegExp(`^crate-bench sweep grid: error: ${escaped(out)}/grid\\.json holds a grid of other settings ` +
        `\\(${message.source}\\): give another --out, or the same settings to resume\\n$`))
  }
})

test('bad options: one line each, exit 2', async (t) => {
  const out = tempDir(t)
  for (const [argv, message] of [
    [['--vary', 'batch_size=1,2', '--out', out], /a grid needs --vary/],
    [[...VARY, '--workload', 'mixed', '--out', out], /--workload must be ingest or query \(got 'mixed'\)/],
    [[...VARY, '--repeat', '0', '--out', out], /--repeat must be a whole number of at least 1, not '0'/],
    [[...VARY, '--slo', '200ms', '--out', out], /--slo must be p99=<duration>/],
    [[...VARY, '--plateau_pct', 'x', '--out', out], /--plateau_pct must be a percentage/],
    [[...VARY, '--out', out, '--', '--batch_size', '5'],
      /--batch_size is a dimension of the grid: give its values with --vary/],
    [[...VARY, '--out', out, '--', '--json'], /--json is added by the grid; leave it out/],
    // Issue 57 (item 14): not "did you mean --report?".
    [[...VARY, '--out', out, '--', '--repeat', '3'], /--repeat is a grid option: put it before '--'/],
    [[...VARY, 'stray', '--out', out], /unexpected argument 'stray'/],
    // Issue 49: a benchmark option before '--' says where it goes; a typo after it is found before anything runs.
    [[...VARY, '--duration', '5s', '--out', out],
      /unknown option --duration \(benchmark options go after '--'; see --help\)/],
    [[...VARY, '--out', out, '--', '--duraton', '5s'],
      /the benchmark options after '--': unknown option --duraton \(did you mean --duration\? see --help\)/]
  ]) {
    const bench = fakeGridBenchmark()
    const run = await grid(argv, bench)
    assert.equal(run.code, 2, argv.join(' '))
    assert.match(run.stderr, message)
    assert.equal(run.stderr.trim().split('\n').length, 1)
    assert.equal(bench.calls.length, 0, 'nothing ran')
  }
  assert.deepEqual(fs.readdirSync(out), [], 'no grid folder content was made')
})

test('a cluster lost in one cell: the next cell cannot reach it, and the error says what the cell before it saw',
  async (t) => {
  const out = tempDir(t)
  const bench = fakeGridBenchmark({ exitCodeOf: (s) => (s.batch_size === 500 ? 3 : null),
    lostAt: (s) => s.batch_size === 100 && s.concurrent_requests === 64 })
  const run = await grid([...VARY, '--out', out], bench)
  assert.equal(run.code, 3)
  assert.match(run.stderr, joined(
    /error: the benchmark could not run at batch_size 500, concurrent_requests 1 \(exit 3\): /,
    /appClusterIngest\.js: error: cannot reach CrateDB: connection refused; /,
    /the run before it \(batch_size 100, concurrent_requests 64\) lost http:\/\/db1:4200 at 20\.24 s, /,
    /the cluster answering OutOfMemoryError\[Java heap space\] \(20,000 rows\) before\n$/))
  assert.equal(readGrid(out).runs_done, 4, 'the cells done are kept: the same command resumes once the cluster is back')
})

test('a benchmark that cannot run stops the grid with exit 3 and keeps the cells done; Ctrl-C stops with exit 4',
  async (t) => {
  const out = tempDir(t)
  const bench = fakeGridBenchmark({ exitCodeOf: (s) => (s.batch_size === 500 ? 3 : null) })
  const run = await grid([...VARY, '--out', out], bench)
  assert.equal(run.code, 3)
  assert.match(run.stderr,
    joined(
      /error: the benchmark could not run at batch_size 500, concurrent_requests /,
      /1 \(exit 3\): appClusterIngest\.js: error: cannot reach CrateDB/))
  assert.doesNotMatch(run.stderr, /the run before it/, 'the cell before it kept its cluster')
  assert.equal(readGrid(out).runs_done, 4)
  assert.ok(fs.existsSync(path.join(out, 'grid.svg')))

  const stopped = tempDir(t)
  const events = signals()
  const interrupting = fakeGridBenchmark()
  const original = interrupting.run
  interrupting.run = (options) => {
    if (interrupting.calls.length === 2) events.interrupted = true
    return original(options)
  }
  const partial = await grid([...VARY, '--out', stopped], interrupting, events)
  assert.equal(partial.code, 4)
  assert.match(partial.stderr,
    /interrupted: batch_size 100, concurrent_requests 16 ended early .*not counted, the same command resumes with it/)
  assert.equal(readGrid(stopped).runs_done, 2)
  assert.equal(readGrid(stopped).complete, false)
})

// Issue 46: verdicts that know their noise.
test('a noisy grid recommends nothing: it says its runs cannot tell the cells apart, and still names the best',
  async (t) => {
  const out = tempDir(t)
  const run = await grid([...VARY, '--repeat', '3', '--out', out], fakeGridBenchmark({ noise: noisyRuns }))
  assert.equal(run.code, 0, run.stderr)
  const saved = readGrid(out)
  assert.equal(saved.recommended, null)
  assert.match(saved.undecided.why,
    /^the runs of a cell differ by up to \d+(\.\d)?% \([^)]+\): .*the grid cannot tell its cells apart$/)
  assert.equal(saved.undecided.advice, 'repeat more (--repeat 5), lengthen --duration or quiet the cluster')
  assert.ok(saved.undecided.would_recommend, 'what the rule would have picked is kept, for the record')
  assert.ok(saved.best.rows_per_sec > 0, 'the best cell is still named')
  for (const cell of saved.cells) {
    assert.ok(cell.ci95.low >= 0, `${cell.id}: no interval below zero (${cell.ci95.low})`)
    assert.ok(typeof cell.spread_pct === 'number')
  }
  assert.match(run.stderr,
    joined(
      /\nbest: .* rows\/s \(95% interval [\d,]+–[\d,]+(, clipped at 0)?(, wide)?\), /,
      /its runs [\d,]+–[\d,]+ \(spread [\d.]+%\)/))
  assert.match(run.stderr,
    joined(
      /\nrecommended: none: the runs of a cell differ by up to [\d.]+% .*the grid cannot tell its /,
      /cells apart; repeat more \(--repeat 5\), lengthen --duration or quiet the cluster\n/))
  assert.match(run.stderr, /±\d+% cpu \d+%/, 'each cell shows its spread and the busiest node\'s CPU')
})

test('a slow first round is named and left out of the verdict with three rounds; with two, a rerun is advised',
  async (t) => {
  const out = tempDir(t)
  const run = await grid([...VARY, '--repeat', '3', '--out', out], fakeGridBenchmark({ noise: slowFirstRound }))
  assert.equal(run.code, 0, run.stderr)
  const saved = readGrid(out)
  assert.equal(saved.round_effect.round, 1)
  assert.deepEqual([saved.round_effect.cells, saved.round_effect.of], [16, 16])
  assert.match(run.stderr,
    joined(
      /\nrounds: round 1 was 5\d(\.\d)?% below rounds 2 and 3 in 16 of 16 cells: the /,
      /cluster was warming up or drifting; round 1 left out of the verdict\n/))
  // Without round 1 the quiet grid's verdict stands.
  assert.deepEqual(saved.recommended.settings, { batch_size: 2000, concurrent_requests: 16 })
  assert.equal(saved.cells[0].runs_done, 3, 'every run recorded stays in grid.json')
  assert.equal(saved.cells[0].runs_judged, 2)

  const twice = tempDir(t)
  const two = await grid([...VARY, '--repeat', '2', '--out', twice], fakeGridBenchmark({ noise: slowFirstRound }))
  const short2 = readGrid(twice)
  assert.equal(short2.recommended, null)
  assert.match(short2.undecided.why,
    /^round 1 was 5\d(\.\d)?% below round 2 in 16 of 16 cells: .*two rounds leave one run a cell without it$/)
  assert.match(two.stderr, /rounds: .*; a rerun advised/)
})

test('one run a cell: the recommendation is untested, said so in grid.json and in words', async (t) => {
  const out = tempDir(t)
  const run = await grid([...VARY, '--out', out], fakeGridBenchmark())
  assert.equal(run.code, 0, run.stderr)
  const saved = readGrid(out)
  assert.match(saved.sureness, /^one run a cell: the grid cannot know its noise/)
  assert.match(saved.recommended.untested, /^one run a cell: no cell has an interval, so this is the rule's pick/)
  assert.match(run.stderr,
    /\nrecommended: UNTESTED \(no --slo: .*\): batch_size 2000, concurrent_requests 16: .* — one run/)
  const repeated = tempDir(t)
  await grid([...VARY, '--repeat', '3', '--out', repeated], fakeGridBenchmark())
  assert.equal(readGrid(repeated).recommended.untested, null, 'three runs a cell: an interval each')
})

test('cells over --slo are marked, never shown as plateau cells', async (t) => {
  const out = tempDir(t)
  const run = await grid([...VARY, '--slo', 'p99=100ms', '--out', out], fakeGridBenchmark())
  assert.equal(run.code, 0, run.stderr)
  // 5000 × 16 is the best (p99 420 ms) and over the target; 2000 × 16 (p99 180 ms), on its plateau, too.
  assert.match(run.stderr, /316,800 \(best, › slo\)/)
  assert.match(run.stderr, /308,880 \(› slo\)/, 'a plateau cell over the target is marked as such, not ~')
  assert.doesNotMatch(run.stderr, /~, › slo/)
  const svg = fs.readFileSync(path.join(out, 'grid.svg'), 'utf8')
  assert.match(svg, /› slo/)
})

test('every cell warms up by default: a tenth of --duration, at least 5 s; --warmup given (0 too) is kept',
  async (t) => {
  for (const [fixed, expected] of [
    [['--duration', '2m'], ['--duration', '2m', '--warmup', '12s']],
    [['--duration=10s'], ['--duration=10s', '--warmup', '5s']],
    [['--max_rows', '1000'], ['--max_rows', '1000', '--batch_size']],
    [['--duration', '1m', '--warmup', '0'], ['--duration', '1m', '--warmup', '0']]
  ]) {
    const bench = fakeGridBenchmark()
    const run = await grid([...VARY, '--out', tempDir(t), '--', ...fixed], bench)
    assert.equal(run.code, 0, run.stderr)
    assert.deepEqual(bench.calls[0].slice(0, expected.length), expected, fixed.join(' '))
  }
})

// Issue 46: one study per folder.
test('a folder in use by a living grid is refused; a dead grid\'s lock is taken over and said', async (t) => {
  const out = tempDir(t)
  const { spawn } = require('node:child_process')
  // A grid of this tool as /proc shows one: a node process whose command line names crate-bench.
  const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)', 'bin/crate-bench.js'],
    { stdio: 'ignore' })
  t.after(() => other.kill())
  fs.writeFileSync(path.join(out, 'grid.lock'), JSON.stringify({ pid: other.pid, host: require('node:os').hostname(),
    started_at: '2026-11-27T10:00:00.000Z' }))
  const stderr = sink()
  const bench = fakeGridBenchmark()
  const code = await main([...VARY, '--out', out], { stderr, stdout: sink(), signals: signals(), run: bench.run })
  assert.equal(code, 2)
  assert.equal(stderr.text,
    `crate-bench sweep grid: error: --out '${out}' is in use by another grid (pid ${other.pid}, ` +
    'started 2026-11-27T10:00:00.000Z): one study a folder; wait for it, stop it, or give another --out\n')
  assert.equal(bench.calls.length, 0)
  other.kill()
  await new Promise((resolve) => other.on('exit', resolve))
  const taken = sink()
  assert.equal(await main([...VARY, '--out', out], { stderr: taken, stdout: sink(), signals: signals(),
    run: bench.run }), 0)
  assert.match(taken.text,
    new RegExp(`^a stale lock of pid ${other.pid}, started 2026-11-27T10:00:00\\.000Z taken over: ` +
      'that grid is no longer running\n'))
  assert.equal(fs.existsSync(path.join(out, 'grid.lock')), false, 'released at the end')
})

test('a resume against another cluster is refused: other hosts at once, other nodes at its first run (not recorded)',
  async (t) => {
  const out = tempDir(t)
  const first = await grid([...VARY, '--out', out], fakeGridBenchmark())
  assert.equal(first.code, 0, first.stderr)
  const saved = readGrid(out)
  assert.deepEqual(saved.cluster, { hosts: ['http://localhost:4200'], protocol: 'http', nodes: 3 })
  // The same folder, a cluster of one node: the first run of the resume finds it, and the study stops.
  fs.writeFileSync(path.join(out, 'grid.json'), JSON.stringify({ ...saved, cells: saved.cells.map((c,
    i) => (i < 4 ? c : { ...c, runs: [] })) }))
  const single = { nodes: 1, cores_per_node: 8, heap_bytes_per_node: 2 ** 30, shared_machine: false }
  const other = fakeGridBenchmark({ cluster: single })
  const resumed = await grid([...VARY, '--out', out], other)
  assert.equal(resumed.code, 2)
  assert.match(resumed.stderr,
    /error: this study began on 3 nodes; this run found 1: a study is one cluster; this run is not recorded/)
  assert.equal(other.calls.length, 1)
  assert.equal(readGrid(out).runs_done, 4, 'the other cluster\'s run is not in the study')
  // Other hosts: refused before anything runs.
  const env = process.env.CRATE_HOST
  process.env.CRATE_HOST = 'db9'
  t.after(() => { if (env === undefined) delete process.env.CRATE_HOST; else process.env.CRATE_HOST = env })
  const elsewhere = fakeGridBenchmark()
  const refused = await grid([...VARY, '--out', out], elsewhere)
  assert.equal(refused.code, 2)
  assert.match(refused.stderr,
    joined(
      /grid\.json: this study measured http:\/\/localhost:4200 over http; the options now /,
      /point at http:\/\/db9:4200 over http: a study is one cluster; give another --out/))
  assert.equal(elsewhere.calls.length, 0)
})

test('a grid.json this tool did not write is refused in one line: null, a list, a FIFO, runs outside --repeat, a ' +
  'round twice', async (t) => {
  const cases = [
    ['null', /does not hold a grid \(an object\)/],
    ['[]', /does not hold a grid \(an object\)/],
    ['{"cells": [{"id": "batch_size-100_concurrent_requests-1", "runs": [{"round": 7}]}]}',
      /holds a run of round 7 in cell batch_size-100_concurrent_requests-1, outside --repeat 1/],
    ['{"cells": [{"id": "x", "runs": [{"round": 1}, {"round": 1}]}]}', /holds round 1 of cell x twice/],
    ['{"cells": {}}', /has cells that are not a list/]
  ]
  for (const [text, message] of cases) {
    const out = tempDir(t)
    fs.writeFileSync(path.join(out, 'grid.json'), text)
    const run = await grid([...VARY, '--out', out], fakeGridBenchmark())
    assert.equal(run.code, 2, text)
    assert.match(run.stderr, message, text)
    assert.equal(run.stderr.trim().split('\n').length, 1, text)
  }
  const fifo = tempDir(t)
  require('node:child_process').execFileSync('mkfifo', [path.join(fifo, 'grid.json')])
  const run = await grid([...VARY, '--out', fifo], fakeGridBenchmark())
  assert.equal(run.code, 2)
  assert.match(run.stderr, /grid\.json is not a regular file: give another --out/)
})

test('bad studies refused before anything is built: too many runs, --out empty, one value given twice as numbers',
  async (t) => {
  for (const [argv, message] of [
    [['--vary', `batch_size=${Array.from({ length: 2000 }, (_, i) => i + 1).join(',')}`, '--vary',
      `concurrent_requests=${Array.from({ length: 2000 }, (_, i) => i + 1).join(',')}`, '--out', tempDir(t)],
      /a grid of 4,000,000 cells × 1 run is 4,000,000 runs, more than the 10,000 a study may plan/],
    [[...VARY, '--repeat', '999999999', '--out', tempDir(t)], /16 cells × 999,999,999 runs is 15,999,999,984 runs/],
    [[...VARY, '--out', ''], /--out must name a folder for the study \(got ''\)/],
    [['--vary', 'rate=1000,1000.0', '--vary', 'processes=1,2', '--out', tempDir(t)],
      /--vary rate names a value twice \(1000 and 1000\.0\)/]
  ]) {
    const bench = fakeGridBenchmark()
    const run = await grid(argv, bench)
    assert.equal(run.code, 2, run.stderr)
    assert.match(run.stderr, message)
    assert.equal(bench.calls.length, 0)
  }
})

// Another tenant on the machine while the 100-row cells ran (load 40 on 8 cores), or another client's queries when
// they began (the node at 90% CPU before a cell made its table or sent a row).
for (const [why, script, expected] of [
  ['busy beyond the load', { nodeLoad: (s) => (s.batch_size === 100 ? 40 : 2) },
    joined(
      /\nbusy machine: 4 of 16 cells ran while the nodes were busy beyond this load /,
      /\(n1: load 40 on 8 cores\): these figures are not the cluster's alone/)],
  ['busy before their load began', { cpuBeforeLoad: (s) => (s.batch_size === 100 ? 90 : 2) },
    joined(
      /\nbusy machine: 4 of 16 cells ran while the nodes were busy before this run /,
      /began \(n1: CPU 90% before it made a table or sent a row: another client, or the /,
      /merges of an earlier load\): these figures are not the cluster's alone/)]
]) {
  test(`cells whose nodes were ${why} are marked, and the grid says so`, async (t) => {
    const out = tempDir(t)
    const run = await grid([...VARY, '--out', out], fakeGridBenchmark(script))
    assert.equal(run.code, 0, run.stderr)
    assert.match(run.stderr, expected)
    assert.match(run.stderr, /[\d,]+ \(busy\)/)
    assert.equal(readGrid(out).cells.filter((c) => c.busy_machine).length, 4)
  })
}

test('a noisy cell far below the best blurs nothing; a round lowest in 3 of 4 cells is chance, not named',
  async (t) => {
  const out = tempDir(t)
  // Only the slowest row (batch 100) is noisy: the best and its neighbours are steady.
  const slowRowNoisy = (settings, round) => (settings.batch_size === 100 ? noisyRuns(settings, round) : 1)
  const run = await grid([...VARY, '--repeat', '3', '--out', out], fakeGridBenchmark({ noise: slowRowNoisy }))
  assert.equal(run.code, 0, run.stderr)
  const saved = readGrid(out)
  assert.equal(saved.undecided, null, saved.undecided && saved.undecided.why)
  assert.deepEqual(saved.recommended.settings, { batch_size: 2000, concurrent_requests: 16 })
  const { binomialTail } = require('../../../lib/sweep/grid/noise')
  // Each of three rounds the lowest of a cell one time in three: 3 of 4 cells happens 11% of the time for one round.
  assert.equal(Math.round(binomialTail(4, 3, 1 / 3) * 1000) / 1000, 0.111)
  assert.ok(binomialTail(16, 16, 1 / 3) * 3 < 1e-6)
})

// Issue 47: a grid on a table of realistic size.
test('--prefill: every run fills only what is missing and never drops the table; refused with the options it sets',
  async (t) => {
  const bench = fakeGridBenchmark()
  const run = await grid([...VARY, '--prefill', '1000000', '--out', tempDir(t), '--', '--duration', '10s'], bench)
  assert.equal(run.code, 0, run.stderr)
  assert.ok(bench.calls.every((args) => args.join(' ').includes('--prefill 1000000 --no-drop_table')),
    bench.calls[0].join(' '))
  for (const [argv, message] of [
    [[...VARY, '--prefill', '10', '--out', tempDir(t), '--', '--drop_table'],
      /--prefill of the grid sets --prefill and --no-drop_table of every run/],
    [[...VARY, '--workload', 'query', '--prefill', '10', '--out', tempDir(t), '--', '--queries_config',
      'queries/select1.yml'], /--prefill fills the ingest's table/]
  ]) {
    const refused = await grid(argv, fakeGridBenchmark())
    assert.equal(refused.code, 2)
    assert.match(refused.stderr, message)
  }
})

// Issue 57 (item 14): the first run of a --prefill grid filled the table too; no cell takes that long.
test('the time left leaves out the run that filled the table', async (t) => {
  const stderr = sink()
  // The first run takes 100 s (it filled the table), every other 10 s.
  const times = [0, 100_000]
  for (let i = 1; i < 16; i++) times.push(100_000 + (i - 1) * 10_000, 100_000 + i * 10_000)
  let call = 0
  const code = await main([...VARY, '--prefill', '1000000', '--out', tempDir(t), '--', '--duration', '10s'],
    { stderr, stdout: sink(), signals: signals(), run: fakeGridBenchmark().run, now: () => times[call++],
      processAlive: () => false })
  assert.equal(code, 0, stderr.text)
  // After the filling run and one more: 14 runs left at 10 s each (2 min), not at the 55 s the two average (13 min).
  assert.match(stderr.text, /\[cell 3 of 16\] batch_size 100, concurrent_requests 16 — about 2 min left/)
  assert.match(stderr.text, /\[cell 2 of 16\] batch_size 100, concurrent_requests 4\n/,
    'no estimate from the filling run alone')
})
