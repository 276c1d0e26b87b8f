'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const summary = require('./summary-reporter')

async function * events (list) {
  for (const event of list) yield event
}

test('the quick check\'s last line: tests run, passed, failed, skipped and the time; each failure named', async () => {
  const lines = []
  for await (const line of summary(events([
    { type: 'test:pass', data: { name: 'a' } },
    { type: 'test:pass', data: { name: 'b', skip: 'no Chromium' } },
    { type: 'test:fail', data: { name: 'c', file: 'test/x.test.js' } },
    { type: 'test:pass', data: { name: 'suite', details: { type: 'suite' } } },
    { type: 'test:diagnostic', data: { message: 'tests 3' } }
  ]))) lines.push(line)
  assert.equal(lines[0], 'failed: test/x.test.js: c\n')
  assert.match(lines[1], /^\n3 tests: 1 passed, 1 failed, 1 skipped in \d+\.\d s\n$/)
})
