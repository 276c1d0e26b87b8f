'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { welch, studentTCdf, studentTQuantile } = require('../../../lib/reports/compare/welch')
const { compareRuns, regressions } = require('../../../lib/reports/compare')
const { runTool } = require('../../helpers/run-tool')
const { tempDir } = require('../../helpers/temp-files')
const { inspectHtml, referencesOutside } = require('../../helpers/html')
const { withCrateTestDouble } = require('../../helpers/crate-test-double')
const { NO_CHROMIUM, chromium, textLayout } = require('../../helpers/chromium')
const { runsText, changeText, intervalText, optionDifferenceText } = require('../../../lib/reports/compare/wording')

const run = (perSec, p99, failed = 0) => ({
  workload: 'ingest',
  options: { hosts: ['http://127.0.0.1:4200'] },
  seconds: 1,
  rows_sent: perSec + failed,
  rows_ok: perSec,
  rows_per_sec: perSec,
  rows_failed: failed,
  rows_in_doubt: 0,
  requests: 10,
  errors: [],
  workers: [],
  client: {},
  latency_ms: { p50: p99 / 4, p99, p999: p99 * 1.5 }
})

test('Student\'s t and Welch\'s test agree with the tables', () => {
  assert.equal((2 * (1 - studentTCdf(2.228, 10))).toFixed(3), '0.050')
  assert.equal(studentTQuantile(0.975, 10).toFixed(3), '2.228')
  assert.equal(studentTQuantile(0.975, 1e7).toFixed(3), '1.960')
  // [10, 11, 12] against [13, 14, 15]: t = 3.674 with 4 degrees of freedom.
  const w = welch([10, 11, 12], [13, 14, 15])
  assert.equal(w.pValue.toFixed(4), '0.0213')
  assert.equal(w.df, 4)
  assert.deepEqual([w.low.toFixed(3), w.high.toFixed(3)], ['0.733', '5.267'])
})

test('verdicts: better, worse, no significant difference; with fewer than 3 runs, no verdict', () => {
  const base = [run(40_000, 100), run(41_000, 104), run(39_500, 98)]
  const faster = [run(45_000, 100), run(46_000, 97), run(45_500, 103)]
  const c = compareRuns(base, faster)
  const of = (name) => c.figures.find((f) => f.figure === name)
  assert.equal(of('rows/s').verdict, 'better')
  assert.equal(of('rows/s').change_pct, 13.3, '45,500 against 40,166.67 rows/s')
  assert.ok(of('rows/s').ci_pct[0] > 0 && of('rows/s').ci_pct[1] > of('rows/s').ci_pct[0])
  assert.equal(of('p99 ms').verdict, 'no significant difference')
  const slower = compareRuns(base, [run(30_000, 200), run(31_000, 210), run(29_000, 190)])
  assert.deepEqual(slower.figures.filter((f) => f.verdict === 'worse').map((f) => f.figure), ['rows/s', 'p50 ms',
    'p99 ms', 'p99.9 ms'])
  assert.deepEqual(regressions(slower, 30).map((f) => f.figure), ['p50 ms', 'p99 ms', 'p99.9 ms'],
    'rows/s fell by 25%, latencies doubled')
  const few = compareRuns([run(1, 1), run(1, 1)], [run(2, 2), run(2, 2), run(2, 2)])
  assert.equal(few.judged, false)
  // Not judged, once for all (the note), and each figure still says which way it went.
  assert.deepEqual(few.figures.slice(0, 2).map((f) => [f.figure, f.verdict]),
    [['rows/s', 'better, not judged'], ['p50 ms', 'worse, not judged']])
})

test('a comparison says what it compared; options that follow from --protocol are not differences', () => {
  const { sidesText } = require('../../../lib/reports/compare/wording')
  const httpRun = { ...run(40_000, 100), started_at: '2026-11-26T10:00:05.123Z' }
  httpRun.options = { protocol: 'http', batch_size: 1000, run_id: 'r-http' }
  const pgRun = { ...run(30_000, 80), started_at: '2026-11-26T10:05:00.000Z' }
  pgRun.options = { protocol: 'pg', pg_insert: 'batch', pg_port: 5432, batch_size: 1000, run_id: 'r-pg' }
  const c = compareRuns([httpRun], [pgRun], { baseNames: ['http-1.json'], newNames: ['pg-1.json'] })
  assert.deepEqual(c.option_differences.map((d) => d.option), ['protocol'])
  assert.equal(sidesText(c.sides), 'base: http-1.json (run r-http, 2026-11-26 10:00 UTC)\n' +
    'new: pg-1.json (run r-pg, 2026-11-26 10:05 UTC)\n')
  // Issue 49: the client's CPU per row, the figure an HTTP against pg comparison is about, compared too.
  const withCpu = (result, us) => ({ ...result, client: { cpu_us_per_row: us } })
  const cpu = compareRuns([withCpu(httpRun, 0.8)], [withCpu(pgRun,
    1.6)]).figures.find((f) => f.figure === 'client CPU µs/row')
  assert.ok(cpu, 'client CPU µs/row is a figure')
  assert.equal(cpu.change_pct, 100)
  assert.equal(cpu.verdict, 'worse, not judged')
})

test('the words of a comparison: runs counted right, a change from 0 named, no bare "-%"', () => {
  assert.deepEqual([runsText(1), runsText(3)], ['1 run', '3 runs'])
  const figure = (base, next, changePct, ci = null, pValue = null) => ({
    base,
    new: next,
    change_pct: changePct,
    ci_pct: ci,
    p_value: pValue
  })
  assert.equal(changeText(figure(9550.693, 9000, -5.8)), '-5.8%')
  assert.equal(changeText(figure(0, 120, null)), 'from 0 to 120')
  assert.equal(changeText(figure(0, 0, null)), 'none (0 both)')
  assert.equal(changeText(figure(null, null, null)), 'no data')
  assert.equal(intervalText(figure(10, 12, 20, [4.5, 35.25], 0.01)), '+4.5% .. +35.25%')
  assert.equal(intervalText(figure(10, 12, 20)), 'not judged')
})

test('the comparison page: numbers formatted, runs counted, the change chart with its intervals', async (t) => {
  const dir = tempDir(t)
  const write = (name, result) => {
    const file = path.join(dir, name)
    fs.writeFileSync(file, JSON.stringify(result))
    return file
  }
  const one = await runTool('bin/crate-bench.js', ['compare', '--base', write('b.json', run(9550.693, 100)), '--new',
    write('n.json', run(9000.5, 90, 4)), '-o', path.join(dir, 'one.html')])
  assert.equal(one.code, 0, one.stderr)
  const onePage = fs.readFileSync(path.join(dir, 'one.html'), 'utf8')
  assert.match(onePage, /<h1>Base \(1 run\) against new \(1 run\)<\/h1>/)
  assert.match(onePage, /<td class="n">9,550\.69<\/td>/)
  assert.match(onePage, /<td class="n">from 0 to 4<\/td>/, 'failures from none to some: no percentage')
  assert.doesNotMatch(onePage, />-%</)
  assert.match(one.stderr, /│ base \(1 run\) +│ new \(1 run\)/)
  if (NO_CHROMIUM) return t.skip(NO_CHROMIUM)
  const base = [run(40_000, 100), run(41_000, 104), run(39_500, 98)].map((r, i) => write(`base-${i}.json`, r))
  const next = [run(30_000, 200), run(31_000, 210), run(29_000, 190)].map((r, i) => write(`new-${i}.json`, r))
  const html = path.join(dir, 'three.html')
  assert.equal((await runTool('bin/crate-bench.js', ['compare', '--base', ...base, '--new', ...next, '-o', html])).code,
    0)
  const dom = chromium(['--dump-dom', `file://${html}`]).stdout
  assert.match(dom, /<body[^>]*data-charts="6"[^>]*data-errors="0"/, 'the change chart and 5 figures drawn, no error')
  const layout = textLayout(html)
  assert.ok(layout.texts > 20, `${layout.texts} texts measured`)
  assert.deepEqual(layout.overlaps, [])
  assert.deepEqual(layout.outside, [])
})

test('crate-bench compare: the table, --json, -o, and --fail_on_regression as an exit code for CI', async (t) => {
  const dir = tempDir(t)
  const write = (name, result) => {
    const file = path.join(dir, name)
    fs.writeFileSync(file, JSON.stringify(result))
    return file
  }
  const base = [run(40_000, 100), run(41_000, 104), run(39_500, 98)].map((r, i) => write(`base-${i}.json`, r))
  const next = [run(30_000, 200), run(31_000, 210), run(29_000, 190)].map((r, i) => write(`new-${i}.json`, r))
  const html = path.join(dir, 'compare.html')
  const compared = await runTool('bin/crate-bench.js', ['compare', '--base', ...base, '--new', ...next, '--json', '-o',
    html])
  assert.equal(compared.code, 0, compared.stderr)
  assert.match(compared.stderr, /│ rows\/s +│ 40,166\.67 +│ 30,000 +│ -25\.3% +│ -?[\d.]+% \.\. -?[\d.]+% +│ worse +│/)
  assert.match(compared.stderr, /Welch's t-test, two-sided, p < 0\.05/)
  assert.match(compared.stderr, /^options: the same on both sides$/m)
  assert.equal(compared.json.figures.length, 5)
  const page = inspectHtml(fs.readFileSync(html, 'utf8'))
  assert.deepEqual(referencesOutside(page), [], 'the page loads nothing')
  assert.deepEqual(page.charts, ['chart-compare', ...compared.json.figures.map((_, i) => `chart-figure-${i}`)],
    'the changes, then each figure side by side')
  assert.deepEqual(compared.json.figures[0].new_values, [30_000, 31_000, 29_000])
  const gate = await runTool('bin/crate-bench.js', ['compare', '--base', ...base, '--new', ...next,
    '--fail_on_regression', '10'])
  assert.equal(gate.code, 1)
  assert.match(gate.stderr, /^regression: rows\/s -25\.3%, p50 ms \+98\.7%.*\(significantly worse by more than 10%\)$/m)
  const bad = await runTool('bin/crate-bench.js', ['compare', '--base', base[0]])
  assert.equal(bad.code, 2)
  assert.equal(bad.stderr, 'crate-bench compare: error: give at least one --base and one --new result file\n')
})

test('compare by run id: each side read from --results_table, a run being one result', () => withCrateTestDouble({},
  async (double) => {
  let delayMs = 2
  double.script.fault = ({ bulk }) => (bulk ? { delayMs } : undefined)
  const ingestRun = (runId) => runTool('appClusterIngest.js', ['--results_table', 'doc.bench_runs', '--run_id', runId,
    '--processes', '1', '--max_rows', '2000', '--batch_size', '100', '--concurrent_requests', '1', '--monitor_interval',
      '0'], { env: double.env() })
  for (const id of ['base-1', 'base-2', 'base-3']) assert.equal((await ingestRun(id)).code, 0)
  // Far slower answers: a loaded machine's stalls (tens of ms beside a study) must not blur the difference.
  delayMs = 150
  for (const id of ['new-1', 'new-2', 'new-3']) assert.equal((await ingestRun(id)).code, 0)
  const args = ['compare', '--results_table', 'doc.bench_runs', '--base_run_id', 'base-1', '--base_run_id', 'base-2',
    '--base_run_id', 'base-3', '--new_run_id', 'new-1', '--new_run_id', 'new-2', '--new_run_id', 'new-3', '--json']
  const compared = await runTool('bin/crate-bench.js', args, { env: double.env() })
  assert.equal(compared.code, 0, compared.stderr)
  assert.deepEqual([compared.json.base_runs, compared.json.new_runs, compared.json.judged], [3, 3, true])
  assert.equal(compared.json.figures.find((f) => f.figure === 'p50 ms').verdict, 'worse')
  const missing = await runTool('bin/crate-bench.js', ['compare', '--results_table', 'doc.bench_runs', '--base_run_id',
    'base-1', '--new_run_id', 'nope'], { env: double.env() })
  assert.equal(missing.code, 3)
  assert.equal(missing.stderr, 'crate-bench compare: error: doc.bench_runs has no row with run_id nope\n')
}))

test('compare says which options differ between the sides, and only those that the user set', () => {
  const sized = (batch, seed) => ({ ...run(40_000, 100), options: { batch_size: batch, shards: 6, seed,
    run_id: `r-${seed}`, hosts: ['h'] } })
  const comparison = compareRuns([sized(5000, 1), sized(5000, 2)], [sized(10000, 3), sized(10000, 4)])
  assert.deepEqual(comparison.option_differences, [{ option: 'batch_size', base: [5000], new: [10000] }],
    'seeds, run ids and hosts are each run\'s own')
  assert.equal(optionDifferenceText(comparison.option_differences[0]), 'batch_size 5000 (base) -> 10000 (new)')
  assert.deepEqual(compareRuns([sized(5000, 1)], [sized(5000, 2)]).option_differences, [])
})

test('a significant worsening from a zero base is a regression; values past the range are not judged, never NaN',
  () => {
  const base = [run(1000, 10, 0), run(1010, 10, 0), run(990, 10, 0)]
  const next = [run(1000, 10, 100), run(1010, 10, 110), run(990, 10, 120)]
  const comparison = compareRuns(base, next)
  const failed = comparison.figures.find((f) => /failed/.test(f.figure))
  assert.equal(failed.verdict, 'worse')
  assert.equal(failed.change_pct, null, 'no percentage from zero')
  assert.ok(regressions(comparison, 5).includes(failed), 'failures 0 -> 110 per run fail --fail_on_regression')

  const huge = compareRuns([run(1e308, 10), run(1e308, 10), run(1e308, 10)], [run(1, 10), run(2, 10), run(3, 10)])
  const rate = huge.figures.find((f) => f.figure === 'rows/s')
  assert.equal(rate.verdict, 'no data')
  assert.ok(!JSON.stringify(huge).includes('NaN') && !JSON.stringify(huge).includes('null%'))
})

test('the client\'s CPU is compared but never fails --fail_on_regression: it measures the load generator\'s machine',
  () => {
  const withCpu = (perSec, us) => ({ ...run(perSec, 100), client: { cpu_us_per_row: us } })
  const c = compareRuns([withCpu(40_000, 2.7), withCpu(40_100, 2.75), withCpu(39_900, 2.72)],
    [withCpu(40_050, 3.3), withCpu(40_000, 3.35), withCpu(39_950, 3.32)])
  const cpu = c.figures.find((f) => f.figure === 'client CPU µs/row')
  assert.deepEqual([cpu.verdict, cpu.of], ['worse', 'client'])
  assert.deepEqual(regressions(c, 5), [], 'a client 22% costlier is no regression of the cluster')
})

// Issue 54: no change below -100%, and busy inputs said.
test('a change\'s interval never goes below -100%; a side that ran on busy nodes is named', () => {
  // A noisy base against a collapse: Welch's interval of the change reaches far below -100%.
  const base = [run(1000, 10), run(10_000, 10), run(30_000, 10)]
  const busy = { ...run(100, 10), environment: { cluster: { nodes: 1, node_list: [{ name: 'n1', cores: 2,
    cpu_pct_before_run: 97 }], cpu_read_over_s: 3 } } }
  const comparison = compareRuns(base, [busy, run(120, 10), run(90, 10)], { baseNames: ['a', 'b', 'c'],
    newNames: ['x', 'y', 'z'] })
  const rate = comparison.figures.find((f) => f.figure === 'rows/s')
  assert.equal(rate.ci_pct[0], -100)
  assert.equal(rate.ci_clipped, true)
  assert.match(intervalText(rate), /^-100% \(clipped\) \.\. /)
  assert.deepEqual([comparison.busy.base, comparison.busy.new], [[], ['x']])
  const { busyText } = require('../../../lib/reports/compare/wording')
  assert.match(busyText(comparison.busy),
    /^warning: busy nodes in new x \(the nodes were busy before this run began \(n1: /)
  assert.equal(compareRuns(base, base).busy, null)
})
