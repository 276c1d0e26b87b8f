'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { maskCredentials, redact, addSecret } = require('../../lib/base/secrets')
const { errorLine } = require('../../lib/base/errors')

test('credentials in a host are masked by their shape, whatever the password holds', () => {
  const cases = [
    ['crate:PW@host:4200', 'crate:***@host:4200'],
    ['https://crate:Zq/9x@h', 'https://crate:***@h'],
    ['https://crate:pw@x@h:4200', 'https://crate:***@h:4200'],
    ["invalid host 'https://crate:p:w@h': bad", "invalid host 'https://crate:***@h': bad"],
    ['--host http://u:p@a:1,http://u:p@b:2', '--host http://u:***@a:1,http://u:***@b:2'],
    ['user@host and a@b', 'user@host and a@b'],
    ['http://h:4200', 'http://h:4200']
  ]
  for (const [text, masked] of cases) assert.equal(maskCredentials(text), masked, text)
})

test('a registered password is masked in any form a message carries it', () => {
  addSecret('Zq/9x@word')
  assert.equal(redact('raw Zq/9x@word, encoded Zq%2F9x%40word'), 'raw ***, encoded ***')
  addSecret('ab')
  assert.equal(redact('a cab'), 'a cab', 'a password under 3 characters is masked by shape only')
})

test('errorLine: one line, control characters escaped, passwords masked', () => {
  addSecret('S3cr3t')
  assert.equal(errorLine('bad\nthing \u001b[31m at http://crate:S3cr3t@h and S3cr3t'),
    'bad thing \\u001b[31m at http://crate:***@h and ***')
})
