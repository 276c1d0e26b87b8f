'use strict'

// The HTML report: written by --report at the end of a run and by `crate-bench report` from a
// saved result; one file that holds every chart and references nothing outside itself. When
// Chromium is installed it is loaded headless: every chart drawn, no error on the console.

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { withCrateTestDouble } = require('../helpers/crate-test-double')
const { runTool } = require('../helpers/run-tool')
const { tempDir, tempFile } = require('../helpers/temp-files')
const { chartsOf } = require('../../lib/reports/html')
const { inspectHtml, referencesOutside } = require('../helpers/html')

const { NO_CHROMIUM, chromium, textLayout } = require('../helpers/chromium')
const { joined } = require('../helpers/patterns')

if (NO_CHROMIUM) console.log(`# ${NO_CHROMIUM}`)

/** The report as a DOM, with the run's embedded data. */
function inspect (html) {
  const page = inspectHtml(html)
  const data = page.all.find((el) => page.attr(el, 'id') === 'run-data')
  return { ...page, data: JSON.parse(data.childNodes[0].value) }
}

function assertSelfContained (html, result) {
  const page = inspect(html)
  assert.deepEqual(page.charts, chartsOf(result).map(([id]) => `chart-${id}`), 'every chart has its place')
  assert.deepEqual(referencesOutside(page), [], 'nothing loads anything from outside the file')
  assert.ok(page.scripts.every((s) => !s.attrs.some((a) => a.name === 'src')), 'every script is inline')
  assert.equal(page.data.result.rows_ok ?? page.data.result.queries_ok, result.rows_ok ?? result.queries_ok)
  assert.deepEqual(page.data.result.timeline, result.timeline)
  return page
}

/** Loads the file in headless Chromium: the counts the page keeps in body[data-charts], [data-errors]. */
function loadInChromium (file, screenshot) {
  const dom = chromium(['--dump-dom', `file://${file}`])
  const body = /<body[^>]*data-charts="(\d+)"[^>]*data-errors="(\d+)"/.exec(dom.stdout)
  assert.ok(body, `Chromium printed no report body:\n${dom.stderr.slice(-500)}`)
  chromium([`--screenshot=${screenshot}`, `file://${file}`])
  return { charts: Number(body[1]), errors: Number(body[2]) }
}

const mixScript = () => ({
  query: (stmt) => (/^SELECT count\(\*\) FROM doc\.cpu WHERE/.test(stmt) ? { cols: ['count'], rows: [[1]],
    rowcount: 1 } : null),
  fault: ({ bulk }) => (bulk ? { delayMs: 5 } : undefined)
})

test('--report writes one self-contained file with every chart; crate-bench report makes the same from --json',
  (t) => withCrateTestDouble(mixScript(), async (double) => {
  const dir = tempDir(t)
  const mix = tempFile(t, 'mix.yml',
    '- {name: hosts, query: "SELECT count(*) FROM doc.cpu WHERE tags[\'hostname\'] = ?", ratio: 1, args: [{hostname: ' +
      '{}}]}\n')
  const html = path.join(dir, 'run.html')
  const run = await runTool('appClusterAnalytical.js', ['--queries_config', mix, '--max_queries', '300',
    '--concurrent_requests', '2', '--ingest_rate', '2000', '--ingest_batch_size', '100', '--report', html, '--json'],
      { env: double.env() })
  assert.equal(run.code, 0, run.stderr)
  assert.match(run.stderr, /HTML report written to .*run\.html/)
  const page = assertSelfContained(fs.readFileSync(html, 'utf8'), run.json)
  assert.ok(page.charts.includes('chart-query_latency'), 'a query mix has per-query latency over time')
  assert.equal(run.json.environment.cratedb_version, '6.4.3')

  const saved = path.join(dir, 'run.json')
  fs.writeFileSync(saved, run.stdout)
  const again = path.join(dir, 'again.html')
  const made = await runTool('bin/crate-bench.js', ['report', saved, '-o', again])
  assert.equal(made.code, 0, made.stderr)
  assertSelfContained(fs.readFileSync(again, 'utf8'), run.json)
  const bad = await runTool('bin/crate-bench.js', ['report', mix, '-o', again])
  assert.equal(bad.code, 2)
  assert.match(bad.stderr, /^crate-bench report: error: not a result file: .*mix\.yml: /)

  // Without -o the report is printed; the input is never overwritten; what is not a result is named, exit 2.
  const text = await runTool('bin/crate-bench.js', ['report', saved])
  assert.equal(text.code, 0, text.stderr)
  assert.match(text.stderr, /queries ok/)
  // Its header first, as the run printed one: benchmark, run, start, cluster, load.
  assert.match(text.stderr,
    joined(
      /^analytical benchmark, run \S+, started \d{4}-\d\d-\d\d \d\d:\d\d:\d\d /,
      /UTC, seed \d+\n {2}cluster: {2}http:\/\/127\.0\.0\.1:\d+ \(CrateDB /,
      /6\.4\.3, 1 node\), over HTTP\n {2}load: {5}\d+ process/))
  const onItself = await runTool('bin/crate-bench.js', ['report', saved, '-o', saved])
  assert.equal(onItself.code, 2)
  assert.match(onItself.stderr, /-o .*run\.json is the result file itself/)
  assert.equal(fs.readFileSync(saved, 'utf8'), run.stdout, 'the result file is untouched')
  const compareOnInput = await runTool('bin/crate-bench.js', ['compare', '--base', saved, '--new', saved, '-o', saved])
  assert.equal(compareOnInput.code, 2)
  assert.match(compareOnInput.stderr, /is one of the result files compared/)
  const fifo = path.join(dir, 'fifo.json')
  require('node:child_process').execFileSync('mkfifo', [fifo])
  for (const [what, args, pattern] of [
    ['/dev/zero', ['report', '/dev/zero'], /result '\/dev\/zero' is not a regular file/],
    ['a FIFO', ['compare', '--base', fifo, '--new', saved], /result '.*fifo\.json' is not a regular file/],
    ['no options', ['report', writeJson(dir, 'empty.json', { workload: 'ingest', options: {} })],
      /not a result file: .*empty\.json: no options with hosts/],
    ['a bad timeline', ['report', writeJson(dir, 'timeline.json', { ...run.json, timeline: { series: 'x' } })],
      /a timeline without its series/]
  ]) {
    const refused = await runTool('bin/crate-bench.js', args, { timeoutMs: 10_000 })
    assert.equal(refused.code, 2, `${what}: ${refused.stderr}`)
    assert.equal(refused.stderr.trimEnd().split('\n').length, 1, `${what}: one line`)
    assert.match(refused.stderr, pattern, what)
  }
}))

function writeJson (dir, name, value) {
  const file = path.join(dir, name)
  fs.writeFileSync(file, JSON.stringify(value))
  return file
}

// Long query names, a companion ingest and the cluster's nodes: the fullest page the tool draws.
const LONG_NAMES = ['hosts_by_hostname_with_a_long_name', 'second_query_long_name_abc', 'third_query_long_name_xyz',
  'fourth_query', 'fifth']

test('the report in a browser: every chart drawn, no console error, no text over another or cut off',
  { skip: NO_CHROMIUM }, (t) => withCrateTestDouble(mixScript(), async (double) => {
  const dir = tempDir(t)
  const html = path.join(dir, 'mix.html')
  const mix = tempFile(t, 'mix.yml',
    LONG_NAMES.map((name) => `- {name: ${name}, query: "SELECT count(*) FROM doc.cpu WHERE tags['hostname'] = ?", ` +
      'ratio: 0.2, args: [{hostname: {}}]}').join('\n'))
  const run = await runTool('appClusterAnalytical.js', ['--queries_config', mix, '--duration', '2s',
    '--concurrent_requests', '2', '--ingest_rate', '2000', '--ingest_batch_size', '100', '--monitor_interval', '200ms',
      '--report', html, '--json'], { env: double.env() })
  assert.equal(run.code, 0, run.stderr)
  const expected = assertSelfContained(fs.readFileSync(html, 'utf8'), run.json).charts.length
  const screenshot = path.join(dir, 'mix.png')
  const loaded = loadInChromium(html, screenshot)
  assert.deepEqual(loaded, { charts: expected, errors: 0 })
  assert.equal(fs.readFileSync(screenshot).subarray(1, 4).toString(), 'PNG')
  const layout = textLayout(html)
  assert.ok(layout.texts > 100, `${layout.texts} texts measured`)
  for (const name of LONG_NAMES) assert.ok(!layout.outside.includes(name), `the legend shows ${name}`)
  assert.deepEqual(layout.overlaps, [])
  assert.deepEqual(layout.outside, [])
}))

test('bad --report: one line, exit 2, before any SQL', () => withCrateTestDouble({}, async (double) => {
  const run = await runTool('appClusterIngest.js', ['--report', '/no/such/dir/run.html'], { env: double.env() })
  assert.equal(run.code, 2)
  assert.match(run.stderr,
    joined(
      /^appClusterIngest\.js: error: --report '\/no\/such\/dir\/run\.html': the /,
      /directory \/no\/such\/dir does not exist or cannot be written\n$/))
  assert.equal(double.statements.length, 0)
}))

test('crate-bench lists its commands, runs them, and refuses unknown ones', async () => {
  const help = await runTool('bin/crate-bench.js', ['--help'])
  assert.equal(help.code, 0)
  for (const command of ['ingest', 'query', 'report', 'compare', 'sweep']) assert.match(help.stdout,
    new RegExp(`^  ${command} `, 'm'))
  const ingestHelp = await runTool('bin/crate-bench.js', ['ingest', '--help'])
  assert.equal(ingestHelp.code, 0)
  assert.match(ingestHelp.stdout, /--batch_size/)
  const sweepHelp = await runTool('bin/crate-bench.js', ['sweep', 'batch-size', '--help'])
  assert.equal(sweepHelp.code, 0, sweepHelp.stderr)
  const unknown = await runTool('bin/crate-bench.js', ['bogus'])
  assert.equal(unknown.code, 2)
  assert.equal(unknown.stderr, "crate-bench: error: unknown command 'bogus' (see crate-bench --help)\n")
})
