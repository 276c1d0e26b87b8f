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
