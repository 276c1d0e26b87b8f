'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { Resolution } = require('../../lib/results/resolution')

test('a second an interval for the first hour, then a minute; the index maps back to its start and length', () => {
  const r = new Resolution()
  assert.equal(r.indexOf(0), 0)
  assert.equal(r.indexOf(3_599_999), 3599)
  assert.equal(r.indexOf(3_600_000), 3600)
  assert.equal(r.indexOf(3_659_999), 3600)
  assert.equal(r.indexOf(3_660_000), 3601)
  assert.equal(r.startMs(3601), 3_660_000)
  assert.equal(r.lengthMs(3599), 1000)
  assert.equal(r.lengthMs(3601), 60_000)
  assert.equal(r.isFine(10), true)
  assert.equal(r.isFine(3600), false)
  // A day: 3,600 seconds and 1,380 minutes.
  assert.equal(r.indexOf(24 * 3_600_000 - 1), 3600 + 1380 - 1)
  assert.deepEqual(r.toJSON(), [{ from_s: 0, interval_s: 1 }, { from_s: 3600, interval_s: 60 }])
})

test('a stage that starts inside a minute cuts it: no interval spans two stages', () => {
  // Stages start at 0, 1 h 30 s and 2 h.
  const r = new Resolution({ breaksMs: [0, 3_630_000, 7_200_000] })
  assert.equal(r.indexOf(3_629_999), 3600)
  assert.equal(r.lengthMs(3600), 30_000, 'the minute before the stage is cut at its start')
  assert.equal(r.indexOf(3_630_000), 3601)
  assert.equal(r.startMs(3601), 3_630_000)
  const lastOfStage = r.indexOf(7_199_999)
  assert.equal(r.startMs(lastOfStage + 1), 7_200_000)
  assert.equal(r.lengthMs(lastOfStage), 30_000)
  const again = Resolution.fromJSON(r.toJSON())
  for (const at of [0, 3_600_000, 3_629_999, 3_630_000, 7_200_000, 9_000_000]) {
    assert.equal(again.indexOf(at), r.indexOf(at), `the same grid from the result, at ${at} ms`)
  }
})

test('without a coarser step (or a run of no resolution written) every interval is the fine one', () => {
  const r = Resolution.fromJSON(undefined, 1)
  assert.equal(r.indexOf(90_000_000), 90_000)
  assert.equal(r.lengthMs(90_000), 1000)
  assert.deepEqual(new Resolution({ fineForMs: Infinity }).toJSON(), [{ from_s: 0, interval_s: 1 }])
})
