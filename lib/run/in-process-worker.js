'use strict'

const { EventEmitter } = require('node:events')
const { attachWorker } = require('./worker')

/**
 * A worker in the master's own process, for a run of one process (lib/run/worker-placement.js says when): the same
 * worker (lib/run/worker.js) over a channel of events instead of IPC, which spares a run a second Node process to
 * start and its modules to load (measured in README "Client cost"). To the worker group it looks like a forked
 * child: 'message' and 'exit' events, send(), kill(), connected. Messages are copied as IPC copies them (JSON), so
 * that neither side holds what the other changes.
 */
function inProcessWorker () {
  const child = new EventEmitter()
  const toWorker = new EventEmitter()
  const masterGone = new EventEmitter()
  let ended = false
  child.pid = process.pid
  child.connected = true
  // A forked worker that throws dies alone and the master reports what it measured; here the throw would take the
  // master with it, so while the worker runs, an exception nobody caught ends the worker as a failed one instead.
  const crashed = (error) => {
    if (ended) return
    child.emit('message', { type: 'fatal', message: error && error.message ? error.message : String(error) })
    end(1, null)
    // Its requests in flight are abandoned.
    masterGone.emit('gone')
  }
  process.on('uncaughtException', crashed)
  const end = (code, signal) => {
    if (ended) return
    ended = true
    child.connected = false
    process.off('uncaughtException', crashed)
    setImmediate(() => child.emit('exit', code, signal))
  }
  child.send = (message, callback) => {
    const copy = asSent(message)
    setImmediate(() => {
      if (!ended) toWorker.emit('message', copy)
      if (callback) callback(null)
    })
    return true
  }
  // The worker cannot be killed apart from its process: it is told its master is gone (its requests in flight
  // are abandoned) and counts as ended by the signal.
  child.kill = (signal = 'SIGTERM') => {
    if (ended) return false
    end(null, signal)
    masterGone.emit('gone')
    return true
  }
  attachWorker({
    send: (message) => new Promise((resolve) => {
      const copy = asSent(message)
      setImmediate(() => {
        if (!ended) child.emit('message', copy)
        resolve()
      })
    }),
    onMessage: (listener) => toWorker.on('message', listener),
    onMasterGone: (listener) => masterGone.on('gone', listener),
    leave: () => end(0, null),
    fail: (code) => end(code, null)
  })
  return child
}

const asSent = (message) => JSON.parse(JSON.stringify(message))

module.exports = { inProcessWorker }
