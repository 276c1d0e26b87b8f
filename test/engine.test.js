'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { runEngine, createControl } = require('../lib/engine')
const { Recorder, Totals } = require('../lib/stats')
const { CrateHttpError, TransportError } = require('../lib/http-client')

function fakeSource (requests) {
  let sent = 0
  return {
    next: () => (sent < requests ? { body: `r${sent++}`, units: 10, label: 'x' } : null),
    account: () => ({ ok: 10, failed: 0, failures: [] })
  }
}

test('keeps exactly N requests in flight and sends every request once', async () => {
  let inFlight = 0
  let maxInFlight = 0
  const bodies = []
  const client = {
    post: async (body) => {
      bodies.push(body)
      inFlight++
      maxInFlight = Math.max(maxInFlight, inFlight)
      await new Promise((resolve) => setTimeout(resolve, 2))
      inFlight--
      return {}
    }
  }
  const recorder = new Recorder()
  const reason = await runEngine({ client, source: fakeSource(50), concurrency: 7, recorder, control: createControl() })
  assert.equal(reason, 'completed')
  assert.equal(maxInFlight, 7)
  assert.equal(new Set(bodies).size, 50)
  const totals = new Totals()
  totals.addDelta(recorder.takeDelta())
  assert.equal(totals.all.ok, 500)
  assert.equal(totals.all.requests, 50)
})

test('error answers and lost answers fail all units of their request', async () => {
  let n = 0
  const client = {
    post: async () => {
      n++
      if (n === 2) throw new CrateHttpError({ status: 404, code: 4041, message: "RelationUnknown[Relation 'doc.cpu' unknown]" })
      if (n === 3) throw new TransportError({ code: 'ECONNRESET', message: 'closed' })
      return {}
    }
  }
  const recorder = new Recorder()
  await runEngine({ client, source: fakeSource(5), concurrency: 1, recorder, control: createControl() })
  const totals = new Totals()
  totals.addDelta(recorder.takeDelta())
  assert.equal(totals.all.ok, 30)
  assert.equal(totals.all.failed, 20)
  assert.equal(totals.all.requestsFailed, 2)
  assert.deepEqual(totals.errors.toJSON().map((e) => [e.code, e.count]).sort(), [[4041, 10], ['ECONNRESET', 10]])
})

test('a refused connection stops the run as server gone', async () => {
  const client = { post: async () => { throw new TransportError({ code: 'ECONNREFUSED', message: 'connection refused by x' }) } }
  const recorder = new Recorder()
  const reason = await runEngine({ client, source: fakeSource(100), concurrency: 3, recorder, control: createControl() })
  assert.match(reason, /^server_gone: connection refused/)
  const delta = recorder.takeDelta()
  assert.ok(delta.series.x.requests <= 3)
})

test('the deadline stops new requests; those in flight finish', async () => {
  const client = { post: () => new Promise((resolve) => setTimeout(() => resolve({}), 20)) }
  const recorder = new Recorder()
  const reason = await runEngine({ client, source: fakeSource(1e9), concurrency: 2, deadline: Date.now() + 100, recorder, control: createControl() })
  assert.equal(reason, 'duration')
  const delta = recorder.takeDelta()
  assert.ok(delta.series.x.requests >= 4 && delta.series.x.requests <= 14, `${delta.series.x.requests} requests`)
  assert.equal(delta.unitsInFlight, 0)
})

test('stop() lets requests in flight finish; abort() cancels them', async () => {
  const control = createControl()
  const pending = new Set()
  const client = {
    post: () => new Promise((resolve, reject) => {
      const timer = setTimeout(() => resolve({}), 5000)
      pending.add(() => {
        clearTimeout(timer)
        reject(new TransportError({ code: 'ABORTED', message: 'aborted' }))
      })
    }),
    abort: () => { for (const cancel of pending) cancel() }
  }
  const recorder = new Recorder()
  const run = runEngine({ client, source: fakeSource(100), concurrency: 4, recorder, control })
  setTimeout(() => control.abort('interrupted'), 30)
  assert.equal(await run, 'interrupted')
  const delta = recorder.takeDelta()
  assert.equal(delta.series.x.failed, 40)
  assert.equal(delta.unitsInFlight, 0)
})

// ---- open model (--rate) -----------------------------------------------------------------------

function pacedTotals (recorder) {
  const totals = new Totals()
  totals.addDelta(recorder.takeDelta())
  return totals
}

test('paced: requests go out on the timetable, and the achieved rate is within 1% of the target', async () => {
  const sentTimes = []
  const client = { post: async () => { sentTimes.push(performance.now()); return {} } }
  const recorder = new Recorder()
  // 100 requests of 10 units at 2000 units/s: one request every 5 ms, 0.5 s in all.
  await runEngine({ client, source: fakeSource(100), concurrency: 4, recorder, control: createControl(), pace: { unitsPerSecond: 2000 } })
  const totals = pacedTotals(recorder)
  assert.equal(totals.all.ok, 1000)
  // The window runs from the first send to the last answer: 99 intervals of 5 ms.
  const achieved = totals.all.ok / totals.seconds
  assert.ok(Math.abs(achieved / (1000 / 0.495) - 1) < 0.01, `achieved ${achieved} units/s over ${totals.seconds} s`)
  const gaps = sentTimes.slice(1).map((t, i) => t - sentTimes[i])
  assert.ok(gaps.filter((g) => g < 2).length < 10, 'requests are spread out, not sent in bursts')
  assert.equal(totals.lateRequests, 0)
})

test('paced: a stalled server shows in the latency from scheduled start and in the late count', async () => {
  let calls = 0
  const client = {
    post: () => {
      calls++
      // Request 10 stalls for 300 ms; every other answer takes 1 ms.
      return new Promise((resolve) => setTimeout(() => resolve({}), calls === 10 ? 300 : 1))
    }
  }
  const recorder = new Recorder()
  // One slot, 100 requests/s: the ~30 requests due during the stall cannot start on time.
  await runEngine({ client, source: fakeSource(100), concurrency: 1, recorder, control: createControl(), pace: { unitsPerSecond: 1000 } })
  const totals = pacedTotals(recorder)
  assert.equal(totals.all.requests, 100)
  // 30 fell due during the stall, a few more while the backlog drained at ~1.5 ms each.
  assert.ok(totals.lateRequests >= 28 && totals.lateRequests <= 42, `${totals.lateRequests} late`)
  const latency = totals.all.latencySummary()
  // Closed-model timing would put p90 near 1 ms: only one request was slow to answer.
  assert.ok(latency.p90 >= 50, `p90 ${latency.p90} ms must include the time the late requests waited`)
  assert.ok(latency.max >= 290, `max ${latency.max} ms`)
  // The schedule caught up: it did not move the whole run back by the stall.
  assert.ok(totals.seconds < 1.15, `${totals.seconds} s for a 0.99 s timetable`)
})

test('paced: stop() ends a slow timetable without waiting for the next slot', async () => {
  const control = createControl()
  const recorder = new Recorder()
  const run = runEngine({ client: { post: async () => ({}) }, source: fakeSource(100), concurrency: 2, recorder, control, pace: { unitsPerSecond: 1 } })
  const started = Date.now()
  setTimeout(() => control.stop('interrupted'), 50)
  assert.equal(await run, 'interrupted')
  assert.ok(Date.now() - started < 500)
  assert.equal(recorder.takeDelta().series.x.requests, 1, 'the first request goes at once, the next is 10 s away')
})

test('paced: the deadline ends the timetable', async () => {
  const recorder = new Recorder()
  const { now } = require('../lib/clock')
  const reason = await runEngine({ client: { post: async () => ({}) }, source: fakeSource(1000), concurrency: 2, deadline: now() + 200, recorder, control: createControl(), pace: { unitsPerSecond: 1000 } })
  assert.equal(reason, 'duration')
  const requests = recorder.takeDelta().series.x.requests
  assert.ok(requests >= 19 && requests <= 21, `${requests} requests in 200 ms at 100 requests/s`)
})

test('paced: a request still waiting for a slot when the deadline passes is not sent', async () => {
  const { now } = require('../lib/clock')
  const recorder = new Recorder()
  const client = { post: () => new Promise((resolve) => setTimeout(() => resolve({}), 300)) }
  const reason = await runEngine({ client, source: fakeSource(100), concurrency: 1, deadline: now() + 100, recorder, control: createControl(), pace: { unitsPerSecond: 1000 } })
  assert.equal(reason, 'duration')
  assert.equal(recorder.takeDelta().series.x.requests, 1)
})
