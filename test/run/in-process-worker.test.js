'use strict'

// A run of one process runs its worker in the master's process: the worker group drives it as it drives a forked
// one, and what it reports is the same.

const test = require('node:test')
const assert = require('node:assert/strict')
const { spawnSync } = require('node:child_process')
const { WorkerGroup } = require('../../lib/run/worker-group')
const { inProcessWorker } = require('../../lib/run/in-process-worker')
const { workersInMasterProcess, applyWorkerFlags } = require('../../lib/run/worker-placement')
const { parseOptions } = require('../../lib/cli/options')
const ingest = require('../../lib/workloads/ingest')
const { withCrateTestDouble } = require('../helpers/crate-test-double')

const CREATE = 'CREATE TABLE doc.cpu (tags OBJECT, ts TIMESTAMP, usage_user INTEGER, usage_system INTEGER, ' +
  'usage_idle INTEGER, usage_nice INTEGER, usage_iowait INTEGER, usage_irq INTEGER, usage_softirq INTEGER, ' +
  'usage_steal INTEGER, usage_guest INTEGER, usage_guest_nice INTEGER)'

function groupOf (double, args) {
  double.execute(CREATE, [])
  const options = parseOptions(ingest, ['--processes', '1', ...args], double.env())
  return new WorkerGroup({ name: 'ingest', workload: ingest, options, prepared: {}, spawnWorker: inProcessWorker })
}

test('the worker in the master\'s process runs the load and reports every row, then ends as a process would',
  () => withCrateTestDouble({ trackKeys: true }, async (double) => {
    const group = groupOf(double, ['--max_rows', '3000', '--batch_size', '1000'])
    const exits = []
    group.on('worker-exit', (exit) => exits.push(exit))
    group.start()
    assert.equal(group.workers[0].child.pid, process.pid)
    assert.equal(await group.whenReady(), true)
    group.go({ startAt: Date.now() })
    const outcome = await group.whenDone()
    assert.equal(outcome.totals.all.ok, 3000)
    assert.deepEqual(outcome.workers.map((w) => [w.reported, w.exit.code]), [[true, 0]])
    assert.equal(outcome.incidents.length, 0)
    assert.equal(outcome.resources.length, 1)
    assert.ok(outcome.resources[0].cpuMicros > 0)
    assert.equal(double.keys.size, 3000)
    assert.equal(exits.length, 1)
  }))

test('killed, it abandons its requests and counts as died by the signal: the run is partial',
  () => withCrateTestDouble({ fault: ({ bulk }) => (bulk ? 'hang' : undefined) }, async (double) => {
    const group = groupOf(double, ['--max_rows', '100000', '--batch_size', '100', '--concurrent_requests', '2'])
    group.start()
    await group.whenReady()
    group.go({ startAt: Date.now() })
    while (double.hanging.size === 0) await new Promise((resolve) => setTimeout(resolve, 10))
    group.workers[0].child.kill('SIGKILL')
    const outcome = await group.whenDone()
    assert.deepEqual(outcome.workers.map((w) => [w.reported, w.exit.signal]), [[false, 'SIGKILL']])
    assert.ok(outcome.incidents.some((i) => i.kind === 'worker_died'), JSON.stringify(outcome.incidents))
  }))

test('killed before the load, it ends by the signal and reports nothing', () => withCrateTestDouble({},
  async (double) => {
    const group = groupOf(double, ['--max_rows', '1000'])
    group.start()
    await group.whenReady()
    group.workers[0].child.kill('SIGKILL')
    const outcome = await group.whenDone()
    assert.deepEqual(outcome.workers.map((w) => [w.reported, w.exit.code, w.exit.signal]), [[false, null, 'SIGKILL']])
    assert.equal(outcome.loadStarted, false)
  }))

test('one group of one process runs in the master unless told to fork; its runtime V8 flags only', () => {
  const group = (processes, count = 1) => Array.from({ length: count }, () => ({ options: { processes } }))
  assert.equal(workersInMasterProcess(group(1), {}), true)
  assert.equal(workersInMasterProcess(group(2), {}), false)
  assert.equal(workersInMasterProcess(group(1, 2), {}), false, 'a mixed run: two groups')
  assert.equal(workersInMasterProcess(group(1), { CRATE_BENCH_FORK_WORKERS: '1' }), false)
  assert.deepEqual(applyWorkerFlags({ workerNodeFlags: ['--max-semi-space-size=2', '--single-threaded-gc'] }),
    ['--no-parallel-scavenge'])
  assert.deepEqual(applyWorkerFlags({}), [])
})

test('an exception nobody caught while it runs ends the worker as failed, not the master', () => {
  // In a process of its own: the test runner takes every uncaught exception of its own process as a failure.
  const script = `
    const { inProcessWorker } = require(${JSON.stringify(require.resolve('../../lib/run/in-process-worker'))})
    const child = inProcessWorker()
    const seen = []
    child.on('message', (m) => seen.push(m))
    child.on('exit', (code, signal) => {
      seen.push({ exit: code, signal })
      setImmediate(() => { throw new Error('after the worker: the process\\'s own') })
    })
    process.on('exit', () => console.log(JSON.stringify(seen)))
    setImmediate(() => { throw new Error('boom') })`
  const run = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' })
  assert.deepEqual(JSON.parse(run.stdout.trim().split('\n').at(-1)), [{ type: 'fatal', message: 'boom' },
    { exit: 1, signal: null }])
  assert.notEqual(run.status, 0, 'once the worker has ended, an uncaught exception is the process\'s again')
  assert.match(run.stderr, /after the worker/)
})
