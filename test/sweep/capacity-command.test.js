'use strict'

// One step of the capacity search with a fake benchmark: no child processes.

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { EventEmitter } = require('node:events')
const { stepRunner } = require('../../lib/sweep/capacity-run')
const { BenchmarkOptions } = require('../../lib/cli/benchmark-options')
const { tempDir } = require('../helpers/temp-files')
const { memoryStream: sink } = require('../helpers/memory-stream')
const { joined } = require('../helpers/patterns')

test('a step that cannot reach the cluster names the step before it when that one lost the cluster', async (t) => {
  const out = tempDir(t)
  fs.mkdirSync(path.join(out, 'runs'))
  const config = { workload: 'ingest', benchmark: BenchmarkOptions.parse([]), durationMs: 10_000, warmupMs: 1000, out }
  const calls = []
  // The first step's load brings the node down (as a 512 MB node answered OutOfMemoryError, then died); the second
  // finds nobody.
  const run = async ({ args, resultFile, logFile }) => {
    calls.push(args)
    if (calls.length === 1) {
      fs.writeFileSync(resultFile, JSON.stringify({ workload: 'ingest', rows_ok: 40_000, rows_failed: 20_000,
        events: [{ at_s: 20.237, kind: 'host_down', host: 'http://db1:4200' }],
        errors: [
          { code: 'ECLOSED', in_doubt: true, message: 'connection closed before the answer arrived', count: 250_000 },
          { code: 5000, status: 500, message: 'OutOfMemoryError[Java heap space]', count: 20_000 }] }))
      fs.writeFileSync(logFile, 'report\n')
      return { code: 1 }
    }
    fs.writeFileSync(logFile, 'appClusterIngest.js: error: cannot reach CrateDB: connection refused\n')
    return { code: 3 }
  }
  const step = stepRunner(config, { stderr: sink(), signals: Object.assign(new EventEmitter(), { interrupted: false }),
    run })
  assert.equal((await step(4000)).result.rows_ok, 40_000)
  const stopped = await step(8000)
  assert.equal(stopped.exitCode, 3)
  assert.match(stopped.stop, joined(
    /^the benchmark could not run at --rate 8000 \(exit code 3\): appClusterIngest\.js: error: cannot reach CrateDB: /,
    /connection refused; the run before it \(--rate 4000\) lost http:\/\/db1:4200 at 20\.24 s, /,
    /the cluster answering OutOfMemoryError\[Java heap space\] \(20,000 rows\) before$/))
  assert.ok(calls[1].includes('--no-drop_table'), 'a later step keeps the table')
})

test('a search that comes down to a rate its --duration cannot hold ends there, saying so, without running it',
  async (t) => {
    const out = tempDir(t)
    fs.mkdirSync(path.join(out, 'runs'))
    const config = { workload: 'ingest',
      benchmark: BenchmarkOptions.parse(['--processes', '2', '--batch_size', '1000']), durationMs: 1000,
      warmupMs: 200, out }
    const calls = []
    const step = stepRunner(config, { stderr: sink(), signals: Object.assign(new EventEmitter(),
      { interrupted: false }), run: async (args) => calls.push(args) })
    const stopped = await step(1250)
    assert.deepEqual(calls, [], 'no run of a step that cannot be measured')
    assert.equal(stopped.exitCode, undefined, 'the search ends with what it found')
    assert.match(stopped.stop, /^no step at --rate 1250: --rate 1250 over 2 processes sends a request of 1000 every /)
  })

// Issue 57 (item 7): one search a folder.
test('a second search on the same --out is refused in one line while the first runs', async (t) => {
  const { main } = require('../../lib/sweep/capacity-command')
  const out = tempDir(t)
  // A search of this tool as /proc shows one: a node process whose command line names crate-bench.
  const other = require('node:child_process').spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)',
    'bin/crate-bench.js'], { stdio: 'ignore' })
  t.after(() => other.kill())
  fs.writeFileSync(path.join(out, 'capacity.lock'), JSON.stringify({ pid: other.pid, host: require('node:os')
    .hostname(), started_at: '2026-11-27T10:00:00.000Z' }))
  const stderr = sink()
  const code = await main(['--slo', 'p99=1s', '--out', out], { stderr, stdout: sink(),
    signals: Object.assign(new EventEmitter(), { interrupted: false }) })
  assert.equal(code, 2)
  assert.match(stderr.text, joined(/^find-capacity\.sh: error: --out '.*' is in use by another capacity search /,
    /\(pid \d+, started 2026-11-27T10:00:00\.000Z\): one study a folder/))
  assert.ok(!fs.existsSync(path.join(out, 'capacity.jsonl')), 'nothing of the first search touched')
})
