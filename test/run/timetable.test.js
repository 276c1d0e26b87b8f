'use strict'

// The open model's timetable as a pure function: no clock, no timers.

const test = require('node:test')
const assert = require('node:assert/strict')
const { createTimetable, workerPace } = require('../../lib/run/timetable')

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
  assert.deepEqual(paces.map((p) => p.unitsPerSecond), [1000, 1000, 1000, 1000])
  // Each worker sends 100 units every 100 ms; together one request every 25 ms.
  assert.deepEqual(paces.map((p) => p.offsetMs), [0, 25, 50, 75])
  const due = paces.flatMap((pace) => {
    const timetable = createTimetable({ startAt: 0, ...pace })
    return [0, 100, 200].map((units) => timetable.scheduledAt(units))
  }).sort((a, b) => a - b)
  assert.deepEqual(due, [0, 25, 50, 75, 100, 125, 150, 175, 200, 225, 250, 275])
})

test('a rate that is not positive is refused', () => {
  assert.throws(() => createTimetable({ startAt: 0, unitsPerSecond: 0 }), RangeError)
})
