'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { compileArgs } = require('../../lib/generators/query-args')
const { REGIONS, SERVICE_ENVIRONMENTS } = require('../../lib/generators/tsbs-hosts')
const { Random } = require('../../lib/random')

const END = Date.UTC(2016, 0, 2)
const ctx = () => ({ scale: 50, dataEndMs: END })

test('generators draw from the TSBS data model', () => {
  const make = compileArgs([{ hostname: {} }, { region: {} }, { datacenter: {} }, { service_environment: {} }, { int: { min: 3, max: 5 } }, { timestamp: { last: '1h' } }, 'literal', 7, { choice: ['a', 'b'] }], ctx(), 'q')
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
