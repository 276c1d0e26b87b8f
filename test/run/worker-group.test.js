'use strict'

// The worker group's state machine against fake workers: no child processes, no real timers.

const test = require('node:test')
const assert = require('node:assert/strict')
const { EventEmitter } = require('node:events')
const { WorkerGroup, workerEnv, STARTUP_STOP_GRACE_MS, ABANDON_GRACE_MS } = require('../../lib/run/worker-group')
const { Recorder } = require('../../lib/results/stats')
const { stopReason } = require('../../lib/run/stop-reason')

/** Stands in for a forked worker: records what the master sends; the test plays its part. */
class FakeWorker extends EventEmitter {
  constructor () {
    super()
    this.connected = true
    this.messages = []
    this.killedWith = null
  }

  send (message, callback) {
    this.messages.push(message)
    if (callback) callback()
  }

  kill (signal) {
    this.killedWith = signal
    this.exit(null, signal)
  }

  said (type) {
    return this.messages.filter((m) => m.type === type)
  }

  ready () { this.emit('message', { type: 'ready' }) }
  report (delta) { this.emit('message', { type: 'delta', delta }) }
  done (reason, delta = emptyDelta()) { this.emit('message', { type: 'done', reason, delta, resources: { cpuMicros: 10,
    maxRssKb: 1000 } }) }
  fail (message) { this.emit('message', { type: 'fatal', message }) }

  exit (code = 0, signal = null) {
    if (!this.connected) return
    this.connected = false
    this.emit('exit', code, signal)
  }
}

/** Timers the test fires by hand. */
function manualTimers () {
  const pending = new Map()
  let next = 1
  return {
    setTimeout: (fn, ms) => { const id = next++; pending.set(id, { fn, ms }); return id },
    clearTimeout: (id) => pending.delete(id),
    pending: () => [...pending.values()].map((t) => t.ms),
    fireAll () {
      const due = [...pending.entries()]
      pending.clear()
      for (const [, t] of due) t.fn()
    }
  }
}

function emptyDelta () {
  return new Recorder().takeDelta()
}

function deltaOf (ok) {
  const recorder = new Recorder()
  recorder.sent(ok, 1)
  recorder.answered({ label: 'x', units: ok, ok, failed: 0, latencyMicros: 1000, at: 2 })
  return recorder.takeDelta()
}

function group (processes = 3, now = Date.now) {
  const fakes = []
  const timers = manualTimers()
  const g = new WorkerGroup({
    now,
    name: 'main',
    workload: { name: 'ingest' },
    options: { processes },
    prepared: {},
    spawnWorker: () => { const f = new FakeWorker(); fakes.push(f); return f },
    timers
  })
  const states = []
  g.on('state', (s) => states.push(s))
  g.start()
  return { g, fakes, timers, states }
}

test('the happy path: starting -> ready -> running -> done, deltas merged exactly', async () => {
  const { g, fakes, states } = group(2)
  assert.equal(g.state, 'starting')
  assert.deepEqual(fakes.map((f) => f.said('start')[0].workerIndex), [0, 1])
  fakes[0].ready()
  assert.equal(g.state, 'starting', 'one worker is not the group')
  fakes[1].ready()
  assert.equal(await g.whenReady(), true)
  assert.equal(g.go({ startAt: 5000, deadline: 9000 }), true)
  fakes[0].report(deltaOf(100))
  fakes[1].done(stopReason('completed'), deltaOf(50))
  fakes[1].exit(0)
  fakes[0].done(stopReason('completed'), deltaOf(25))
  fakes[0].exit(0)
  const outcome = await g.whenDone()
  assert.deepEqual(states, ['ready', 'running', 'done'])
  assert.equal(outcome.totals.all.ok, 175)
  assert.deepEqual(outcome.workers.map((w) => w.totals.all.ok), [125, 50])
  assert.deepEqual(outcome.incidents, [])
  assert.equal(outcome.resources.length, 2)
})

test('a worker that dies is known by how long it went unheard, from when it took its last report to its end',
  async () => {
  let clock = 1000
  const { g, fakes } = group(2, () => clock)
  for (const f of fakes) f.ready()
  g.go({ startAt: 1000 })
  // Worker 1's report was taken at 2000 and waited in the pipe until 2600 (a loaded machine); worker 0's arrived at
  // once.
  clock = 2600
  fakes[0].report({ ...deltaOf(100), at: 2600 })
  fakes[1].report({ ...deltaOf(100), at: 2000 })
  // Its next report is 3.5 s late when it is killed.
  clock = 5500
  fakes[1].exit(null, 'SIGKILL')
  fakes[0].done(stopReason('stopped'), { ...deltaOf(10), at: 5500 })
  fakes[0].exit(0)
  const outcome = await g.whenDone()
  assert.deepEqual(outcome.workers.map((w) => [w.reported, w.silentMs]), [[true, 0], [false, 3500]])
})

test('every worker gets the same absolute start time and deadline in go', () => {
  const { g, fakes } = group(3)
  for (const f of fakes) f.ready()
  g.go({ startAt: 123456.5, deadline: 133456.5 })
  assert.deepEqual(fakes.map((f) => f.said('go')), fakes.map(() => [{ type: 'go', startAt: 123456.5,
    deadline: 133456.5 }]))
  assert.equal(g.go({ startAt: 1 }), false, 'go works once, from ready')
})

test('a worker killed before it is ready: the others are stopped, the group ends, no go is ever sent', async () => {
  const { g, fakes, timers, states } = group(3)
  fakes[0].ready()
  fakes[1].exit(null, 'SIGKILL')
  assert.equal(await g.whenReady(), false)
  assert.equal(g.state, 'draining')
  assert.deepEqual(fakes.map((f) => f.said('stop').length), [1, 0, 1])
  // Worker 0 leaves at once; worker 2 is stuck in a long start-up and is killed after the grace.
  fakes[0].exit(0)
  assert.deepEqual(timers.pending(), [STARTUP_STOP_GRACE_MS])
  timers.fireAll()
  assert.equal(fakes[2].killedWith, 'SIGKILL')
  const outcome = await g.whenDone()
  assert.deepEqual(states, ['draining', 'done'])
  assert.deepEqual(outcome.incidents, [{ kind: 'worker_died', worker: 1, detail: 'SIGKILL' }])
  assert.equal(outcome.loadStarted, false)
  assert.ok(fakes.every((f) => f.said('go').length === 0))
})

test('a worker that fails during start-up is a start-up failure, not a death', async () => {
  const { g, fakes } = group(2)
  fakes[0].fail("unknown generator 'x'")
  fakes[0].exit(1)
  fakes[1].ready()
  fakes[1].exit(0)
  const outcome = await g.whenDone()
  assert.deepEqual(outcome.incidents, [{ kind: 'worker_failed', worker: 0, detail: "unknown generator 'x'",
    phase: 'startup' }])
})

test('a worker killed while running: its reports so far count, the others drain and report', async () => {
  const { g, fakes } = group(2)
  for (const f of fakes) f.ready()
  g.go({ startAt: 0 })
  fakes[0].report(deltaOf(300))
  fakes[0].exit(null, 'SIGKILL')
  assert.equal(g.state, 'draining')
  assert.equal(fakes[1].said('stop').length, 1)
  fakes[1].done(stopReason('stopped', 'worker 0 ended'), deltaOf(40))
  fakes[1].exit(0)
  const outcome = await g.whenDone()
  assert.equal(outcome.totals.all.ok, 340)
  assert.deepEqual(outcome.incidents, [{ kind: 'worker_died', worker: 0, detail: 'SIGKILL' }])
})

test('a worker killed after its last report is no incident', async () => {
  const { g, fakes } = group(2)
  for (const f of fakes) f.ready()
  g.go({ startAt: 0 })
  fakes[0].done(stopReason('completed'), deltaOf(10))
  fakes[0].exit(null, 'SIGKILL')
  fakes[1].done(stopReason('completed'), deltaOf(10))
  fakes[1].exit(0)
  const outcome = await g.whenDone()
  assert.deepEqual(outcome.incidents, [])
  assert.equal(outcome.totals.all.ok, 20)
})

test('stop() works in every state and keeps the first reason', async () => {
  for (const at of ['starting', 'ready', 'running', 'draining']) {
    const { g, fakes } = group(2)
    if (at !== 'starting') for (const f of fakes) f.ready()
    if (at === 'running' || at === 'draining') g.go({ startAt: 0 })
    if (at === 'draining') g.stop(stopReason('interrupted'))
    g.stop(stopReason('duration'))
    assert.equal(g.state, 'draining', at)
    assert.deepEqual(g.stopReason, stopReason(at === 'draining' ? 'interrupted' : 'duration'), at)
    assert.ok(fakes.every((f) => f.said('stop').length === 1), `${at}: one stop per worker`)
    for (const f of fakes) {
      if (at === 'running' || at === 'draining') f.done(g.stopReason)
      f.exit(0)
    }
    const outcome = await g.whenDone()
    assert.deepEqual(outcome.incidents, [], `${at}: stopping is not an incident`)
    g.stop(stopReason('interrupted'))
    assert.equal(g.state, 'done', 'stop after done changes nothing')
  }
})

test('abort(): workers are told to abandon their requests; those that do not report in time are killed', async () => {
  const { g, fakes, timers } = group(2)
  for (const f of fakes) f.ready()
  g.go({ startAt: 0 })
  g.abort(stopReason('interrupted'))
  assert.ok(fakes.every((f) => f.said('stop').length === 1 && f.said('abort').length === 1))
  fakes[0].done(stopReason('interrupted'), deltaOf(7))
  fakes[0].exit(0)
  assert.deepEqual(timers.pending(), [ABANDON_GRACE_MS])
  timers.fireAll()
  const outcome = await g.whenDone()
  assert.equal(fakes[1].killedWith, 'SIGKILL')
  assert.equal(outcome.totals.all.ok, 7)
  assert.deepEqual(outcome.incidents, [{ kind: 'abandoned', worker: 1,
    detail: 'killed after it did not report in time' }])
})

test('a worker whose cluster is gone stops the group; the incident names it', async () => {
  const { g, fakes } = group(2)
  for (const f of fakes) f.ready()
  g.go({ startAt: 0 })
  fakes[1].done(stopReason('server_gone', 'connection refused by http://x:4200'))
  assert.equal(fakes[0].said('stop').length, 1)
  fakes[0].done(fakes[0].said('stop')[0].reason)
  for (const f of fakes) f.exit(0)
  const outcome = await g.whenDone()
  assert.deepEqual(outcome.incidents, [{ kind: 'server_gone', worker: 1,
    detail: 'connection refused by http://x:4200' }])
})

test('workers are forked without credentials in their environment', () => {
  const env = workerEnv({ PATH: '/bin', CRATE_PASSWORD: 's3cr3t', CRATE_USER: 'u', CRATE_HOST: 'h',
    CRATE_BENCH_FAULT_WORKER_STARTUP: 'delay:1' })
  assert.deepEqual(env, { PATH: '/bin', CRATE_BENCH_FAULT_WORKER_STARTUP: 'delay:1' })
})
