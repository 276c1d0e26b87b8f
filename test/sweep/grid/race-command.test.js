'use strict'

// A racing grid (--precision, --budget) with the scripted benchmark (test/helpers/grid-model.js): no child processes,
// no clock but the one each run moves by 5 s.

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { EventEmitter } = require('node:events')
const { main } = require('../../../lib/sweep/grid/command')
const { fakeGridBenchmark, BATCH, FLIGHT } = require('../../helpers/grid-model')
const { memoryStream: sink } = require('../../helpers/memory-stream')
const { tempDir } = require('../../helpers/temp-files')

const VARY = ['--vary', 'batch_size=2000,5000', '--vary', 'concurrent_requests=4,16']
const readGrid = (out) => JSON.parse(fs.readFileSync(path.join(out, 'grid.json'), 'utf8'))

async function grid (argv, bench) {
  const stderr = sink()
  let clock = 0
  const code = await main(argv, { stderr, stdout: sink(), signals: Object.assign(new EventEmitter(),
    { interrupted: false }), run: bench.run, now: () => (clock += 5000), processAlive: () => false })
  return { code, stderr: stderr.text }
}

// The machine: every run of a round (the fake counts a cell's runs as its rounds) ±30% alike; each run its own ±0.4%.
const DRIFT = [1, 0.7, 1.3, 0.8, 1.2, 0.9, 1.1, 0.75, 1.25, 0.95, 1.05, 0.85, 1.15]
const jitter = (settings, round) => 1 + ((settings.batch_size / 1000 + settings.concurrent_requests * 3 + round * 7) %
  9 - 4) / 1000
const base = (s) => BATCH[s.batch_size] * FLIGHT[s.concurrent_requests]

test('a race whose cells separate: the cells 2.5%, 12.5% and 15% below the leader are dropped after round 3 with ' +
  'why, though the machine drifts by ±30% a round; one cell left stops it', async (t) => {
  const out = tempDir(t)
  const bench = fakeGridBenchmark({ noise: (s, round) => DRIFT[(round - 1) % DRIFT.length] * jitter(s, round) })
  const run = await grid([...VARY, '--precision', '5%', '--budget', '10m', '--out', out, '--', '--duration', '10s'],
    bench)
  assert.equal(run.code, 0, run.stderr)
  assert.match(run.stderr, /^grid: 4 cells \(batch_size 2 × concurrent_requests 2\), racing: every cell once a round /m)
  assert.match(run.stderr, /^\[round 3, cell 4 of 4\] batch_size 5000, concurrent_requests 16$/m)
  const saved = readGrid(out)
  const dropped = saved.race.dropped.map((d) => [d.settings.batch_size, d.settings.concurrent_requests, d.round])
  assert.deepEqual(dropped.sort(), [[2000, 16, 3], [2000, 4, 3], [5000, 4, 3]])
  const why = Object.fromEntries(saved.race.dropped.map((d) => [d.id, d.why]))
  assert.match(why['batch_size-2000_concurrent_requests-16'],
    /^2\.5% below batch_size 5000, concurrent_requests 16 over 3 rounds \(its interval -[\d.]+% \.\. -[\d.]+%, paired /)
  assert.deepEqual(saved.race.survivors, ['batch_size-5000_concurrent_requests-16'])
  assert.deepEqual(saved.race.stop, { reason: 'one left',
    text: 'one cell left: batch_size 5000, concurrent_requests 16' })
  assert.equal(saved.complete, true)
  assert.deepEqual(saved.cells.map((c) => c.runs.length), [3, 3, 3, 3])
  // Unpaired, the machine's drift hides every difference: each cell's runs span the others'.
  const spans = saved.cells.map((c) => [Math.min(...c.runs.map((r) => r.rows_per_sec)),
    Math.max(...c.runs.map((r) => r.rows_per_sec))])
  assert.ok(spans.every(([low]) => spans.every(([, high]) => low < high)))
  assert.match(run.stderr, /^race: 3 rounds; 1 of 4 cells left, 3 dropped \(ruled out below\); the leader's 95% /m)
  assert.match(run.stderr, /^ruled out: .*\(dropped in round 3: /m)
  assert.equal(saved.best.id, 'batch_size-5000_concurrent_requests-16', 'a dropped cell is never best')
})

test('a race whose cells never separate: none dropped; at the budget the cells are equivalent within noise, and the ' +
  'best-bounded one carries the figure', async (t) => {
  const out = tempDir(t)
  // Every cell at 300,000 rows/s on the drifting machine.
  const bench = fakeGridBenchmark({ noise: (s, round) => (300_000 / base(s)) * DRIFT[(round - 1) % DRIFT.length] *
    jitter(s, round) })
  const run = await grid([...VARY, '--budget', '2m', '--out', out, '--', '--duration', '10s'], bench)
  assert.equal(run.code, 0, run.stderr)
  const saved = readGrid(out)
  assert.deepEqual(saved.race.dropped, [])
  assert.equal(saved.race.survivors.length, 4)
  assert.equal(saved.race.stop.reason, 'budget')
  assert.equal(saved.recommended, null)
  assert.equal(saved.equivalent.cells.length, 4)
  assert.equal(saved.equivalent.text, 'these cells are equivalent within noise; any of them')
  const bestBounded = saved.cells.filter((c) => c.ci95).reduce((a, c) => (c.ci95.low > a.ci95.low ? c : a))
  assert.equal(saved.equivalent.id, bestBounded.id)
  assert.match(run.stderr, /^equivalent within noise: 4 cells \(.*\): any of them; the best bounded, /m)
})

test('a race stops at its precision: cells alike on a quiet machine, the leader\'s interval within ±5% after 3 ' +
  'rounds', async (t) => {
  const out = tempDir(t)
  const bench = fakeGridBenchmark({ noise: (s, round) => (300_000 / base(s)) * jitter(s, round) })
  const run = await grid([...VARY, '--precision', '5%', '--out', out, '--', '--duration', '10s'], bench)
  assert.equal(run.code, 0, run.stderr)
  const saved = readGrid(out)
  assert.equal(saved.race.stop.reason, 'precision')
  assert.equal(saved.race.rounds, 3)
  assert.equal(saved.race.budget_s, 3600, 'the default budget')
  assert.ok(saved.race.leader_interval.half_pct <= 5)
  assert.match(run.stderr, /stopped: the leader's 95% interval is within ±[\d.]+% \(±5% asked\) after 3 rounds/)
  // A resume of a finished race runs nothing more; one asking a grid of fixed rounds of its folder is refused.
  const again = await grid([...VARY, '--precision', '5%', '--out', out, '--', '--duration', '10s'], bench)
  assert.equal(again.code, 0, again.stderr)
  const fixed = await grid([...VARY, '--repeat', '3', '--out', out, '--', '--duration', '10s'], bench)
  assert.equal(fixed.code, 2)
  assert.match(fixed.stderr, /holds a race: give --precision or --budget to resume it, or another --out/)
})

test('a race whose first round ran 15% slow in every cell (a warming cluster) says so and still decides: its ' +
  'cells are judged round by round', async (t) => {
  const out = tempDir(t)
  const bench = fakeGridBenchmark({ noise: (s, round) => (300_000 / base(s)) * (round === 1 ? 0.85 : 1) *
    jitter(s, round) })
  const run = await grid([...VARY, '--precision', '10%', '--out', out, '--', '--duration', '10s'], bench)
  assert.equal(run.code, 0, run.stderr)
  const saved = readGrid(out)
  assert.equal(saved.round_effect.round, 1)
  assert.match(run.stderr, /^rounds: round 1 was [\d.]+% below .*; the race judged each cell against the leader /m)
  assert.ok(saved.recommended !== null || saved.equivalent !== null, JSON.stringify(saved.undecided))
  assert.doesNotMatch(JSON.stringify(saved.undecided ?? {}), /round 1/, 'the slow round undecides no race')
})

test('--precision and --budget are checked: one line each, exit 2', async (t) => {
  for (const [args, pattern] of [
    [['--precision', '0%'], /--precision must be a percentage above 0 and below 50, such as 5% \(got '0%'\)/],
    [['--precision', 'x'], /--precision must be a percentage/],
    [['--budget', '10s'], /--budget must be between 1m and 720h \(got '10s'\)/]
  ]) {
    const run = await grid([...VARY, ...args, '--out', tempDir(t), '--', '--duration', '1s'], fakeGridBenchmark())
    assert.equal(run.code, 2, run.stderr)
    assert.match(run.stderr, pattern)
    assert.equal(run.stderr.trim().split('\n').length, 1, run.stderr)
  }
})

test('sizing over a race whose cells never separated: a figure to plan with, the lower end of the best-bounded ' +
  'cell\'s interval less the headroom, and the words that any of the cells will do', async (t) => {
  const { sizingOf } = require('../../../lib/reports/sizing')
  const { pointsOfFiles } = require('../../../lib/reports/sizing/inputs')
  const out = tempDir(t)
  const bench = fakeGridBenchmark({ noise: (s, round) => (300_000 / base(s)) * (1 + (round % 3 - 1) * 0.02) *
    jitter(s, round) })
  const run = await grid([...VARY, '--budget', '1m', '--out', out, '--', '--duration', '10s'], bench)
  assert.equal(run.code, 0, run.stderr)
  const saved = readGrid(out)
  assert.equal(saved.recommended, null, run.stderr)
  const e = saved.equivalent
  assert.ok(e && e.ci95.low > 0, JSON.stringify(e))
  const points = pointsOfFiles([out])
  const shape = sizingOf(points, { headroomPct: 20 }).groups[0].shapes[0]
  assert.ok(Math.abs(shape.planning.per_sec - e.ci95.low * 0.8) < 0.01, String(shape.planning.per_sec))
  assert.match(shape.planning.rule,
    /^20% below the lower end of the 95% interval of batch_size \d+, concurrent_requests /)
  assert.match(shape.planning.rule, /the best bounded of 4 cells equivalent within noise \(these cells are equivalent /)
})
