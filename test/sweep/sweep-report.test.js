'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { XMLValidator, XMLParser } = require('fast-xml-parser')
const { main, SATURATED } = require('../../lib/sweep/sweep-report')
const { tempDir } = require('../helpers/temp-files')
const { runTool } = require('../helpers/run-tool')
const { memoryStream } = require('../helpers/memory-stream')
const { joined } = require('../helpers/patterns')

function runReport (argv) {
  const stdout = memoryStream()
  const stderr = memoryStream()
  const code = main({ argv, stdout, stderr })
  return { code, stdout: stdout.text, stderr: stderr.text }
}

const result = (ok, perSec, failed = 0) => ({ workload: 'ingest', seconds: ok / perSec, rows_sent: ok + failed,
  rows_ok: ok, rows_failed: failed, rows_in_doubt: 0, rows_per_sec: perSec, latency_ms: { p99: 20 },
    cluster: { write_rejected: failed > 0 ? 1855 : 0 }, partial: false })

function recordAll (dir, runs) {
  const file = path.join(dir, 'sweep.jsonl')
  for (const [value, code, res] of runs) {
    const resultFile = path.join(dir, `run-${value}.json`)
    if (res) fs.writeFileSync(resultFile, JSON.stringify(res))
    const r = runReport(['record', '--file', file, '--parameter', 'batch_size', '--value', String(value), '--exit_code',
      String(code), '--result', resultFile])
    assert.equal(r.code, 0, r.stderr)
  }
  return file
}

test('record appends each run and says what it measured', (t) => {
  const dir = tempDir(t)
  const file = recordAll(dir, [[500, 0, result(1000, 500)], [1000, 1, result(990, 900, 10)]])
  const lines = fs.readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l))
  assert.deepEqual(lines.map((l) => [l.value, l.exit_code, l.result.rows_ok]), [['500', 0, 1000], ['1000', 1, 990]])
  const again = runReport(['record', '--file', file, '--parameter', 'batch_size', '--value', '2000', '--exit_code', '0',
    '--result', path.join(dir, 'run-1000.json')])
  assert.match(again.stderr, /^batch_size=2000: 900 rows\/s, p99 20 ms, 10 failed\n$/)
})

test('report writes the CSV and a well-formed SVG chart, and names the sweet spot', (t) => {
  const dir = tempDir(t)
  const file = recordAll(dir, [
    [500, 0, result(1000, 500)],
    [1000, 0, result(1000, 800)],
    [2000, 0, result(1000, 820)],
    [4000, 1, result(900, 1000, 100)]
  ])
  const out = path.join(dir, 'out', 'batch')
  const r = runReport(['report', '--file', file, '--parameter', 'batch_size', '--out', out, '--json'])
  assert.equal(r.code, 0, r.stderr)
  const csv = fs.readFileSync(`${out}.csv`, 'utf8').trim().split('\n')
  assert.equal(csv.length, 5)
  assert.equal(csv[4], '4000,0.9,900,1000,22,20,100,0,0,1,false,1,1000,1000,1855')
  const svg = fs.readFileSync(`${out}.svg`, 'utf8')
  assert.equal(XMLValidator.validate(svg), true)
  const root = new XMLParser({ ignoreAttributes: false }).parse(svg).svg
  assert.equal(root['@_width'], '900')
  assert.match(svg, /sweet/)
  assert.match(svg, /100 failed/)
  assert.match(svg, /cluster write rejections/, 'the cluster\'s rejections are charted next to throughput')
  const summary = JSON.parse(r.stdout)
  assert.equal(summary.best.value, 2000, 'the fastest value with failures (4000) is not a candidate')
  assert.equal(summary.sweet_spot.value, 1000)
  assert.deepEqual(summary.with_failures, [4000])
  assert.match(r.stderr,
    /sweet spot: batch_size=1000 \(800 rows\/s\); larger values gain at most 2.5% \(threshold 5%\)/)
  assert.match(r.stderr, /values with failures \(not candidates\): 4000/)
  assert.match(r.stderr, /│ 1000 +│ 1\.25 +│ 1,000 +│ 800 +│ \+60% +│ 20 +│ 0 +│/)
})

test('values that span more than 10x go on a logarithmic axis; a narrow span stays in turn', (t) => {
  const dir = tempDir(t)
  const wide = recordAll(dir, [
    [500, 0, result(1000, 500)],
    [2000, 0, result(1000, 800)],
    [32000, 0, result(1000, 820)]
  ])
  assert.equal(runReport(['report', '--file', wide, '--parameter', 'batch_size', '--out', path.join(dir, 'wide')]).code,
    0)
  const svg = fs.readFileSync(path.join(dir, 'wide.svg'), 'utf8')
  assert.equal(XMLValidator.validate(svg), true)
  assert.match(svg, /batch_size \(log scale\)/)
  for (const label of ['500', '2k', '32k']) assert.match(svg, new RegExp(`>${label}<`),
    `a label at ${label}, a value tried`)
  assert.doesNotMatch(svg, />10k</, 'no label at a power of ten that was not tried')
  const narrowDir = tempDir(t)
  const narrow = recordAll(narrowDir, [
    [500, 0, result(1000, 500)],
    [1000, 0, result(1000, 800)],
    [2000, 0, result(1000, 820)]
  ])
  runReport(['report', '--file', narrow, '--parameter', 'batch_size', '--out', path.join(narrowDir, 'narrow')])
  const narrowSvg = fs.readFileSync(path.join(narrowDir, 'narrow.svg'), 'utf8')
  assert.doesNotMatch(narrowSvg, /log scale/)
  assert.match(narrowSvg, />2000</)
})

test('report says when the values beyond the sweet spot all failed', (t) => {
  const dir = tempDir(t)
  const file = recordAll(dir, [
    [500, 0, result(1000, 500)],
    [1000, 0, result(1000, 900)],
    [2000, 1, result(900, 1000, 100)]
  ])
  const r = runReport(['report', '--file', file, '--parameter', 'batch_size', '--out', path.join(dir, 'o')])
  assert.equal(r.code, 0, r.stderr)
  assert.match(r.stderr,
    joined(
      /sweet spot: batch_size=1000 \(900 rows\/s\); every larger value had /,
      /failures, the cluster saturates beyond it: 2000 \(100 rows failed\)$/m))
})

test('every verdict names the rule that decided it: a faster value ruled out by --max_p99_ms is named with its p99',
  (t) => {
  // As the new user's batch sweep: 10,000 was the fastest, but 5,000 and 10,000 missed --max_p99_ms and 20,000
  // only had requests the client abandoned.
  const dir = tempDir(t)
  const slow = (ok, perSec, p99) => ({ ...result(ok, perSec), latency_ms: { p99 } })
  const abandoned = { ...result(1000, 30000), rows_in_doubt: 500, abandoned_in_doubt: 500, latency_ms: { p99: 2500 } }
  const file = recordAll(dir, [
    [1000, 0, result(1000, 39704)],
    [5000, 0, slow(1000, 52000, 4100)],
    [10000, 0, slow(1000, 56898, 7300)],
    [20000, 1, abandoned]
  ])
  const r = runReport(['report', '--file', file, '--parameter', 'batch_size', '--out', path.join(dir, 'o'),
    '--max_p99_ms', '3000', '--json'])
  assert.equal(r.code, 0, r.stderr)
  assert.match(r.stderr,
    joined(
      /^best throughput: batch_size=1000 \(39,704 rows\/s\) of the values within the rules; batch_size=10000 /,
      /was faster \(56,898 rows\/s\) but is ruled out: p99 7300 ms over --max_p99_ms 3000$/m))
  assert.match(r.stderr,
    joined(
      /^sweet spot: batch_size=1000 \(39,704 rows\/s\); the larger values are ruled out: 5000 \(p99 4100 /,
      /ms over --max_p99_ms 3000\), 10000 \(p99 7300 ms over --max_p99_ms 3000\), 20000 \([^)]*\)/m))
  assert.doesNotMatch(r.stderr, /larger values only had requests the client abandoned/)
  const summary = JSON.parse(r.stdout)
  assert.deepEqual(summary.ruled_out.map((x) => x.value), [5000, 10000, 20000])
  // The chart draws the limit the verdict names.
  const svg = fs.readFileSync(path.join(dir, 'o.svg'), 'utf8')
  assert.match(svg, /--max_p99_ms 3000/)
})

test('a saturation ramp never names its saturated step the sweet spot, in the text or the chart', (t) => {
  const dir = tempDir(t)
  const file = recordAll(dir, [
    [1000, 0, result(1000, 500)],
    [2000, 0, result(1000, 800)],
    [4000, 0, result(1000, 810)],
    [8000, 0, result(1000, 812)]
  ])
  const r = runReport(['report', '--file', file, '--parameter', 'max_rows', '--out', path.join(dir, 'sat'),
    '--saturation', '--json'])
  assert.equal(r.code, 0, r.stderr)
  assert.match(r.stderr,
    joined(
      /^sweet spot: max_rows=2000 \(800 rows\/s\): the last value before the /,
      /ramp saturated at 4000 \(throughput gain below the threshold/m))
  assert.doesNotMatch(r.stderr, /not reached/)
  assert.equal(JSON.parse(r.stdout).sweet_spot.value, 2000)
})

test('with no value to choose, the report says why each was ruled out, never that a partial run lost rows it did not',
  (t) => {
  const dir = tempDir(t)
  const partial = { ...result(1000, 500), partial: true }
  const file = recordAll(dir, [
    [500, 4, partial],
    [1000, 1, result(900, 800, 100)],
    [2000, 4, { ...result(1000, 900), partial: true }]
  ])
  const r = runReport(['report', '--file', file, '--parameter', 'batch_size', '--out', path.join(dir, 'batch')])
  assert.equal(r.code, 0, r.stderr)
  assert.match(r.stderr, /no sweet spot: no value ran complete and without failures \(2 partial, 1 failed rows\)/)
  assert.doesNotMatch(r.stderr, /every value lost/)
})

test('single runs get a warning; --max_p99_ms rules values out; one value claims nothing', (t) => {
  const dir = tempDir(t)
  const slow = { ...result(1000, 900), latency_ms: { p99: 900 } }
  const file = recordAll(dir, [[500, 0, result(1000, 500)], [1000, 0, result(1000, 800)], [2000, 0, slow]])
  const r = runReport(['report', '--file', file, '--parameter', 'batch_size', '--out', path.join(dir, 'batch'),
    '--max_p99_ms', '100'])
  assert.equal(r.code, 0, r.stderr)
  assert.match(r.stderr, /values with p99 over --max_p99_ms 100 ms \(not candidates\): 2000/)
  assert.match(r.stderr, /sweet spot: batch_size=1000/)
  assert.match(r.stderr, /warning: one run per value cannot tell noise from signal .*: use --repeat 3/)
  const one = recordAll(tempDir(t), [[500, 0, result(1000, 500)]])
  const single = runReport(['report', '--file', one, '--parameter', 'batch_size', '--out', path.join(dir, 'one')])
  assert.match(single.stderr, /one value tried: nothing to compare it with/)
  assert.doesNotMatch(single.stderr, /still grows/)
})

test('--saturation: the first value where a ramp would have stopped, in find-capacity\'s terms', (t) => {
  const dir = tempDir(t)
  const file = recordAll(dir, [
    [1000, 0, result(1000, 500)],
    [2000, 0, result(1000, 800)],
    [4000, 0, result(1000, 810)],
    [8000, 1, result(900, 820, 100)]
  ])
  const r = runReport(['report', '--file', file, '--parameter', 'max_rows', '--out', path.join(dir, 'sat'),
    '--saturation', '--json'])
  assert.equal(r.code, 0, r.stderr)
  assert.match(r.stderr,
    joined(
      /^saturated at max_rows=4000: throughput gain below the /,
      /threshold: \+1\.3% from 2000 to 4000 \(target at least \+5%\)$/m))
  assert.deepEqual(JSON.parse(r.stdout).saturation, { value: 4000,
    reason: 'throughput gain below the threshold: +1.3% from 2000 to 4000 (target at least +5%)' })
})

test('check exits 10 with the reason once a step stops paying off', (t) => {
  const dir = tempDir(t)
  const file = recordAll(dir, [[1, 0, result(1000, 100)], [2, 0, result(1000, 180)]])
  assert.equal(runReport(['check', '--file', file]).code, 0)
  recordAll(dir, [[4, 0, result(1000, 182)]])
  const stop = runReport(['check', '--file', file, '--min_gain', '5'])
  assert.equal(stop.code, SATURATED)
  assert.match(stop.stdout, /throughput gain below the threshold: \+1.1% from 2 to 4/)
})

test('bad input: one line, exit 2', (t) => {
  const dir = tempDir(t)
  const missing = runReport(['report', '--file', path.join(dir, 'nope.jsonl'), '--parameter', 'x', '--out',
    path.join(dir, 'o')])
  assert.equal(missing.code, 2)
  assert.match(missing.stderr, /^sweep-report: error: cannot read .*nope\.jsonl: no such file\n$/)
  fs.writeFileSync(path.join(dir, 'bad.jsonl'), '{"value":"1"}\nnot json\n')
  assert.match(runReport(['check', '--file', path.join(dir, 'bad.jsonl')]).stderr, /line 2 is not JSON/)
  const noCommand = runReport([])
  assert.equal(noCommand.code, 2)
  assert.equal(runReport(['check', '--file', 'x', '--min_gain', 'lots']).stderr,
    'sweep-report: error: --min_gain must be a number\n')
  fs.writeFileSync(path.join(dir, 'garbage.json'), 'Error: something')
  const garbage = runReport(['record', '--file', path.join(dir, 's.jsonl'), '--parameter', 'x', '--value', '1',
    '--exit_code', '1', '--result', path.join(dir, 'garbage.json')])
  assert.equal(garbage.code, 2)
  assert.match(garbage.stderr, /the run at 1 did not print a JSON result/)
})

test('report --out where no directory can be made: one line, exit 2, at once', async (t) => {
  const file = recordAll(tempDir(t), [[500, 0, result(1000, 500)]])
  // A child process: Node 20's recursive mkdir under /proc never returns, and would hang this file.
  const run = await runTool('lib/sweep/sweep-report.js', ['report', '--file', file, '--parameter', 'batch_size',
    '--out', '/proc/no-such-dir/batch'], { timeoutMs: 20_000 })
  assert.equal(run.code, 2)
  assert.equal(run.stderr,
    "sweep-report: error: --out '/proc/no-such-dir/batch': cannot create the directory /proc/no-such-dir\n")
})

test('one verdict everywhere: a curve still climbing has no sweet spot in the text, the summary or the chart', (t) => {
  const dir = tempDir(t)
  const withP99 = (ok, perSec, p99) => ({ ...result(ok, perSec), latency_ms: { p99 } })
  // Still climbing at 20,000, but 9.9% more rows/s cost a p99 of 9.3 s instead of 2.9 s.
  const file = recordAll(dir, [[5000, 0, withP99(1000, 1000, 1000)], [10000, 0, withP99(1000, 1400, 1500)],
    [20000, 0, withP99(1000, 1538.6, 4800)]])
  const out = path.join(dir, 'batch')
  const lifted = runReport(['report', '--file', file, '--parameter', 'batch_size', '--out', out, '--json',
    '--latency_guard', '0'])
  const summary = JSON.parse(lifted.stdout)
  assert.deepEqual([summary.sweet_spot, summary.plateau_reached, summary.best.value], [null, false, 20000])
  const svg = fs.readFileSync(`${out}.svg`, 'utf8')
  assert.doesNotMatch(svg, /#2ca02c/i, 'no marker (the green pin and line) for a sweet spot not reached')
  assert.match(svg, /sweet spot: not reached/, 'the subtitle says the same as the terminal')
  assert.doesNotMatch(svg, />failures</, 'the legend shows only the marks drawn')
  assert.match(lifted.stderr,
    /sweet spot: not reached; throughput still grows by 5% or more at the largest values tried, so try larger values/)
  // With the default guard the last step's p99 jump is named, and the sweet spot is the value before it.
  const guarded = runReport(['report', '--file', file, '--parameter', 'batch_size', '--out', out, '--json'])
  assert.equal(JSON.parse(guarded.stdout).sweet_spot.value, 10000)
  assert.match(guarded.stderr,
    joined(
      /sweet spot: batch_size=10000 \(1,400 rows\/s\); batch_size=20000 is 9\.9% faster, but its /,
      /p99 is 3\.2x \(1\.5 s -> 4\.8 s\): not worth it \(--latency_guard 2; 0 lifts it\)/))
})
