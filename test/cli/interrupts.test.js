'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { EventEmitter } = require('node:events')
const { Interrupts } = require('../../lib/cli/interrupts')

test('counts SIGINT and SIGTERM alike, remembers the first, and lets go of both handlers', () => {
  const target = new EventEmitter()
  const seen = []
  const interrupts = new Interrupts({ target }).install()
  interrupts.on('interrupt', (event) => seen.push(event))
  assert.equal(interrupts.interrupted, false)
  target.emit('SIGTERM', 'SIGTERM')
  target.emit('SIGINT', 'SIGINT')
  assert.deepEqual(seen, [{ signal: 'SIGTERM', count: 1 }, { signal: 'SIGINT', count: 2 }])
  assert.equal(interrupts.firstSignal, 'SIGTERM')
  interrupts.uninstall()
  assert.equal(target.listenerCount('SIGINT') + target.listenerCount('SIGTERM'), 0)
})
