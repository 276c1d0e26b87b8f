'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { nearestOption, unknownOptionMessage, editDistance } = require('../../lib/cli/suggest')

const KNOWN = ['batch_size', 'processes', 'duration', 'run_id', 'rate', 'table', 'h']

test('the nearest declared option: the same letters, or one or two edits away', () => {
  assert.equal(nearestOption('batchsize', KNOWN), 'batch_size')
  assert.equal(nearestOption('batch-size', KNOWN), 'batch_size')
  assert.equal(nearestOption('batchSize', KNOWN), 'batch_size')
  assert.equal(nearestOption('proceses', KNOWN), 'processes')
  assert.equal(nearestOption('duraton', KNOWN), 'duration')
  assert.equal(nearestOption('run-id', KNOWN), 'run_id')
  assert.equal(nearestOption('rte', KNOWN), 'rate', 'one edit in a short name')
  assert.equal(nearestOption('xyz', KNOWN), null, 'two edits reach unrelated short names')
  assert.equal(nearestOption('nonsense', KNOWN), null)
  assert.equal(nearestOption('i', KNOWN), null, 'one-letter aliases are never suggested')
})

test('the message: the flag as typed, the suggestion, and where benchmark options go', () => {
  assert.equal(unknownOptionMessage('batchsize', KNOWN),
    'unknown option --batchsize (did you mean --batch_size? see --help)')
  assert.equal(unknownOptionMessage('bogus', KNOWN), 'unknown option --bogus (see --help)')
  assert.equal(unknownOptionMessage('x', KNOWN), 'unknown option -x (see --help)')
  assert.equal(unknownOptionMessage('duraton', KNOWN, { afterDash: true }),
    "unknown option --duraton (did you mean --duration? benchmark options go after '--'; see --help)")
})

test('edit distance', () => {
  assert.equal(editDistance('kitten', 'sitting'), 3)
  assert.equal(editDistance('', 'abc'), 3)
  assert.equal(editDistance('same', 'same'), 0)
})
