'use strict'

// The sweep loop with a fake benchmark: no child processes.

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { EventEmitter } = require('node:events')
const { main, parseArgs } = require('../../lib/sweep/sweep-command')
const { SWEEPS } = require('../../lib/sweep/definitions')
const { tempDir } = require('../helpers/temp-files')

const def = (name) => ({ name, ...SWEEPS[name] })
const { memoryStream: sink } = require('../helpers/memory-stream')
const { joined } = require('../helpers/patterns')
const signals = () => Object.assign(new EventEmitter(), { interrupted: false })

/** A benchmark whose result at each value is `throughputOf(value)` queries/s; it logs every call. */
function fakeBenchmark (throughputOf, { exitCodeOf = () => 0, lostAt = () => false } = {}) {
  const calls = []
  const run = async ({ args, resultFile, logFile }) => {
    const value = Number(args[args.indexOf('--json') - 1])
    calls.push(args)
    const code = exitCodeOf(value)
    fs.writeFileSync(logFile,
      code === 3 ? 'appClusterAnalytical.js: error: cannot reach CrateDB: connection refused\n' : '')
    const perSec = throughputOf(value)
    fs.writeFileSync(resultFile, code === 3 ? '' : JSON.stringify({ workload: 'analytical', seconds: 1,
      queries_sent: perSec, queries_ok: perSec, queries_failed: 0, queries_in_doubt: 0, queries_per_sec: perSec,
        latency_ms: { p99: 5 }, partial: false,
      // A node that died under this load: its last answers a SQLSTATE, then the connection gone.
      ...(lostAt(value) ? { events: [{ at_s: 4.5, kind: 'host_down', host: 'http://db1:4200' }],
        errors: [{ code: 'XX000', message: 'OutOfMemoryError[Java heap space]', count: 3 }] } : {}) }))
    return { code, signal: null }
  }
  return { calls, run }
}

test('a ramp stops after the step that gains less than --min_gain, with the stop reason, and reports the steps run',
  async (t) => {
  const out = tempDir(t)
  const bench = fakeBenchmark((v) => ({ 1: 100, 2: 190, 4: 195, 8: 300 })[v])
  const stderr = sink()
  const code = await main(def('query-saturation'), ['--values', '1 2 4 8', '--out', out, '--', '--queries_config',
    'q.yml'], { stderr, stdout: sink(), signals: signals(), run: bench.run })
  assert.equal(code, 0, stderr.text)
  assert.deepEqual(bench.calls.map((a) => a.slice(-3)), [['--concurrent_requests', '1', '--json'],
    ['--concurrent_requests', '2', '--json'], ['--concurrent_requests', '4', '--json']])
  assert.deepEqual(bench.calls[0].slice(0, 2), ['--queries_config', 'q.yml'],
    'the benchmark options go to every run first')
  assert.match(stderr.text,
    /saturated: throughput gain below the threshold: \+2\.6% from 2 to 4 \(target at least \+5%\)/)
  assert.equal(fs.readFileSync(path.join(out, 'query-saturation.jsonl'), 'utf8').trim().split('\n').length, 3)
  assert.ok(fs.existsSync(path.join(out, 'query-saturation.csv')) && fs.existsSync(path.join(out,
    'query-saturation.summary.json')))
})

test('a benchmark that cannot run stops the sweep with its exit code and a report of the values done', async (t) => {
  const out = tempDir(t)
  const bench = fakeBenchmark(() => 100, { exitCodeOf: (v) => (v === 2000 ? 3 : 0) })
  const stderr = sink()
  const code = await main(def('batch-size'), ['--values', '1000 2000 4000', '--out', out], { stderr, stdout: sink(),
    signals: signals(), run: bench.run })
  assert.equal(code, 3)
  assert.equal(bench.calls.length, 2)
  assert.match(stderr.text,
    joined(
      /find-optimal-batch-size\.sh: error: the benchmark could not run at --batch_size /,
      /2000 \(exit code 3\): appClusterAnalytical\.js: error: cannot reach CrateDB/))
  assert.ok(fs.existsSync(path.join(out, 'batch-size.csv')))
  assert.doesNotMatch(stderr.text, /the run before it/)

  const lost = fakeBenchmark(() => 100, { exitCodeOf: (v) => (v === 2000 ? 3 : 0), lostAt: (v) => v === 1000 })
  const lostErr = sink()
  assert.equal(await main(def('batch-size'), ['--values', '1000 2000 4000', '--out', tempDir(t)], { stderr: lostErr,
    stdout: sink(), signals: signals(), run: lost.run }), 3)
  assert.match(lostErr.text, joined(
    /cannot reach CrateDB: connection refused; the run before it \(--batch_size 1000\) lost http:\/\/db1:4200 /,
    /at 4\.5 s, the cluster answering OutOfMemoryError\[Java heap space\] \(3 queries\) before\n/))
})

test('an interrupt during a run: that run is recorded as it ended, no further value runs, exit 4', async (t) => {
  const out = tempDir(t)
  const events = signals()
  const bench = fakeBenchmark(() => 100)
  const run = async (options) => {
    events.interrupted = true
    events.emit('interrupt', { signal: 'SIGTERM', count: 1 })
    return bench.run(options)
  }
  const code = await main(def('shards'), ['--values', '3 6', '--out', out], { stderr: sink(), stdout: sink(),
    signals: events, run })
  assert.equal(code, 4)
  assert.equal(bench.calls.length, 1)
})

test('options are checked before any run, in the words of the sweeps', () => {
  const errors = [
    [def('shards'), ['--step', 'rate'], '--step applies to find-query-saturation.sh only'],
    [def('query-saturation'), ['--step', 'latency'], "--step must be concurrent_requests or rate, not 'latency'"],
    [def('query-saturation'), ['--step', 'rate', '--values', '10 0'],
      "'0' is not a value for --rate: give positive numbers"],
    [def('processes'), ['--min_gain', '3'], '--min_gain applies to ramps (find-query-saturation.sh) only'],
    [def('processes'), ['--', '--processes', '4'],
      '--processes is what this script sweeps: give its values with --values'],
    [def('processes'), ['--bogus'], "unknown option --bogus (benchmark options go after '--'; see --help)"]
  ]
  for (const [d, argv, message] of errors)
    assert.throws(
      () => parseArgs(d, argv),
      (e) => e.exitCode === 2 && e.message === message,
      message
    )
  const rate = parseArgs(def('query-saturation'), ['--step', 'rate', '--max_p99_ms', '500'])
  assert.deepEqual([rate.param, rate.values[0], rate.maxP99Ms], ['rate', '50', 500])
})
