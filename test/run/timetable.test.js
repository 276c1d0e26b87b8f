'use strict'

// The open model's timetable as a pure function: no clock, no timers.

const test = require('node:test')
const assert = require('node:assert/strict')
const { createTimetable, workerPace } = require('../../lib/run/timetable')
const { parseStages } = require('../../lib/data/load-profile')

test('unit k is due at start + offset + k / rate, whatever happened before', () => {
  const timetable = createTimetable({ startAt: 10_000, unitsPerSecond: 2000, offsetMs: 2.5 })
  assert.equal(timetable.scheduledAt(0), 10_002.5)
  assert.equal(timetable.scheduledAt(1000), 10_502.5)
  // Absolute: asking again, or out of order, gives the same time.
  assert.equal(timetable.scheduledAt(10), 10_007.5)
  assert.equal(timetable.scheduledAt(0), 10_002.5)
})

test('a rate over N workers: equal shares, offsets that interleave their requests evenly', () => {
  const paces = [0, 1, 2, 3].map((workerIndex) =>
    workerPace({ rate: 4000, workerIndex, workerCount: 4, unitsPerRequest: 100 })
  )
  assert.deepEqual(paces.map((p) => p.profile.rateAt(0)), [1000, 1000, 1000, 1000])
  // Each worker sends 100 units every 100 ms; together one request every 25 ms.
  assert.deepEqual(paces.map((p) => createTimetable({ startAt: 0, ...p }).scheduledAt(0)), [0, 25, 50, 75])
  const due = paces.flatMap((pace) => {
    const timetable = createTimetable({ startAt: 0, ...pace })
    return [0, 100, 200].map((units) => timetable.scheduledAt(units))
  }).sort((a, b) => a - b)
  assert.deepEqual(due, [0, 25, 50, 75, 100, 125, 150, 175, 200, 225, 250, 275])
})

test('a rate that is not positive is refused', () => {
  assert.throws(() => createTimetable({ startAt: 0, unitsPerSecond: 0 }), RangeError)
})

test('stages over N workers: each worker its share of each stage, the requests still interleaved', () => {
  const stages = parseStages('2s:400,2s:800')
  const due = [0, 1].flatMap((workerIndex) => {
    const timetable = createTimetable({
      startAt: 1000, ...workerPace({ stages, workerIndex, workerCount: 2, unitsPerRequest: 100 })
    })
    const times = []
    for (let units = 0; timetable.scheduledAt(units) < 5000; units += 100) times.push(timetable.scheduledAt(units))
    return times
  }).sort((a, b) => a - b)
  // 400/s: a request of 100 every 250 ms for 2 s; then 800/s: every 125 ms for 2 s.
  const expected = []
  for (let t = 1000; t < 3000; t += 250) expected.push(t)
  for (let t = 3000; t < 5000; t += 125) expected.push(t)
  assert.deepEqual(due.map((t) => Math.round(t * 1000) / 1000), expected)
})

test('a steer moves what is due after it, keeps what was due before, and says it changed', () => {
  const timetable = createTimetable({ startAt: 0, ...workerPace({ rate: 10, workerIndex: 0, workerCount: 1,
    unitsPerRequest: 1 }), endMs: 10_000 })
  assert.equal(timetable.scheduledAt(5), 500)
  assert.equal(timetable.version, 0)
  timetable.steer(1000, 100)
  assert.equal(timetable.version, 1)
  assert.equal(timetable.scheduledAt(5), 500)
  assert.equal(timetable.scheduledAt(10), 1000)
  assert.equal(timetable.scheduledAt(110), 2000)
  assert.equal(timetable.requestsDueBefore(2000, 0, 1), 110, '10 units at 10/s, then 100 at 100/s')
  assert.equal(timetable.scheduledAt(10 + 900 + 1), Infinity, 'nothing due after the end of the run')
})

test('a backlog left at a steered rate is the steering\'s; one left at a planned stage is not', () => {
  const staged = createTimetable({ startAt: 0, ...workerPace({ stages: parseStages('1s:100,1s:10'), workerIndex: 0,
    workerCount: 1, unitsPerRequest: 1 }) })
  assert.deepEqual(staged.backlogDueBefore(1500, 20, 1), { requests: 80, before: 1000, steered: false })
  const steered = createTimetable({ startAt: 0, ...workerPace({ rate: 100, workerIndex: 0, workerCount: 1,
    unitsPerRequest: 1 }), endMs: 10_000 })
  steered.steer(1000, 10)
  assert.deepEqual(steered.backlogDueBefore(1500, 20, 1), { requests: 80, before: 1000, steered: true })
})
