'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { EventEmitter } = require('node:events')
const { Interrupts, holdSignals } = require('../../lib/cli/interrupts')

function watched () {
  const target = new EventEmitter()
  const clock = { ms: 0 }
  const seen = []
  const interrupts = new Interrupts({ target, now: () => clock.ms }).install()
  interrupts.on('interrupt', (event) => seen.push(event))
  return { target, clock, seen, interrupts }
}

test('counts SIGINT, SIGTERM and SIGHUP alike, remembers the first, and lets go of every handler', () => {
  const { target, clock, seen, interrupts } = watched()
  assert.equal(interrupts.interrupted, false)
  target.emit('SIGTERM', 'SIGTERM')
  clock.ms += 1000
  target.emit('SIGINT', 'SIGINT')
  clock.ms += 1000
  target.emit('SIGHUP', 'SIGHUP')
  assert.deepEqual(seen, [{ signal: 'SIGTERM', count: 1 }, { signal: 'SIGINT', count: 2 }, { signal: 'SIGHUP',
    count: 3 }])
  assert.equal(interrupts.firstSignal, 'SIGTERM')
  interrupts.uninstall()
  assert.equal(['SIGINT', 'SIGTERM', 'SIGHUP'].reduce((n, s) => n + target.listenerCount(s), 0), 0)
})

test('signals within 100 ms are one interruption (kill -TERM to a group that holds `timeout`)', () => {
  const { target, clock, seen } = watched()
  target.emit('SIGTERM', 'SIGTERM')
  clock.ms += 0.01
  target.emit('SIGTERM', 'SIGTERM')
  clock.ms += 99
  target.emit('SIGINT', 'SIGINT')
  assert.deepEqual(seen, [{ signal: 'SIGTERM', count: 1 }])
  clock.ms += 1
  target.emit('SIGINT', 'SIGINT')
  assert.deepEqual(seen.map((e) => e.count), [1, 2], 'a second Ctrl-C 100 ms later counts')
})

test('signals while the program loads are held (no default exit 130) and replayed to the run\'s watcher', async () => {
  const target = new EventEmitter()
  holdSignals(target)
  assert.equal(target.listenerCount('SIGINT'), 1, 'a handler from the first line on')
  target.emit('SIGINT', 'SIGINT')
  target.emit('SIGHUP', 'SIGHUP')
  const interrupts = new Interrupts({ target }).install()
  const seen = []
  interrupts.on('interrupt', (event) => seen.push(event))
  assert.equal(target.listenerCount('SIGINT'), 1, 'the holder gave way to the watcher')
  await new Promise((resolve) => setImmediate(resolve))
  assert.deepEqual(seen, [{ signal: 'SIGINT', count: 1 }])
})

test('the end of the parent study abandons what is in flight at once and ends the process within its grace',
  async () => {
    const target = new EventEmitter()
    const parentPipe = new (require('node:stream').PassThrough)()
    const exits = []
    const interrupts = new Interrupts({ target, now: () => 0, parentPipe, exit: (code) => exits.push(code),
      parentGoneGraceMs: 50 }).install()
    const seen = []
    interrupts.on('interrupt', (event) => seen.push(event))
    parentPipe.end()
    await new Promise((resolve) => setImmediate(resolve))
    assert.deepEqual(seen, [{ signal: 'the end of the study that started this run', count: 2 }],
      'as a second Ctrl-C: nobody waits for what is in flight')
    assert.deepEqual(exits, [])
    await new Promise((resolve) => setTimeout(resolve, 120))
    assert.deepEqual(exits, [4], 'ended, partial, whatever still held it')
    interrupts.uninstall()
  })
