'use strict'

// The engine on a fake clock: every assertion on time is exact, and none depends on how busy the
// machine is.

const test = require('node:test')
const assert = require('node:assert/strict')
const { runEngine, createControl } = require('../../lib/run/engine')
const { workerPace } = require('../../lib/run/timetable')
const { parseStages } = require('../../lib/data/load-profile')
const { stopReason } = require('../../lib/run/stop-reason')
const { Recorder, Totals } = require('../../lib/results/stats')
const { CrateHttpError, TransportError } = require('../../lib/cluster/http-client')
const { FakeClock } = require('../helpers/fake-clock')

const UNITS = 10

function fakeSource (requests) {
  let sent = 0
  return {
    next: () => (sent < requests ? { body: `r${sent++}`, units: UNITS, label: 'x' } : null),
    account: () => ({ ok: UNITS, failed: 0, failures: [] })
  }
}

/**
 * A client on the fake clock. `latencyOf(n, body)` gives the n-th request's answer time (1-based);
 * every send is logged with its fake time.
 */
function fakeClient (clock, latencyOf = () => 1) {
  const client = { sends: [], inFlight: 0, maxInFlight: 0 }
  client.post = async (body) => {
    const n = client.sends.push({ body, at: clock.now() })
    client.inFlight++
    client.maxInFlight = Math.max(client.maxInFlight, client.inFlight)
    await clock.sleep(latencyOf(n, body))
    client.inFlight--
    return {}
  }
  client.abort = () => {}
  return client
}

/** A client whose n-th request (1-based) gets what `answer(n)` returns, or throws what it throws. */
function scriptedClient (answer) {
  let n = 0
  return { abort () {}, post: async () => answer(++n) }
}

function engine (clock, settings) {
  const recorder = new Recorder({ now: clock.now })
  const control = settings.control || createControl()
  const run = runEngine({ recorder, control, clock, concurrency: 1, ...settings })
  return { recorder, control, done: clock.run(run) }
}

/** One worker running `stagesText` from now to the stages' end, on the fake clock. */
function stagedRun (clock, client, stagesText, { concurrency, requests }) {
  const stages = parseStages(stagesText)
  const startAt = clock.now()
  return engine(clock, {
    client,
    source: fakeSource(requests),
    concurrency,
    startAt,
    deadline: startAt + stages.reduce((ms, stage) => ms + stage.durationMs, 0),
    pace: workerPace({ stages, workerIndex: 0, workerCount: 1, unitsPerRequest: UNITS })
  })
}

function totalsOf (recorder) {
  const totals = new Totals()
  totals.addDelta(recorder.takeDelta())
  return totals
}

// ---- closed model ------------------------------------------------------------------------------

test('closed: exactly N requests in flight, every request sent once, lanes refill at once', async () => {
  const clock = new FakeClock()
  const client = fakeClient(clock, () => 2)
  const start = clock.now()
  const { recorder, done } = engine(clock, { client, source: fakeSource(50), concurrency: 7 })
  assert.deepEqual(await done, stopReason('completed'))
  assert.equal(client.maxInFlight, 7)
  assert.equal(new Set(client.sends.map((s) => s.body)).size, 50)
  // 50 requests over 7 lanes, 2 ms each: 8 rounds.
  assert.equal(clock.now() - start, 16)
  const totals = totalsOf(recorder)
  assert.equal(totals.all.ok, 500)
  assert.equal(totals.all.requests, 50)
  assert.equal(totals.seconds, 0.016)
})

test('error answers and refused requests fail their units; lost answers put them in doubt', async () => {
  const clock = new FakeClock()
  const client = scriptedClient((n) => {
    if (n === 2) throw new CrateHttpError({ status: 404, code: 4041,
      message: "RelationUnknown[Relation 'doc.cpu' unknown]" })
    if (n === 3) throw new TransportError({ code: 'ECLOSED', message: 'closed', sent: true })
    if (n === 4) throw new TransportError({ code: 'ECONNREFUSED', message: 'refused', sent: false })
    return {}
  })
  const { recorder, done } = engine(clock, { client, source: fakeSource(6) })
  await done
  const totals = totalsOf(recorder)
  assert.equal(totals.all.ok, 30)
  assert.equal(totals.all.failed, 20)
  assert.equal(totals.all.inDoubt, 10)
  assert.equal(totals.all.requestsFailed, 3)
  assert.deepEqual(totals.errors.toJSON().map((e) => [e.code, e.in_doubt, e.count]).sort(), [[4041, false, 10],
    ['ECLOSED', true, 10], ['ECONNREFUSED', false, 10]])
})

test('a refused host does not stop the run (the client fails over); no host at all does', async () => {
  const clock = new FakeClock()
  const client = scriptedClient((n) => {
    if (n <= 5) throw new TransportError({ code: 'ECONNREFUSED', message: 'connection refused by x', sent: false })
    throw new TransportError({ code: 'ENOHOST', message: 'no host answers', sent: false })
  })
  const { recorder, done } = engine(clock, { client, source: fakeSource(100), concurrency: 3 })
  assert.deepEqual(await done, stopReason('server_gone', 'no host answers'))
  const delta = recorder.takeDelta()
  assert.equal(delta.series.x.requests, 6, 'five refused go on; the first ENOHOST stops every lane')
  assert.equal(delta.series.x.failed, 60)
})

test('closed: the deadline stops new requests; those in flight finish and are counted', async () => {
  const clock = new FakeClock()
  const client = fakeClient(clock, () => 20)
  const { recorder, done } = engine(clock, {
    client,
    source: fakeSource(1e9),
    concurrency: 2,
    deadline: clock.now() + 100
  })
  assert.deepEqual(await done, stopReason('duration'))
  // Each lane sends at 0, 20, 40, 60 and 80 ms; at 100 ms the deadline has come.
  const delta = recorder.takeDelta()
  assert.equal(delta.series.x.requests, 10)
  assert.equal(delta.series.x.ok, 100)
  assert.equal(delta.unitsInFlight, 0)
})

// Issue 67: a run whose only node was killed waited --timeout past its duration, then called itself whole.
test('closed: lanes that wait for a host that went away are stopped at the deadline, and the run is server gone',
  async () => {
    const clock = new FakeClock()
    // The client as the HTTP client is with every host down: a request waits until the run stops waiting.
    let waitsEnded = false
    const waiting = []
    const client = {
      abort () {},
      stopWaiting () {
        waitsEnded = true
        for (const wake of waiting.splice(0)) wake()
      },
      post: async () => {
        if (!waitsEnded) await new Promise((resolve) => waiting.push(resolve))
        throw new TransportError({ code: 'ENOHOST', message: 'no host answers: all 1 host was down when the run ' +
          'stopped', sent: false })
      }
    }
    const startedAt = clock.now()
    const { recorder, done } = engine(clock, { client, source: fakeSource(1e9), concurrency: 2,
      deadline: startedAt + 30_000 })
    assert.deepEqual(await done, stopReason('server_gone', 'no host answers: all 1 host was down when the run stopped'))
    assert.equal(clock.now() - startedAt, 30_000, 'stopped at the deadline, not after the requests\' --timeout')
    const delta = recorder.takeDelta()
    assert.deepEqual([delta.series.x.requests, delta.series.x.failed, delta.unitsInFlight], [2, 20, 0])
  })

test('a control keeps its first reason, but a server gone replaces a duration: the run is not whole', () => {
  const control = createControl()
  const stopped = []
  control.onStop(() => stopped.push('first'))
  control.stop(stopReason('duration'))
  control.onStop(() => stopped.push('late'))
  control.stop(stopReason('completed'))
  assert.deepEqual(control.reason, stopReason('duration'))
  control.serverGone(stopReason('server_gone', 'x'))
  assert.deepEqual(control.reason, stopReason('server_gone', 'x'))
  assert.deepEqual(stopped, ['first', 'late'], 'each stop handler once, a late one at once')
  const interrupted = createControl()
  interrupted.stop(stopReason('interrupted'))
  interrupted.serverGone(stopReason('server_gone', 'x'))
  assert.deepEqual(interrupted.reason, stopReason('interrupted'))
})

test('--graceful_stop: after the deadline, answers still missing when the grace is over are abandoned, in doubt',
  async () => {
  const clock = new FakeClock()
  const pending = new Set()
  const client = {
    sends: 0,
    post () {
      const n = ++this.sends
      // The first two requests answer after 60 ms; the next ones never would.
      if (n <= 2) return clock.after(60, {})
      return new Promise((resolve, reject) => pending.add(() => reject(new TransportError({ code: 'ABORTED',
        message: 'abandoned', sent: true }))))
    },
    abort: () => { for (const cancel of pending) cancel() }
  }
  const start = clock.now()
  const { recorder, done } = engine(clock, {
    client,
    source: fakeSource(100),
    concurrency: 2,
    deadline: start + 100,
    gracefulStopMs: 50
  })
  assert.deepEqual(await done, stopReason('duration'))
  assert.equal(clock.now() - start, 150, 'the run ends at deadline + grace, not when the server answers')
  const totals = totalsOf(recorder)
  assert.deepEqual([totals.all.ok, totals.all.failed, totals.all.inDoubt], [20, 0, 20])
  assert.equal(totals.sendingSeconds, 0.06)
})

test('--warmup: answers before its end are counted apart; the ' +
  'measured window starts there; every unit is accounted once', async () => {
  const clock = new FakeClock()
  const client = fakeClient(clock, () => 10)
  const startAt = clock.now()
  const recorder = new Recorder({ now: clock.now, warmupUntil: startAt + 55 })
  await clock.run(
    runEngine({ client, source: fakeSource(10), concurrency: 1, startAt, recorder, control: createControl(), clock })
  )
  const delta = recorder.takeDelta()
  // Answers at 10, 20, ... 100 ms: five before 55 ms.
  assert.deepEqual(delta.warmup, { requests: 5, units: 50, ok: 50, failed: 0, inDoubt: 0 })
  assert.equal(delta.series.x.ok, 50)
  assert.equal(delta.firstSentAt, startAt + 55, 'the window starts when the warm-up ends')
  assert.equal(delta.unitsSent, delta.warmup.units + delta.series.x.ok)
})

test('nothing is sent before the start time the master gave', async () => {
  const clock = new FakeClock()
  const client = fakeClient(clock)
  const startAt = clock.now() + 100
  const { done } = engine(clock, { client, source: fakeSource(3), startAt })
  await done
  assert.deepEqual(client.sends.map((s) => s.at - startAt), [0, 1, 2])
})

test('stop() before the start time: nothing is sent at all', async () => {
  const clock = new FakeClock()
  const client = fakeClient(clock)
  const control = createControl()
  const { done } = engine(clock, { client, source: fakeSource(3), startAt: clock.now() + 1000, control })
  clock.sleep(10).then(() => control.stop(stopReason('interrupted')))
  assert.deepEqual(await done, stopReason('interrupted'))
  assert.equal(client.sends.length, 0)
})

test('stop() lets requests in flight finish; abort() abandons them, and each is accounted once', async () => {
  const clock = new FakeClock()
  const pending = new Set()
  const client = {
    post: () => new Promise((resolve, reject) => {
      pending.add(() => reject(new TransportError({ code: 'ABORTED', message: 'aborted' })))
    }),
    abort: () => { for (const cancel of pending) cancel() }
  }
  const control = createControl()
  const { recorder, done } = engine(clock, { client, source: fakeSource(100), concurrency: 4, control })
  clock.sleep(30).then(() => control.abort(stopReason('interrupted')))
  assert.deepEqual(await done, stopReason('interrupted'))
  const delta = recorder.takeDelta()
  assert.equal(delta.series.x.failed, 40)
  assert.equal(delta.unitsSent, 40)
  assert.equal(delta.unitsInFlight, 0)
})

test('ok + failed + in flight = sent at every report, while requests are still in flight', async () => {
  const clock = new FakeClock()
  const client = fakeClient(clock, (n) => (n % 3 === 0 ? 25 : 7))
  const recorder = new Recorder({ now: clock.now })
  const totals = new Totals()
  let reports = 0
  const reporter = (async () => {
    while (reports < 20) {
      await clock.sleep(5)
      const delta = recorder.takeDelta()
      totals.addDelta(delta)
      reports++
      assert.equal(totals.all.ok + totals.all.failed + delta.unitsInFlight, totals.unitsSent, `report ${reports}`)
    }
  })()
  await clock.run(
    Promise.all([
      runEngine({ client, source: fakeSource(30), concurrency: 4, recorder, control: createControl(), clock }),
      reporter
    ])
  )
  assert.equal(totals.unitsSent, 300)
})

test('a table dropped mid-run: after ten unknown-relation answers in a row the run stops, not after max_rows',
  async () => {
  const clock = new FakeClock()
  const client = scriptedClient((n) => {
    if (n <= 5 || n === 8) return {}
    throw new CrateHttpError({ status: 404, code: 4041, message: "RelationUnknown[Relation 'doc.cpu' unknown]" })
  })
  const { recorder, done } = engine(clock, { client, source: fakeSource(1000) })
  const reason = await done
  assert.equal(reason.kind, 'fatal')
  assert.match(reason.detail,
    /^RelationUnknown\[Relation 'doc\.cpu' unknown\] \(10 answers in a row: the table was dropped during the run\?\)$/)
  // Five ok, two unknown, one ok (the count starts again), then ten unknown.
  assert.equal(recorder.takeDelta().series.x.requests, 18)
})

// ---- open model (--rate) -----------------------------------------------------------------------

test('open: every request goes out exactly at its time on the timetable', async () => {
  const clock = new FakeClock()
  const client = fakeClient(clock, () => 1)
  const startAt = clock.now() + 50
  // 10-unit requests at 2000 units/s: one every 5 ms.
  const { recorder, done } = engine(clock, {
    client,
    source: fakeSource(100),
    concurrency: 4,
    startAt,
    pace: { unitsPerSecond: 2000 }
  })
  assert.deepEqual(await done, stopReason('completed'))
  assert.deepEqual(client.sends.map((s) => s.at - startAt), Array.from({ length: 100 }, (_, i) => i * 5))
  const totals = totalsOf(recorder)
  assert.equal(totals.all.ok, 1000)
  assert.equal(totals.lateRequests, 0)
  // From the first send to the last answer: 99 intervals and one answer.
  assert.equal(totals.seconds, 0.496)
})

test('open: a stalled server shows in the latency from scheduled start and in the exact late count', async () => {
  const clock = new FakeClock()
  // Request 10 stalls for 300 ms; every other answer takes 1 ms.
  const client = fakeClient(clock, (n) => (n === 10 ? 300 : 1))
  const startAt = clock.now()
  // One slot, one 10-unit request every 10 ms.
  const { recorder, done } = engine(clock, {
    client,
    source: fakeSource(100),
    concurrency: 1,
    startAt,
    pace: { unitsPerSecond: 1000 }
  })
  await done
  const totals = totalsOf(recorder)
  assert.equal(totals.all.requests, 100)
  // Request 10 is due at 90 ms and answered at 390. Request 10 + k (due at 90 + 10k) then goes
  // out at 389 + k, while 389 + k > 90 + 10k: for k = 1 .. 33, so 33 requests were late.
  assert.equal(totals.lateRequests, 33)
  assert.equal(client.sends[10].at - startAt, 390)
  assert.equal(client.sends[43].at - startAt, 430, 'request 44 is back on its time')
  const latency = totals.all.latencySummary()
  // Closed-model timing would put p90 at 1 ms: only one request was slow to answer.
  assert.ok(latency.p90 >= 50, `p90 ${latency.p90} ms includes the waits of the late requests`)
  assert.equal(latency.max, 300, 'request 10: due at 90 ms, answered at 390 ms')
  // The timetable caught up: the window ends with request 100 (due at 990 ms), not 300 ms late.
  assert.equal(totals.seconds, 0.991)
})

test('open: stop() ends a slow timetable without waiting for the next slot', async () => {
  const clock = new FakeClock()
  const client = fakeClient(clock)
  const control = createControl()
  const startAt = clock.now()
  const { recorder, done } = engine(clock, {
    client,
    source: fakeSource(100),
    concurrency: 2,
    control,
    startAt,
    pace: { unitsPerSecond: 1 }
  })
  clock.sleep(50).then(() => control.stop(stopReason('interrupted')))
  assert.deepEqual(await done, stopReason('interrupted'))
  assert.ok(clock.now() - startAt <= 100, 'stopped within one sleep slice, not 10 s later')
  assert.equal(recorder.takeDelta().series.x.requests, 1, 'the first request goes at once, the next is 10 s away')
})

/** 1000 units/s from now for 200 ms, 2 in flight, against a client that answers at once. */
const pacedRun = (clock) => engine(clock, {
  client: fakeClient(clock),
  source: fakeSource(1000),
  concurrency: 2,
  startAt: clock.now(),
  deadline: clock.now() + 200,
  pace: { unitsPerSecond: 1000 }
})

test('open: the deadline ends the timetable; a request that waited for a slot past it is not sent', async () => {
  let clock = new FakeClock()
  let run = pacedRun(clock)
  assert.deepEqual(await run.done, stopReason('duration'))
  assert.equal(run.recorder.takeDelta().series.x.requests, 20, 'due at 0, 10, ... 190 ms')

  clock = new FakeClock()
  run = engine(clock, {
    client: fakeClient(clock, () => 300),
    source: fakeSource(100),
    concurrency: 1,
    startAt: clock.now(),
    deadline: clock.now() + 100,
    pace: { unitsPerSecond: 1000 }
  })
  assert.deepEqual(await run.done, stopReason('duration'))
  assert.equal(run.recorder.takeDelta().series.x.requests, 1)
})

test('open: requests the timetable held before the deadline that never went out are counted as dropped', async () => {
  const clock = new FakeClock()
  // One slot, 25 ms per answer, a 10-unit request due every 10 ms, 200 ms of load: the slot frees at 25, 50, … 175,
  // so 8 requests go out (the last at 175 ms, due at 70), and the 12 due at 80 … 190 ms never do.
  const run = engine(clock, {
    client: fakeClient(clock, () => 25),
    source: fakeSource(1000),
    concurrency: 1,
    startAt: clock.now(),
    deadline: clock.now() + 200,
    pace: { unitsPerSecond: 1000 }
  })
  assert.deepEqual(await run.done, stopReason('duration'))
  const totals = totalsOf(run.recorder)
  assert.equal(totals.all.requests, 8)
  assert.equal(totals.droppedRequests, 12)
  assert.equal(totals.droppedUnits, 120)
  assert.equal(totals.sendingSeconds, 0.175, 'sending ends when the last request went out, not when it was due (70 ms)')
})

test('open: a timetable kept to the end, or a run interrupted, drops nothing', async () => {
  let clock = new FakeClock()
  let run = pacedRun(clock)
  await run.done
  assert.equal(totalsOf(run.recorder).droppedRequests, 0)
  clock = new FakeClock()
  const control = createControl()
  run = engine(clock, {
    client: fakeClient(clock, () => 25),
    source: fakeSource(1000),
    concurrency: 1,
    control,
    startAt: clock.now(),
    deadline: clock.now() + 200,
    pace: { unitsPerSecond: 1000 }
  })
  clock.sleep(60).then(() => control.stop(stopReason('interrupted')))
  assert.deepEqual(await run.done, stopReason('interrupted'))
  assert.equal(totalsOf(run.recorder).droppedRequests, 0, 'a partial run, not a dropped load')
})

test('open: N workers on one start time interleave into one timetable covering one window', async () => {
  const clock = new FakeClock()
  const startAt = clock.now() + 100
  const sends = []
  const workers = [0, 1, 2].map((workerIndex) => {
    const client = fakeClient(clock)
    const original = client.post
    client.post = (body) => { sends.push(clock.now() - startAt); return original(body) }
    const pace = workerPace({ rate: 3000, workerIndex, workerCount: 3, unitsPerRequest: UNITS })
    return runEngine({
      client,
      source: fakeSource(10),
      concurrency: 2,
      startAt,
      pace,
      recorder: new Recorder({ now: clock.now }),
      control: createControl(),
      clock
    })
  })
  await clock.run(Promise.all(workers))
  // 3000 units/s of 10-unit requests over 3 workers: one request every 10/3 ms, in turn.
  const expected = Array.from({ length: 30 }, (_, i) => Math.round(i * (10 / 3) * 1e6) / 1e6)
  assert.deepEqual(sends.sort((a, b) => a - b).map((t) => Math.round(t * 1e6) / 1e6), expected)
})

test('stages: each request goes out at its exact time through holds, a pause and a ramp', async () => {
  const clock = new FakeClock()
  const client = fakeClient(clock, () => 1)
  const startAt = clock.now()
  // 10-unit requests: 100 units/s is one request every 100 ms; then nothing for 500 ms; then a ramp 0..200 over 1 s.
  const { recorder, done } = stagedRun(clock, client, '1s:100,1s:0,1s:0..200', { concurrency: 4, requests: 1000 })
  assert.deepEqual(await done, stopReason('duration'))
  const at = client.sends.map((s) => Math.round((s.at - startAt) * 1000) / 1000)
  const hold = Array.from({ length: 10 }, (_, i) => i * 100)
  // The ramp's units: 100·s² after s seconds, so request k (10k units) is due at 2000 + 1000·sqrt(10k/100) ms.
  const ramp = Array.from({ length: 10 }, (_, k) => Math.round((2000 + 1000 * Math.sqrt(k / 10)) * 1000) / 1000)
  assert.deepEqual(at, [...hold, ...ramp])
  assert.equal(totalsOf(recorder).droppedRequests ?? 0, 0)
})

test('steer: the rate changes at the instant given, what was due before keeps its time', async () => {
  const clock = new FakeClock()
  const client = fakeClient(clock, () => 1)
  const startAt = clock.now()
  const control = createControl()
  const { done } = engine(clock, {
    client,
    control,
    source: fakeSource(1000),
    concurrency: 4,
    startAt,
    deadline: startAt + 2000,
    // One 10-unit request a second, then from 1.25 s on 100 units/s: one every 100 ms, to the end.
    pace: workerPace({ rate: 10, workerIndex: 0, workerCount: 1, unitsPerRequest: UNITS })
  })
  clock.sleep(1250).then(() => control.steer(startAt + 1250, 100))
  await done
  const at = client.sends.map((s) => Math.round(s.at - startAt))
  // Unit 10 was due at 1000 (sent). At 1250, 12.5 units were due; at 100/s unit 20 is due 75 ms later, not at 2000.
  assert.deepEqual(at, [0, 1000, 1325, 1425, 1525, 1625, 1725, 1825, 1925])
})

test('steer down after a burst the server could not take: the backlog is withdrawn, the new rate holds from then on',
  async () => {
    const clock = new FakeClock()
    // One slot, answers take 50 ms; 10-unit requests at 10,000 units/s (one due every ms) for 200 ms, then 100/s.
    const client = fakeClient(clock, () => 50)
    const startAt = clock.now()
    const control = createControl()
    const { recorder, done } = engine(clock, {
      client,
      control,
      source: fakeSource(100_000),
      concurrency: 1,
      startAt,
      deadline: startAt + 1200,
      pace: workerPace({ rate: 10_000, workerIndex: 0, workerCount: 1, unitsPerRequest: UNITS })
    })
    clock.sleep(200).then(() => control.steer(startAt + 200, 100))
    assert.deepEqual(await done, stopReason('duration'))
    const at = client.sends.map((s) => Math.round(s.at - startAt))
    // 0, 50, 100, 150 at the burst's pace (one slot); from 200 on, one request every 100 ms: the 196 requests due in
    // the burst and never sent are withdrawn by the change, not sent back to back.
    assert.deepEqual(at, [0, 50, 100, 150, 200, 300, 400, 500, 600, 700, 800, 900, 1000, 1100])
    const totals = totalsOf(recorder)
    // The change of the rate left them behind: the steering's, not load the cluster was offered and missed.
    assert.equal(totals.withdrawnRequests, 196)
    assert.equal(totals.withdrawnUnits, 1960)
    assert.equal(totals.droppedRequests, 0)
  })

test('a rate typed by mistake for 26 ms (1e9, then 1,000): the backlog it made is withdrawn, nothing dropped',
  async () => {
    const clock = new FakeClock()
    const client = fakeClient(clock, () => 5)
    const startAt = clock.now()
    const control = createControl()
    const { recorder, done } = engine(clock, {
      client,
      control,
      source: fakeSource(1_000_000),
      concurrency: 2,
      startAt,
      deadline: startAt + 3000,
      pace: workerPace({ rate: 2000, workerIndex: 0, workerCount: 1, unitsPerRequest: UNITS })
    })
    clock.sleep(1000).then(() => control.steer(startAt + 1000, 1e9))
    clock.sleep(1026).then(() => control.steer(startAt + 1026, 1000))
    assert.deepEqual(await done, stopReason('duration'))
    const totals = totalsOf(recorder)
    assert.ok(totals.withdrawnUnits > 20_000_000, `${totals.withdrawnUnits} units withdrawn`)
    assert.equal(totals.droppedRequests, 0, 'nothing the cluster was offered and missed')
    // After the change, 1,000 units/s: one 10-unit request every 10 ms.
    const after = client.sends.map((s) => s.at - startAt).filter((t) => t >= 1100)
    assert.ok(Math.abs(after.length - 190) <= 2, `${after.length} requests from 1.1 s to 3 s`)
  })

test('stages: a stage the sender could not serve leaves no backlog to the next, a pause sends nothing', async () => {
  const clock = new FakeClock()
  const client = fakeClient(clock, () => 50)
  const startAt = clock.now()
  // 1,000 units/s for 1 s with one slot of 50 ms (20 requests of the 100 due), then a 1-s pause, then 100/s.
  const { recorder, done } = stagedRun(clock, client, '1s:1000,1s:0,1s:100', { concurrency: 1, requests: 100_000 })
  assert.deepEqual(await done, stopReason('duration'))
  const at = client.sends.map((s) => Math.round(s.at - startAt))
  assert.equal(at.filter((t) => t >= 1000 && t < 2000).length, 0, `the pause sent nothing: ${at}`)
  assert.deepEqual(at.filter((t) => t >= 2000), [2000, 2100, 2200, 2300, 2400, 2500, 2600, 2700, 2800, 2900])
  assert.equal(totalsOf(recorder).droppedRequests, 80, 'the first stage\'s 80 unsent requests')
})

test('closed: a moved deadline (a steady warm-up ended before its cap) stops the run there, and the grace follows it',
  async () => {
  const clock = new FakeClock()
  const client = fakeClient(clock, () => 20)
  const control = createControl()
  const start = clock.now()
  const { recorder, done } = engine(clock, { client, source: fakeSource(1e9), concurrency: 1, control,
    deadline: start + 1000, gracefulStopMs: 50 })
  clock.sleep(100).then(() => control.moveDeadline(start + 200))
  let stoppedAt = null
  control.onStop(() => { stoppedAt = clock.now() })
  assert.deepEqual(await done, stopReason('duration'))
  assert.equal(stoppedAt - start, 200, 'stopped at the moved deadline, not the first')
  assert.ok(clock.now() - start <= 250, 'over within the moved deadline\'s grace')
  assert.equal(recorder.takeDelta().series.x.requests, 10)
  const later = createControl()
  const laterStart = clock.now()
  const run = engine(clock, { client: fakeClient(clock, () => 20), source: fakeSource(1e9), control: later,
    deadline: laterStart + 100 })
  later.moveDeadline(laterStart + 300)
  let laterStoppedAt = null
  later.onStop(() => { laterStoppedAt = clock.now() })
  assert.deepEqual(await run.done, stopReason('duration'))
  assert.equal(laterStoppedAt - laterStart, 300, 'a later deadline holds the run until it')
})

test('open: a paced run\'s deadline does not move (its timetable ends where it started)', () => {
  const control = createControl()
  control.deadline = 1000
  control.timetable = {}
  control.moveDeadline(500)
  assert.equal(control.deadline, 1000)
})
