'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { WeightedSchedule } = require('../../lib/data/schedule')

const countPicks = (schedule, n, size) => {
  const counts = new Array(size).fill(0)
  for (let i = 0; i < n; i++) counts[schedule.next()]++
  return counts
}

test('1000 picks of 0.7 / 0.2 / 0.1 give 700 / 200 / 100', () => {
  assert.deepEqual(countPicks(new WeightedSchedule([0.7, 0.2, 0.1]), 1000, 3), [700, 200, 100])
})

test('every prefix of the schedule stays within one pick of its share, from any offset', () => {
  const ratios = [2 / 37, 10 / 37, 9 / 37, 8 / 37, 7 / 37, 1 / 37]
  for (const offset of [0, 1, 5]) {
    const schedule = new WeightedSchedule(ratios, offset)
    const counts = new Array(ratios.length).fill(0)
    for (let n = 1; n <= 2000; n++) {
      counts[schedule.next()]++
      ratios.forEach((r, i) => assert.ok(Math.abs(counts[i] - r * n) <= 1.5,
        `offset ${offset}, pick ${n}, query ${i}: ${counts[i]} vs ${r * n}`))
    }
  }
})
