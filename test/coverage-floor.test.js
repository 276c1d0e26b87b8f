'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { libCoverage } = require('./coverage-floor')

test('the coverage floor reads lib/\'s lines found and hit from an lcov report, and nothing else', () => {
  const report = [
    'TN:', 'SF:lib/base/clock.js', 'LF:10', 'LH:7', 'end_of_record',
    'TN:', 'SF:test/base/clock.test.js', 'LF:50', 'LH:50', 'end_of_record',
    'TN:', 'SF:lib/run/runner.js', 'LF:300', 'LH:270', 'end_of_record'
  ].join('\n')
  assert.deepEqual(libCoverage(report), [
    { file: 'lib/base/clock.js', found: 10, hit: 7 },
    { file: 'lib/run/runner.js', found: 300, hit: 270 }
  ])
})
