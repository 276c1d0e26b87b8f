'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { arrayTypeOf, arrayText } = require('../../lib/cluster/pg-arrays')

test('a column as one PostgreSQL array: its type from its first value, its values quoted, objects as their JSON',
  () => {
    assert.deepEqual([{ a: 1 }, 7, 7.5, true, 'x', null].map(arrayTypeOf),
      ['object', 'bigint', 'double precision', 'boolean', 'text', 'text'])
    assert.equal(arrayText(['a"b', 'c\\d', null, undefined, 3, { k: 'v' }]),
      '{"a\\"b","c\\\\d",NULL,NULL,"3","{\\"k\\":\\"v\\"}"}')
  })
