'use strict'

// crate-bench sweep grid end to end: the real benchmark against the CrateDB test double, whose answers are scripted
// to take time as a cluster's do (longer for a larger batch, much longer when crowded past four requests), so that
// the grid's verdicts come from measured runs. Then crate-bench sizing reads the grid's folder.

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { XMLValidator } = require('fast-xml-parser')
const { withCrateTestDouble } = require('../helpers/crate-test-double')
const { runTool } = require('../helpers/run-tool')
const { tempDir } = require('../helpers/temp-files')
const { joined } = require('../helpers/patterns')

// An answer takes 5 ms + 1 ms per 10 rows; past four requests at once, (in flight / 4)² as long: four in flight is
// the sweet spot, four times the rows a second of one or sixteen, and a batch of 200 carries 2.8 times the rows a
// second of a batch of 20. Answers that slow make the cells' differences the cluster's, not the client's start-up.
const CROWDED = {
  fault: ({ bulk, rows, inFlight }) => (bulk
    ? { delayMs: (5 + rows / 10) * Math.max(1, inFlight / 4) ** 2 }
    : undefined)
}

const SWEET_SPOT = { batch_size: 200, concurrent_requests: 4 }
const GRID = ['--vary', 'batch_size=20,200', '--vary', 'concurrent_requests=1,4,16']
const BENCH = ['--', '--processes', '1', '--max_rows', '8000']
const readGrid = (out) => JSON.parse(fs.readFileSync(path.join(out, 'grid.json'), 'utf8'))

test('a grid against a crowded cluster: every cell a run on a fresh table, the best cell where the cluster is ' +
  'fastest, a resume that runs nothing more, sizing from its folder', (t) => withCrateTestDouble(CROWDED,
    async (double) => {
  const out = tempDir(t)
  const run = await runTool('scripts/find-grid.sh', [...GRID, '--out', out, ...BENCH], { env: double.env(),
    timeoutMs: 120_000 })
  assert.equal(run.code, 0, run.stderr)
  const grid = readGrid(out)
  assert.equal(grid.cells.length, 6)
  const clean = (c) => c.runs.length === 1 && c.runs[0].exit_code === 0 && c.rows_per_sec > 0 && c.failed === 0
  assert.ok(grid.cells.every(clean), JSON.stringify(grid.cells))
  assert.equal(double.bulkRowsReceived, 6 * 8000, 'every cell its rows, exactly')
  assert.equal(double.statementsMatching(/^CREATE TABLE IF NOT EXISTS "doc"\."cpu"/).length, 6,
    'each cell on a table of its own making')
  assert.ok(grid.cells.every((c) => c.table_at_start.length === 1 && c.table_at_start[0].docs === 0),
    'each cell started from an empty table')
  const perSec = Object.fromEntries(grid.cells.map((c) => [c.id, c.rows_per_sec]))
  const fastest = grid.cells.reduce((a, c) => (c.rows_per_sec > a.rows_per_sec ? c : a))
  assert.deepEqual(fastest.settings, SWEET_SPOT, `the double's sweet spot measured fastest: ${JSON.stringify(perSec)}`)
  // A loaded machine can hold the generator's event loop past the saturation mark: then the fastest cell is ruled
  // out for that, said so, and the best is the fastest of the cells the runs stand behind.
  const expectedBest = fastest.excluded === null
    ? fastest
    : grid.cells.filter((c) => c.excluded === null).reduce((a, c) => (c.rows_per_sec > a.rows_per_sec ? c : a))
  if (fastest.excluded !== null) assert.equal(fastest.excluded, 'the load generator was saturated')
  assert.deepEqual(grid.best.settings, expectedBest.settings, JSON.stringify(perSec))
  assert.ok(grid.cells.every((c) => c.runs[0].cluster && c.runs[0].cluster.nodes === 1),
    'every run says what cluster it measured')
  assert.equal(XMLValidator.validate(fs.readFileSync(path.join(out, 'grid.svg'), 'utf8')), true)
  assert.match(fs.readFileSync(path.join(out, 'grid.html'), 'utf8'),
    /crate-bench grid: batch_size × concurrent_requests/)
  const best = expectedBest.settings
  assert.match(run.stderr,
    new RegExp(`best: batch_size ${best.batch_size}, concurrent_requests ${best.concurrent_requests}: `))

  const again = await runTool('scripts/find-grid.sh', [...GRID, '--out', out, ...BENCH], { env: double.env() })
  assert.equal(again.code, 0, again.stderr)
  assert.match(again.stderr, /resuming: 6 of 6 cells done \(6 of 6 runs\); 0 left/)
  assert.equal(double.bulkRowsReceived, 6 * 8000, 'nothing run again')

  const sizing = await runTool('bin/crate-bench.js', ['sizing', out, '--json'])
  assert.equal(sizing.code, 0, sizing.stderr)
  const shape = sizing.json.groups[0].shapes[0]
  assert.deepEqual([shape.nodes, shape.cores_per_node, shape.single_result], [1, 4, false])
  assert.deepEqual([shape.best.settings.batch_size, shape.best.settings.concurrent_requests],
    [best.batch_size, best.concurrent_requests])
  assert.equal(shape.best.per_sec, grid.best.rows_per_sec)
  if (grid.recommended) assert.equal(shape.recommended.per_sec, grid.recommended.rows_per_sec)
  else assert.equal(shape.recommended, null, 'a grid that could not decide recommends nothing to sizing either')
}))

test('Ctrl-C during a grid ends the cell in progress as a run ends, keeps the cells done, and the same command ' +
  'resumes with the rest', (t) => withCrateTestDouble(CROWDED, async (double) => {
  const out = tempDir(t)
  const stopped = await runTool('scripts/find-grid.sh', [...GRID, '--out', out, ...BENCH], {
    env: double.env(),
    detached: true,
    waitFor: /\[cell 3 of 6\]/,
    whileRunning: (child) => process.kill(-child.pid, 'SIGINT'),
    timeoutMs: 120_000
  })
  assert.equal(stopped.code, 4, stopped.stderr)
  assert.match(stopped.stderr,
    /interrupted: batch_size 20, concurrent_requests 16 ended early \(its report: .*\); not counted/)
  assert.equal(readGrid(out).runs_done, 2)
  const resumed = await runTool('scripts/find-grid.sh', [...GRID, '--out', out, ...BENCH], { env: double.env(),
    timeoutMs: 120_000 })
  assert.equal(resumed.code, 0, resumed.stderr)
  assert.match(resumed.stderr, /resuming: 2 of 6 cells done \(2 of 6 runs\); 4 left/)
  assert.deepEqual(resumed.stderr.match(/\[cell \d of 6\]/g), ['[cell 3 of 6]', '[cell 4 of 6]', '[cell 5 of 6]',
    '[cell 6 of 6]'],
    'the stopped cell runs again, then the cells never started')
  assert.equal(readGrid(out).complete, true)
}))

test('scripts/find-grid.sh --help: the usage, the dimensions it varies, examples, exit codes', async () => {
  const run = await runTool('scripts/find-grid.sh', ['--help'])
  assert.equal(run.code, 0, run.stderr)
  assert.match(run.stdout,
    /^Usage: crate-bench sweep grid --vary NAME=V1,V2,… --vary NAME=V1,V2,… \[options\] \[-- benchmark options\]$/m)
  assert.match(run.stdout,
    joined(
      /--vary NAME=V1,V2,… +a dimension, given two or more times; NAME is one /,
      /of\n +batch_size, concurrent_requests, processes, shards, replicas, rate\n/))
  assert.match(run.stdout, /Examples:\n {2}crate-bench sweep grid /)
  assert.match(run.stdout, /Exit codes: 0 the grid finished/)
  assert.equal(run.stderr, '')
})

// Issue 46: a run of a study ends with the study. Its benchmark runs detached (a Ctrl-C reaches it once, from the
// grid); a grid killed outright (SIGKILL) used to leave it loading the cluster beside the resumed study.
test('a grid killed with SIGKILL leaves no benchmark running: the run notices its parent is gone and stops',
  (t) => withCrateTestDouble(CROWDED, async (double) => {
  const { childPids } = require('../helpers/run-tool')
  const out = tempDir(t)
  let benchmark = null
  const killed = await runTool('scripts/find-grid.sh', [...GRID, '--out', out, '--', '--processes', '1', '--duration',
    '60s', '--warmup', '0'], {
    env: double.env(),
    waitFor: /\[cell 1 of 6\]/,
    whileRunning: async (child) => {
      // The grid's child is the benchmark's master once it has started loading.
      for (let i = 0; i < 100 && !benchmark; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100))
        const pids = childPids(child.pid)
        if (pids.length > 0 && double.bulkRowsReceived > 0) benchmark = pids[0]
      }
      process.kill(child.pid, 'SIGKILL')
    },
    timeoutMs: 60_000
  })
  assert.equal(killed.signal, 'SIGKILL')
  assert.ok(benchmark, 'the benchmark had started')
  const alive = () => {
    try {
      process.kill(benchmark, 0)
      return true
    } catch {
      return false
    }
  }
  for (let i = 0; i < 300 && alive(); i++) await new Promise((resolve) => setTimeout(resolve, 100))
  assert.equal(alive(), false, 'the benchmark stopped after its grid died')
  const log = fs.readFileSync(path.join(out, 'runs', 'batch_size-20_concurrent_requests-1-r1.log'), 'utf8')
  assert.match(log, /the end of the study that started this run/)
  const rows = double.bulkRowsReceived
  await new Promise((resolve) => setTimeout(resolve, 500))
  assert.equal(double.bulkRowsReceived, rows, 'nothing loads the cluster any more')
}))

// Issue 67: a CI gate must not pass a cluster that stored nothing. A grid, a race and a sweep whose every run had its
// rows rejected exit 1, as one ingest against the same server does; requests never answered are in doubt on the
// cell's line, never "0 failed" alone.
test('a grid, a race and a sweep whose every run stored nothing exit 1; lost answers are in doubt on the cell line',
  (t) => withCrateTestDouble({ rejectRow: () => true }, async (double) => {
    const small = ['--vary', 'batch_size=20,40', '--vary', 'concurrent_requests=1,2']
    const bench = ['--', '--processes', '1', '--max_rows', '200']
    const grid = await runTool('scripts/find-grid.sh', [...small, '--out', tempDir(t), ...bench],
      { env: double.env(), timeoutMs: 120_000 })
    assert.equal(grid.code, 1, grid.stderr)
    assert.match(grid.stderr, /crate-bench sweep grid: no run got a single row stored \(exit 1\)/)
    const race = await runTool('scripts/find-grid.sh', [...small, '--precision', '5%', '--budget', '1m',
      '--no-warmup_run', '--out', tempDir(t), ...bench], { env: double.env(), timeoutMs: 120_000 })
    assert.equal(race.code, 1, race.stderr)
    assert.match(race.stderr, /no run got a single row stored \(exit 1\)/)
    const sweep = await runTool('scripts/find-optimal-batch-size.sh', ['--values', '20 40', '--out', tempDir(t),
      '--', '--processes', '1', '--max_rows', '200'], { env: double.env(), timeoutMs: 120_000 })
    assert.equal(sweep.code, 1, sweep.stderr)
    assert.match(sweep.stderr, /no run got a single row stored \(exit 1\)/)
  }))

test('a grid against a server that never answers a batch: every row in doubt on its cell\'s line, exit 1',
  (t) => withCrateTestDouble({ fault: ({ bulk }) => (bulk ? 'hang' : undefined) }, async (double) => {
    const run = await runTool('scripts/find-grid.sh', ['--vary', 'batch_size=20,40', '--vary',
      'concurrent_requests=1,2', '--out', tempDir(t), '--', '--processes', '1', '--duration', '2s', '--warmup', '0',
      '--timeout', '1s'], { env: double.env(), timeoutMs: 120_000 })
    assert.equal(run.code, 1, run.stderr)
    assert.match(run.stderr, /rows\/s, p99 [^\n]*, 0 failed, [0-9,]+ in doubt/)
    assert.doesNotMatch(run.stderr, /0 failed\n/)
    assert.match(run.stderr, /no run got a single row stored \(exit 1\)/)
  }))
