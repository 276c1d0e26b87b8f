'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { grouped, fmt } = require('../../lib/base/format')
const { Random } = require('../../lib/base/random')

test('grouped writes what toLocaleString en-US writes, for integers, fractions, signs and edges', () => {
  const samples = [0, -0, 1, -1, 999, 1000, -1000, 1234567, 1e20, 1e21, 0.004, 0.005, 0.015, 1.005, 4.35, 2.675,
    -0.001, 123456.785, 99.995, 999999.999, Number.MAX_SAFE_INTEGER, NaN, Infinity, -Infinity, 1e-7]
  const random = new Random(11, 'format')
  for (let i = 0; i < 2000; i++) {
    const digits = random.int(12)
    samples.push((random.int(2 ** 30) / 10 ** random.int(5)) * (i % 2 ? -1 : 1) * 10 ** (digits % 4))
  }
  for (const x of samples) {
    for (const digits of [0, 2]) {
      assert.equal(grouped(x, digits), x.toLocaleString('en-US', { maximumFractionDigits: digits }), `${x}, ${digits}`)
    }
  }
})

test('fmt groups numbers with two decimals at most and shows a missing value as -', () => {
  assert.equal(fmt(1234.5678), '1,234.57')
  assert.equal(fmt(null), '-')
  assert.equal(fmt('p99'), 'p99')
})
