'use strict'

// The one file that touches undici's internals. Two choices here were measured, and both lean on undici 7's
// internals, so undici is pinned to an exact version in package.json:
// - undici's Pool alone (`undici/lib/dispatcher/pool`): the package's index loads every dispatcher, mock and cache,
//   which doubles the start-up of each worker process (about 30 ms more).
// - The dispatcher's legacy handler hooks (onConnect, onHeaders, onData, onComplete, onError), which undici 7 marks
//   deprecated in favour of onRequestStart/onResponseStart/onResponseData/onResponseEnd/onResponseError: the smallest
//   handler that collects an answer, no stream and no header object per answer (docs/client-cost.md). Moving to the
//   new hooks is a change of this file alone.
const Pool = require('undici/lib/dispatcher/pool')
const { cutShort } = require('./http-errors')
const { grouped } = require('../base/format')

/** A keep-alive connection pool to one host (undici's Pool). */
function createPool (base, options) {
  return new Pool(base, options)
}

/**
 * One request through undici's dispatcher, with the smallest handler that collects the answer: no
 * stream, no header object per answer. Resolves { statusCode, contentType, text }. `watch` is the request's
 * entry in the client's deadline watch: it gets the abort function, and an answer larger than
 * `watch.maxAnswerBytes` is cut off with ETOOLARGE, since holding it would take the process down.
 */
function dispatch (pool, options, watch) {
  return new Promise((resolve, reject) => {
    const chunks = []
    let statusCode = 0
    let contentType = null
    let bytes = 0
    pool.dispatch(options, {
      onConnect (abort) {
        watch.abort = abort
        if (watch.expired) abort(watch.expired)
      },
      onHeaders (status, rawHeaders) {
        statusCode = status
        for (let i = 0; i < rawHeaders.length; i += 2) {
          const name = rawHeaders[i]
          if (name.length === 12 && name.toString('latin1').toLowerCase() === 'content-type') {
            contentType = rawHeaders[i + 1].toString('latin1')
          }
        }
        return true
      },
      onData (chunk) {
        bytes += chunk.length
        if (bytes > watch.maxAnswerBytes) {
          chunks.length = 0
          watch.abort(cutShort('ETOOLARGE', `more than ${grouped(watch.maxAnswerBytes)} bytes`))
          return false
        }
        chunks.push(chunk)
        return true
      },
      onComplete () {
        const text = chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks).toString('utf8')
        resolve({ statusCode, contentType, text })
      },
      onError: reject
    })
  })
}

module.exports = { createPool, dispatch }
