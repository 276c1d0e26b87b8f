'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { StringPool, kvKey, KV_KEY_MIN_BYTES } = require('../../../lib/data/generators/strings')
const { Random } = require('../../../lib/base/random')
const { PayloadRowWriter } = require('../../../lib/data/models/loadtest')
const { KvRowWriter } = require('../../../lib/data/models/kv')

const rowsOf = (writer, count) => {
  const buffer = Buffer.alloc(count * writer.maxRowBytes)
  return JSON.parse(`[${buffer.toString('latin1', 0, writer.writeRows(buffer, 0, count))}]`)
}

test('kv keys: exactly the asked length, unique, the same for the same number', () => {
  const keys = Array.from({ length: 100_000 }, (_, n) => kvKey(n, 40))
  assert.ok(keys.every((k) => k.length === 40 && /^[0-9a-z]+$/.test(k)))
  assert.equal(new Set(keys).size, keys.length)
  assert.equal(kvKey(12345, 40), keys[12345])
  assert.equal(kvKey(7, KV_KEY_MIN_BYTES).length, KV_KEY_MIN_BYTES)
  assert.notEqual(kvKey(1, 40).slice(0, 8), kvKey(2, 40).slice(0, 8), 'neighbouring numbers spread over the key space')
})

test('kv rows: worker w of N writes the keys w, w+N, w+2N, ... with values of the asked length', () => {
  const written = []
  for (let w = 0; w < 3; w++) {
    const rows = rowsOf(new KvRowWriter({ seed: 1, workerIndex: w, workerCount: 3, keyBytes: 40, valueBytes: 16 }), 10)
    assert.ok(rows.every(([k, v]) => k.length === 40 && v.length === 16))
    written.push(...rows.map(([k]) => k))
  }
  assert.deepEqual(new Set(written), new Set(Array.from({ length: 30 }, (_, n) => kvKey(n, 40))))
  const again = rowsOf(new KvRowWriter({ seed: 1, workerIndex: 0, workerCount: 3, keyBytes: 40, valueBytes: 16 }), 10)
  assert.deepEqual(
    again.map(([, v]) => v),
    rowsOf(new KvRowWriter({ seed: 1, workerIndex: 0, workerCount: 3, keyBytes: 40, valueBytes: 16 }), 10).map(
      ([, v]) => v
    )
  )
})

test('loadtest rows: one string of exactly payload_bytes characters, JSON-safe, varied', () => {
  const rows = rowsOf(new PayloadRowWriter({ seed: 1, workerIndex: 0, payloadBytes: 512 }), 200)
  assert.ok(rows.every((r) => r.length === 1 && r[0].length === 512 && /^[A-Za-z0-9_-]+$/.test(r[0])))
  assert.equal(new Set(rows.map((r) => r[0])).size, 200)
  const big = rowsOf(new PayloadRowWriter({ seed: 1, workerIndex: 0, payloadBytes: 3_000_000 }), 1)
  assert.equal(big[0][0].length, 3_000_000, 'payloads longer than the pool still fit')
})

test('the string pool is seeded', () => {
  const a = new StringPool(new Random(5), 10)
  const b = new StringPool(new Random(5), 10)
  assert.equal(a.next(30), b.next(30))
})
