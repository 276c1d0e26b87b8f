'use strict'

const { now } = require('./clock')
const { CrateHttpError, TransportError } = require('./http-client')

// After this many answers in a row that never arrived, the cluster is treated as gone: going on
// would only turn the rest of the run into timeouts.
const MAX_CONSECUTIVE_TRANSPORT_FAILURES = 50
const FATAL_STATUSES = new Set([401, 413])

/**
 * Keeps exactly `concurrency` requests in flight until the source runs dry, the deadline passes,
 * or `control.stop()` is called. Every request ends in `recorder.answered` exactly once, so
 * ok + failed always equals what was sent.
 *
 * source.next()              -> { body, units, label } or null when nothing is left
 * source.account(req, json)  -> { ok, failed, failures, serverMillis } for a 2xx answer
 * source.release(req)        -> optional, hands the request's buffer back
 * source.parse(text)         -> optional, parses a 2xx answer (default JSON.parse)
 */
async function runEngine ({ client, source, concurrency, deadline = null, recorder, control }) {
  let consecutiveTransportFailures = 0
  control.onAbort(() => client.abort())

  const finish = (reason) => {
    if (!control.reason) control.reason = reason
    control.stopped = true
  }

  async function lane () {
    while (!control.stopped) {
      if (deadline !== null && now() >= deadline) return finish('duration')
      const request = source.next()
      if (request === null) return finish('completed')
      const sentAt = now()
      recorder.sent(request.units, sentAt)
      let outcome
      try {
        const answer = await client.post(request.body, { parse: source.parse })
        outcome = source.account(request, answer)
        consecutiveTransportFailures = 0
      } catch (error) {
        outcome = failedOutcome(request, error)
        if (error instanceof TransportError) {
          consecutiveTransportFailures++
          if (error.code === 'ECONNREFUSED' || consecutiveTransportFailures >= MAX_CONSECUTIVE_TRANSPORT_FAILURES) {
            finish(`server_gone: ${error.message}`)
          }
        } else {
          consecutiveTransportFailures = 0
          // Every further request would get the same answer: wrong credentials, or batches over
          // the server's http.max_content_length.
          if (FATAL_STATUSES.has(error.status)) finish(`fatal: ${error.message}`)
        }
      }
      const answeredAt = now()
      if (source.release) source.release(request)
      recorder.answered({
        label: request.label,
        units: request.units,
        latencyMicros: (answeredAt - sentAt) * 1000,
        at: answeredAt,
        ...outcome
      })
    }
  }

  const lanes = []
  for (let i = 0; i < concurrency; i++) lanes.push(lane())
  await Promise.all(lanes)
  return control.reason
}

/** A request that got no usable answer fails all of its units with one error. */
function failedOutcome (request, error) {
  if (!(error instanceof CrateHttpError) && !(error instanceof TransportError)) throw error
  return {
    ok: 0,
    failed: request.units,
    requestFailed: true,
    failures: [{ code: error.code, status: error.status ?? null, message: error.message, count: request.units }]
  }
}

/** stop(): no new requests, the ones in flight finish. abort(): also abandon those in flight. */
function createControl () {
  const abortHandlers = []
  return {
    stopped: false,
    reason: null,
    aborted: false,
    stop (reason) {
      if (!this.reason) this.reason = reason
      this.stopped = true
    },
    onAbort (handler) {
      if (this.aborted) handler()
      else abortHandlers.push(handler)
    },
    abort (reason) {
      this.stop(reason)
      if (this.aborted) return
      this.aborted = true
      for (const handler of abortHandlers) handler()
    }
  }
}

module.exports = { runEngine, createControl, MAX_CONSECUTIVE_TRANSPORT_FAILURES }
