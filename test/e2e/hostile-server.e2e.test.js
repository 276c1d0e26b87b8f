'use strict'

// A server that answers as an attacker would: a byte at a time, or without end. Every stage of a run is bounded
// by --timeout and by --max_answer_mb; the run keeps its report, and what it changed on the table is restored.

const test = require('node:test')
const assert = require('node:assert/strict')
const { withCrateTestDouble } = require('../helpers/crate-test-double')
const { runTool } = require('../helpers/run-tool')
const { joined } = require('../helpers/patterns')

const isSysNodes = (stmt) => /\bFROM sys\.nodes\b/.test(stmt) && !/count\(\*\)/.test(stmt)

test('every statement trickles: the host check fails within --timeout, one line, exit 3', () =>
  withCrateTestDouble({ fault: () => ({ trickleMs: 100 }) }, async (double) => {
    const run = await runTool('appClusterIngest.js', ['--timeout', '1s', '--max_rows', '100'], { env: double.env(),
      timeoutMs: 30_000 })
    assert.equal(run.code, 3, run.stderr)
    assert.match(run.stderr.trimEnd().split('\n').at(-1),
      /error: cannot reach CrateDB: no answer from http:\/\/127\.0\.0\.1:\d+ within 1000 ms \(--timeout\)$/)
  }))

test('a trickling answer mid-load: those requests time out in doubt, the run ends and reports', () =>
  withCrateTestDouble({}, async (double) => {
    let bulks = 0
    double.script.fault = ({ bulk }) => (bulk && ++bulks === 3 ? { trickleMs: 100 } : undefined)
    const run = await runTool('appClusterIngest.js', ['--timeout', '1s', '--processes', '1', '--batch_size', '100',
      '--max_rows', '1000', '--concurrent_requests', '1', '--json'], {
      env: double.env(),
      timeoutMs: 30_000
    })
    assert.equal(run.code, 1, run.stderr)
    assert.equal(run.json.rows_in_doubt, 100)
    assert.equal(run.json.rows_ok + run.json.rows_failed + run.json.rows_in_doubt, run.json.rows_sent)
    assert.match(run.stderr, /no answer from .* within 1000 ms \(--timeout\)/)
  }))

test('a huge and a trickling sys.nodes answer to the monitor: samples fail, the run and its report do not', () =>
  withCrateTestDouble({}, async (double) => {
    let samples = 0
    double.script.fault = ({ stmt }) => {
      if (!isSysNodes(stmt)) return undefined
      samples++
      return samples === 1 ? undefined : samples === 2 ? { hugeBytes: 64 * 1024 * 1024 } : { trickleMs: 100 }
    }
    const run = await runTool('appClusterIngest.js', [
      '--model', 'loadtest', '--monitor_interval', '200ms', '--max_answer_mb', '4', '--timeout', '5s',
      '--processes', '1', '--batch_size', '100', '--max_rows', '4000', '--concurrent_requests', '1', '--json'
    ], {
      env: double.env(),
      timeoutMs: 60_000
    })
    assert.equal(run.code, 0, run.stderr)
    assert.equal(run.json.rows_ok, 4000)
    assert.ok(run.json.cluster.failed_samples >= 1, JSON.stringify(run.json.cluster))
    assert.ok(samples >= 2, `${samples} sys.nodes samples asked`)
    assert.match(run.stderr, /sys\.nodes samples failed/)
    // The loadtest model turns refresh off for the run: the reset must still have been sent.
    assert.equal(double.statementsMatching(/RESET \(refresh_interval\)/).length, 1)
  }))

test('malformed 200 answers fail their rows or queries as "malformed answer"; no worker dies', async (t) => {
  const cases = [
    ['appClusterIngest.js', ['--batch_size', '3', '--max_rows', '9'], '{"results":[null,{"rowcount":1},5]}', 'rows',
      { ok: 3, failed: 6 }],
    ['appClusterIngest.js', ['--batch_size', '3', '--max_rows', '9'], 'null', 'rows', { ok: 0, failed: 9 }],
    ['appClusterAnalytical.js', ['--queries_config', 'queries/select1.yml', '--max_queries', '5'], 'null', 'queries',
      { ok: 0, failed: 5 }]
  ]
  for (const [script, args, body, unit, expected] of cases) {
    await t.test(`${script} answered ${body}`, () => withCrateTestDouble({}, async (double) => {
      let selects = 0
      // The host check and the query validation get their real answers; the load gets the malformed one.
      double.script.fault = ({ bulk,
        stmt }) => ((bulk || (stmt === 'SELECT 1' && ++selects > 2)) ? { body } : undefined)
      const run = await runTool(script, [...args, '--processes', '1', '--concurrent_requests', '1', '--json'],
        { env: double.env() })
      assert.equal(run.code, 1, run.stderr)
      assert.equal(run.json.partial, false, 'no worker died')
      assert.equal(run.json[`${unit}_ok`], expected.ok)
      assert.equal(run.json[`${unit}_failed`], expected.failed)
      assert.ok(run.json.errors.some((e) => /^malformed answer|no per-row results/.test(e.message)),
        JSON.stringify(run.json.errors))
    }))
  }
})

test('answers of the wrong shape to the ownership check: "unknown", the table kept, never undefined or NaN', () =>
  withCrateTestDouble({}, async (double) => {
    const first = await runTool('appClusterIngest.js', ['--processes', '1', '--max_rows', '100'], { env: double.env() })
    assert.equal(first.code, 0, first.stderr)
    // Every SELECT of the check answered [[1]], as a server that is not CrateDB might.
    double.script.fault = ({ stmt }) => (/^SELECT (?!1$)/.test(stmt)
      ? { body: JSON.stringify({ cols: ['x'], rows: [[1]], rowcount: 1, duration: 1 }) } : undefined)
    const second = await runTool('appClusterIngest.js', ['--processes', '1', '--max_rows', '100'],
      { env: double.env() })
    assert.equal(second.code, 3, second.stderr)
    assert.match(lastLine(second.stderr),
      joined(
        /error: whether this tool made table doc\.cpu is unknown: the answer to /,
        /doc\.crate_bench_tables has an unexpected shape \(.*\); it is kept; give --drop_table/))
    assert.doesNotMatch(second.stderr, /undefined|NaN/)
    assert.equal(double.statementsMatching(/^DROP/).length, 0)
  }))

function lastLine (stderr) {
  return stderr.trimEnd().split('\n').at(-1)
}
