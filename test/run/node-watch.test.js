'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { watchStartedNodes } = require('../../lib/run/node-watch')

/** Timers that tick by hand: tick() runs the interval's function once. */
function handTimers () {
  const timers = { fn: null, cleared: false }
  timers.setInterval = (fn) => { timers.fn = fn; return { unref () {} } }
  timers.clearInterval = () => { timers.cleared = true }
  timers.tick = () => { if (!timers.cleared) timers.fn() }
  return timers
}

test('a run on a cluster it started ends once every node\'s process is gone, the nodes named; not while one runs',
  () => {
    const running = new Set([101, 102])
    const started = { by: null, pids: [101, 102], lostNodes: () => [...[101, 102]].filter((p) => !running.has(p))
      .map((pid) => ({ node: `n${pid - 100}`, pid })) }
    const said = []
    const timers = handTimers()
    const stop = watchStartedNodes(started, { onAllGone: (why) => said.push(why), alive: (pid) => running.has(pid),
      timers })
    timers.tick()
    running.delete(101)
    timers.tick()
    assert.deepEqual(said, [], 'one node still runs: the client judges')
    running.delete(102)
    timers.tick()
    timers.tick()
    assert.deepEqual(said, ['every node of the cluster this run started is gone: n1 (pid 101), n2 (pid 102); their ' +
      'requests in flight are in doubt'])
    assert.equal(timers.cleared, true)
    stop()
  })

test('a cluster its study started is named so; a cluster whose pids are unknown is not watched', () => {
  const timers = handTimers()
  const said = []
  watchStartedNodes({ by: 'the study', pids: [7], lostNodes: () => [{ node: 'a', pid: 7 }] },
    { onAllGone: (why) => said.push(why), alive: () => false, timers })
  timers.tick()
  assert.match(said[0], /^every node of the cluster the study started is gone: a \(pid 7\)/)
  const none = handTimers()
  watchStartedNodes({ by: null, pids: null, lostNodes: () => [] }, { onAllGone: () => assert.fail('watched'),
    timers: none })
  assert.equal(none.fn, null)
  watchStartedNodes(undefined, { onAllGone: () => assert.fail('watched'), timers: none })
  assert.equal(none.fn, null)
})
