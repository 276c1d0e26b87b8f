'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { Random } = require('../../lib/base/random')

test('same seed, same sequence; different seed, different sequence', () => {
  const a = new Random(42, 'x')
  const b = new Random(42, 'x')
  const c = new Random(43, 'x')
  const seqA = Array.from({ length: 20 }, () => a.nextUint32())
  assert.deepEqual(Array.from({ length: 20 }, () => b.nextUint32()), seqA)
  assert.notDeepEqual(Array.from({ length: 20 }, () => c.nextUint32()), seqA)
})

test('int(n) is roughly uniform and in range', () => {
  const r = new Random(7)
  const counts = new Array(10).fill(0)
  for (let i = 0; i < 100_000; i++) {
    const v = r.int(10)
    assert.ok(v >= 0 && v < 10)
    counts[v]++
  }
  for (const c of counts) assert.ok(Math.abs(c - 10_000) < 500, `bucket ${c}`)
  const between = new Random(1)
  for (let i = 0; i < 1000; i++) {
    const v = between.intBetween(5, 7)
    assert.ok(v >= 5 && v <= 7)
  }
})
