'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { lostNodeLines } = require('../../lib/reports/provisioned')

test('a node that died is named with its cause and last lines; without a cause in its log, that is said', () => {
  const lost = { node: 'c-n1', pid: 42, cause: 'java.lang.OutOfMemoryError: Java heap space', last_lines: ['a', 'b'] }
  assert.deepEqual(lostNodeLines(lost), ['warning: c-n1 (pid 42) of the cluster this run started is no longer ' +
    'running: java.lang.OutOfMemoryError: Java heap space; its last log lines:', '    a', '    b'])
  assert.match(lostNodeLines({ ...lost, cause: null })[0],
    /is no longer running: no cause in its log \(killed from outside\?\); its last log lines:$/)
  assert.deepEqual(lostNodeLines({ node: 'c-n1', pid: 42, cause: null, last_lines: [], logs_with: 'the study' },
    'the cluster the study started'), ['warning: c-n1 (pid 42) of the cluster the study started is no longer ' +
    'running; its logs: the study\'s, which names its cause'])
})

test('a started cluster\'s stop is one line whoever started it: stopped, or the warning of a stop that failed', () => {
  const { stoppedLine } = require('../../lib/reports/provisioned')
  assert.equal(stoppedLine('crate-bench-1a', 'this run'),
    'stopped the cluster this run started (crate-bench-1a); nothing of it is left')
  assert.equal(stoppedLine('crate-bench-1a', 'this study', new Error('node n2 did not stop')),
    'warning: stopping the cluster this study started: node n2 did not stop')
})
