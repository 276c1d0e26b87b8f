'use strict'

// --rate end to end: the open model against the CrateDB test double, with scripted delays. These
// assert what holds on any machine however loaded: exact counts, a window no shorter than the
// timetable, never more than the target. How close a run gets to its target is measured by
// `npm run bench`; the timetable itself is tested exactly on a fake clock in test/run/engine.test.js.

const test = require('node:test')
const assert = require('node:assert/strict')
const { withCrateTestDouble } = require('../helpers/crate-test-double')
const { runTool } = require('../helpers/run-tool')
const { tempFile } = require('../helpers/temp-files')
const { joined } = require('../helpers/patterns')

const withDouble = withCrateTestDouble

const queryFile = (t, text) => tempFile(t, 'mix.yml', text)

const answerSelect2 = (stmt) => (stmt === 'SELECT 2' ? { cols: ['2'], rows: [[2]], rowcount: 1 } : null)

test('analytical --rate over 2 processes: one timetable from one start, latency from the scheduled start',
  (t) => withDouble({
  query: answerSelect2,
  fault: ({ stmt }) => (stmt === 'SELECT 2' ? { delayMs: 3 } : undefined)
}, async (double) => {
  const config = queryFile(t, '- {name: two, query: "SELECT 2", ratio: 1}\n')
  // 2 processes × 300 queries at 400 queries/s in all: 1.5 s on the timetable.
  const run = await runTool('appClusterAnalytical.js', ['--queries_config', config, '--processes', '2', '--max_queries',
    '300', '--rate', '400', '--json'], { env: double.env() })
  assert.equal(run.code, 0, run.stderr)
  const r = run.json
  assert.equal(r.queries_ok, 600)
  assert.equal(r.rate.target_per_sec, 400)
  // Each process sends 300 queries at 200 queries/s from one start: 299 intervals of 5 ms at least.
  assert.ok(r.seconds >= 1.495, `${r.seconds} s`)
  // The window spans 299 intervals per process, so a whole-run figure sits a hair above 100%.
  assert.ok(r.rate.achieved_pct > 0 && r.rate.achieved_pct <= 100.5, `achieved ${r.rate.achieved_pct}% of target`)
  assert.equal(r.rate.latency_from, 'scheduled start')
  assert.ok(r.latency_ms.p50 >= 3, 'latency includes the scripted 3 ms')
  assert.match(run.stderr, /queries\/s, target \(--rate\) +│ 400/)
  assert.match(run.stderr, /client, scheduled start -> answer/)
  assert.equal(double.statementsMatching(/^SELECT 2$/).length, 601, 'one validation run plus 600 timed queries')
}))

test('ingest --rate: rows per second over all processes, batches on the timetable', () => withDouble({},
  async (double) => {
  // 100 batches of 20 rows per process at 2000 rows/s each: N requests span N - 1 intervals, so
  // a run needs about 100 requests per process before that reads under 1%.
  const run = await runTool('appClusterIngest.js', ['--processes', '2', '--batch_size', '20', '--max_rows', '2000',
    '--rate', '4000', '--json'], { env: double.env() })
  assert.equal(run.code, 0, run.stderr)
  assert.equal(run.json.rows_ok, 4000)
  assert.equal(double.bulkRowsReceived, 4000)
  // 100 batches per process at one every 10 ms: 99 intervals at least.
  assert.ok(run.json.seconds >= 0.99, `${run.json.seconds} s`)
  assert.ok(run.json.rate.achieved_pct <= 101.1, `achieved ${run.json.rate.achieved_pct}%`)
}))

test('a server that stalls under --rate: latency counts from the scheduled start, late requests are counted', (t) => {
  let queriesSeen = 0
  // The 50th query stalls for 400 ms; with one slot, the ~40 queries due meanwhile cannot start.
  const fault = ({ stmt }) => {
    if (stmt !== 'SELECT 2') return undefined
    queriesSeen++
    return queriesSeen === 50 ? { delayMs: 400 } : undefined
  }
  return withDouble({ query: answerSelect2, fault }, async (double) => {
    const config = queryFile(t, '- {name: two, query: "SELECT 2", ratio: 1}\n')
    const run = await runTool('appClusterAnalytical.js', ['--queries_config', config, '--processes', '1',
      '--concurrent_requests', '1', '--max_queries', '200', '--rate', '100', '--json'], { env: double.env() })
    assert.equal(run.code, 0, run.stderr)
    const r = run.json
    // About 40 queries fall due during the stall, and a loaded machine only adds to them.
    assert.ok(r.rate.late_requests >= 35, `${r.rate.late_requests} late`)
    assert.ok(r.latency_ms.max >= 380, `max ${r.latency_ms.max} ms`)
    // In the closed model only one query would be slow and p90 would stay near the 1 ms answers.
    assert.ok(r.latency_ms.p90 >= 50, `p90 ${r.latency_ms.p90} ms: the wait of the late queries is in the percentiles`)
  })
})

test('a target the server cannot reach: the report warns, late requests pile up, exit stays 0', (t) => withDouble({
  query: answerSelect2,
  fault: ({ stmt }) => (stmt === 'SELECT 2' ? { delayMs: 5 } : undefined)
}, async (double) => {
  const config = queryFile(t, '- {name: two, query: "SELECT 2", ratio: 1}\n')
  // One slot and 5 ms per answer: at most ~200 queries/s against a target of 1000.
  const run = await runTool('appClusterAnalytical.js', ['--queries_config', config, '--processes', '1',
    '--concurrent_requests', '1', '--max_queries', '200', '--rate', '1000', '--json'], { env: double.env() })
  assert.equal(run.code, 0, 'missing the target is a finding, not a failure')
  assert.ok(run.json.rate.achieved_pct < 40, `${run.json.rate.achieved_pct}%`)
  assert.ok(run.json.rate.late_requests > 150, `${run.json.rate.late_requests} late`)
  // One in flight at ~5 ms serves ~200/s: the report says which limit it was and what would have served 1000/s.
  const [, served,
    needed] = joined(
      /this client's 1 requests in flight per process were all busy when requests were /,
      /due \([\d,]+ late, [\d,]+ never sent\): at this latency they serve about /,
      /([\d,]+) queries\/s\. Raise --concurrent_requests to at least ([\d,]+)/).exec(run.stderr) || []
  assert.ok(served && needed, run.stderr)
  const number = (text) => Number(text.replace(/,/g, ''))
  assert.equal(number(needed), Math.ceil(1000 / run.json.rate.achieved_per_sec * 1.1))
  assert.ok(number(served) < 400)
}))

test('a flight too small for the --rate is said in the first second, above the progress line, not only at the end',
  (t) => withDouble({
  query: answerSelect2,
  fault: ({ stmt }) => (stmt === 'SELECT 2' ? { delayMs: 20 } : undefined)
}, async (double) => {
  const config = queryFile(t, '- {name: two, query: "SELECT 2", ratio: 1}\n')
  // Two in flight at 20 ms serve ~100 queries/s of the 500 asked.
  const run = await runTool('appClusterAnalytical.js', ['--queries_config', config, '--processes', '1',
    '--concurrent_requests', '2', '--rate', '500', '--duration', '3s'], { env: double.env() })
  assert.equal(run.code, 0, run.stderr)
  const early = joined(
    /warning: in the first second, 2 requests in flight per process served about ([\d,]+) queries\/s of the 500 /,
    /targeted, [\d,]+ requests due while every one was busy: raise --concurrent_requests to at least ([\d,]+)/
  ).exec(run.stderr)
  assert.ok(early, run.stderr)
  assert.ok(Number(early[1].replace(/,/g, '')) < 150 && Number(early[2].replace(/,/g, '')) >= 8, early[0])
  assert.ok(run.stderr.indexOf(early[0]) < run.stderr.indexOf('Raise --concurrent_requests'),
    'before the report says it again')
  assert.ok(!run.stderr.includes('\u001b'), 'stderr is no terminal here: no escape codes in it')
}))

test('a saturated --rate run counts the requests it never sent (dropped), and its sending time is when they went out',
  (t) => withDouble({
  query: answerSelect2,
  fault: ({ stmt }) => (stmt === 'SELECT 2' ? { delayMs: 5 } : undefined)
}, async (double) => {
  const config = queryFile(t, '- {name: two, query: "SELECT 2", ratio: 1}\n')
  // One slot and 5 ms per answer: at most ~200 queries/s of the 400 due each second for 2 s.
  const run = await runTool('appClusterAnalytical.js', ['--queries_config', config, '--processes', '1',
    '--concurrent_requests', '1', '--duration', '2s', '--rate', '400', '--threshold', 'dropped=0', '--json'],
      { env: double.env() })
  assert.equal(run.code, 5, 'the dropped=0 threshold was missed')
  const r = run.json
  assert.ok(r.rate.dropped_requests > 100, `${r.rate.dropped_requests} dropped`)
  assert.equal(r.rate.dropped_units, r.rate.dropped_requests)
  assert.equal(r.queries_sent + r.rate.dropped_requests, 800, 'every request due in the 2 s was either sent or dropped')
  assert.ok(r.sending_seconds > 1.9, `sending ${r.sending_seconds} s: until the last request went out`)
  assert.match(run.stderr,
    new RegExp('dropped requests \\(due, never sent before the end or their stage\\)\\s+│ ' +
      `${r.rate.dropped_requests.toLocaleString('en-US')} \\(`))
  assert.deepEqual(r.thresholds.map((x) => [x.threshold, x.passed, x.actual]), [['dropped=0', false,
    r.rate.dropped_requests]])
}))

test('bad --rate: one line naming it, exit 2, no SQL sent', () => withDouble({}, async (double) => {
  for (const value of ['0', '-5', 'fast', '', '0x10', '1e3', '0.0001']) {
    const run = await runTool('appClusterIngest.js', ['--rate', value], { env: double.env() })
    assert.equal(run.code, 2, `--rate '${value}': ${run.stderr}`)
    assert.equal(run.stderr.trim().split('\n').length, 1, run.stderr)
    assert.match(run.stderr,
      new RegExp('^appClusterIngest\\.js: error: --rate must be a decimal number from 0\\.001 to 1e\\+9 per second ' +
        `\\(got '${value}'\\)\\n$`))
  }
  assert.equal(double.statements.length, 0)
}))
