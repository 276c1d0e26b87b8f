'use strict'

// A server that answers as an attacker would: a byte at a time, or without end. Every stage of a run is bounded
// by --timeout and by --max_answer_mb; the run keeps its report, and what it changed on the table is restored.

const test = require('node:test')
const assert = require('node:assert/strict')
const { withCrateTestDouble } = require('../helpers/crate-test-double')
const { runTool } = require('../helpers/run-tool')

const isSysNodes = (stmt) => /\bFROM sys\.nodes\b/.test(stmt) && !/count\(\*\)/.test(stmt)

test('every statement trickles: the host check fails within --timeout, one line, exit 3', () =>
  withCrateTestDouble({ fault: () => ({ trickleMs: 100 }) }, async (double) => {
    const run = await runTool('appClusterIngest.js', ['--timeout', '1s', '--max_rows', '100'], { env: double.env(), timeoutMs: 30_000 })
    assert.equal(run.code, 3, run.stderr)
    assert.match(run.stderr.trimEnd().split('\n').at(-1), /error: cannot reach CrateDB: no answer from http:\/\/127\.0\.0\.1:\d+ within 1000 ms \(--timeout\)$/)
  }))

test('a trickling answer mid-load: those requests time out in doubt, the run ends and reports', () =>
  withCrateTestDouble({}, async (double) => {
    let bulks = 0
    double.script.fault = ({ bulk }) => (bulk && ++bulks === 3 ? { trickleMs: 100 } : undefined)
    const run = await runTool('appClusterIngest.js', ['--timeout', '1s', '--processes', '1', '--batch_size', '100', '--max_rows', '1000', '--concurrent_requests', '1', '--json'], {
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
      timeoutMs: 60_000,
      onSpawn: () => {}
    })
    assert.equal(run.code, 0, run.stderr)
    assert.equal(run.json.rows_ok, 4000)
    assert.ok(run.json.cluster.failed_samples >= 1, JSON.stringify(run.json.cluster))
    assert.ok(samples >= 2, `${samples} sys.nodes samples asked`)
    assert.match(run.stderr, /sys\.nodes samples failed/)
    // The loadtest model turns refresh off for the run: the reset must still have been sent.
    assert.equal(double.statementsMatching(/RESET \(refresh_interval\)/).length, 1)
  }))
