'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { withDollars } = require('../../lib/base/placeholders')

test('? placeholders become $1, $2 … outside quoted text and identifiers', () => {
  assert.equal(withDollars('SELECT ?, \'?\', "a?b", ? FROM t WHERE x = ?'),
    'SELECT $1, \'?\', "a?b", $2 FROM t WHERE x = $3')
  assert.equal(withDollars('SELECT \'it\'\'s?\' WHERE a = ?'), 'SELECT \'it\'\'s?\' WHERE a = $1')
  assert.equal(withDollars('SELECT 1'), 'SELECT 1')
})
