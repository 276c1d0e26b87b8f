'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { compileArgs } = require('../../../lib/data/generators/query-args')
const { REGIONS, SERVICE_ENVIRONMENTS } = require('../../../lib/data/generators/tsbs-hosts')
const { Random } = require('../../../lib/base/random')

const END = Date.UTC(2016, 0, 2)
const ctx = () => ({ scale: 50, dataEndMs: END })

test('generators draw from the TSBS data model', () => {
  const make = compileArgs([{ hostname: {} }, { region: {} }, { datacenter: {} }, { service_environment: {} },
    { int: { min: 3, max: 5 } }, { timestamp: { last: '1h' } }, 'literal', 7, { choice: ['a', 'b'] }], ctx(), 'q')
  const random = new Random(1)
  for (let i = 0; i < 500; i++) {
    const [host, region, dc, env, n, ts, literal, seven, choice] = make(random)
    assert.match(host, /^host_(\d|[1-4]\d)$/)
    assert.ok(REGIONS.some(([name]) => name === region))
    assert.ok(REGIONS.some(([, dcs]) => dcs.includes(dc)))
    assert.ok(SERVICE_ENVIRONMENTS.includes(env))
    assert.ok(n >= 3 && n <= 5)
    const t = Date.parse(ts)
    assert.ok(t <= END && t > END - 3_600_000, ts)
    assert.equal(literal, 'literal')
    assert.equal(seven, 7)
    assert.ok(['a', 'b'].includes(choice))
  }
})

test('the same seed draws the same args', () => {
  const make = compileArgs([{ hostname: {} }, { timestamp: { last: '6h' } }], ctx(), 'q')
  const a = new Random(9)
  const b = new Random(9)
  for (let i = 0; i < 20; i++) assert.deepEqual(make(a), make(b))
})

test('unknown or malformed generators are usage errors naming the query and arg', () => {
  assert.throws(() => compileArgs([{ hostnme: {} }], ctx(), 'q1'), /q1, arg 1: unknown arg generator 'hostnme'/)
  assert.throws(() => compileArgs([{ int: { min: 5, max: 1 } }], ctx(), 'q'), /int needs whole numbers min <= max/)
  assert.throws(() => compileArgs([{ timestamp: {} }], ctx(), 'q'), /timestamp needs last/)
  assert.throws(() => compileArgs([{ timestamp: { last: 'soon' } }], ctx(), 'q'), /timestamp last must be a duration/)
  assert.throws(() => compileArgs('x', ctx(), 'q'), /args must be a list/)
})

test('timestamp args record that the run needs the end of the data', () => {
  const c = { scale: 1 }
  compileArgs([{ hostname: {} }], c, 'q')
  assert.equal(c.needsDataEnd, undefined)
  compileArgs([{ timestamp: { last: '1h' } }], c, 'q')
  assert.equal(c.needsDataEnd, true)
})

test('kv_key draws keys of the kv model below the number written; kv_value random values', () => {
  const { kvKey } = require('../../../lib/data/generators/strings')
  const context = { scale: 1, kvKeys: 50 }
  const make = compileArgs([{ kv_key: {} }, { kv_value: { bytes: 8 } }], context, 'q')
  assert.equal(context.needsKvKeys, true)
  const existing = new Set(Array.from({ length: 50 }, (_, n) => kvKey(n, 40)))
  const random = new Random(2)
  const drawn = new Set()
  for (let i = 0; i < 1000; i++) {
    const [key, value] = make(random)
    assert.ok(existing.has(key), key)
    assert.match(value, /^[A-Za-z0-9_-]{8}$/)
    drawn.add(key)
  }
  assert.equal(drawn.size, 50, 'every key is reachable')
  assert.throws(() => compileArgs([{ kv_key: { bytes: 4 } }], {}, 'q'),
    /q, arg 1: kv_key bytes must be a whole number of at least 18 \(got 4\)/)
})
