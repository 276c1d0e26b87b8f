'use strict'

const { now } = require('./clock')
const { CrateHttpError, TransportError } = require('./http-client')

// After this many answers in a row that never arrived, the cluster is treated as gone: going on
// would only turn the rest of the run into timeouts.
const MAX_CONSECUTIVE_TRANSPORT_FAILURES = 50
const FATAL_STATUSES = new Set([401, 413])

// A paced run sleeps in slices so that stop() never waits for a long gap between requests.
const MAX_SLEEP_MS = 100

/**
 * Runs the workload's requests and accounts each answer exactly once, so ok + failed always
 * equals what was sent. Two models:
 *
 * closed (no pace): keeps exactly `concurrency` requests in flight, each lane sending its next
 *   request when its answer arrives, until the source runs dry, the deadline passes or
 *   `control.stop()` is called. Latency: send -> answer.
 * open (pace = { unitsPerSecond, offsetMs }): requests go out on a fixed timetable, unit k at
 *   start + k / unitsPerSecond, whatever the answers do, with at most `concurrency` in flight.
 *   Latency counts from each request's scheduled start, so a server that falls behind shows up
 *   in the percentiles instead of silently lowering the load (coordinated omission corrected).
 *   A request whose time came while every slot was busy is counted as late.
 *
 * source.next()              -> { body, units, label } or null when nothing is left
 * source.account(req, json)  -> { ok, failed, failures, serverMillis } for a 2xx answer
 * source.release(req)        -> optional, hands the request's buffer back
 * source.parse(text)         -> optional, parses a 2xx answer (default JSON.parse)
 */
async function runEngine ({ client, source, concurrency, deadline = null, recorder, control, pace = null }) {
  control.onAbort(() => client.abort())
  const execute = requestExecutor({ client, source, recorder, control })
  if (pace) await runOpen({ source, concurrency, deadline, recorder, control, pace, execute })
  else await runClosed({ source, concurrency, deadline, recorder, control, execute })
  return control.reason
}

/** Sends one request, accounts its answer, and decides whether the run can go on. */
function requestExecutor ({ client, source, recorder, control }) {
  let consecutiveTransportFailures = 0
  return async function execute (request, latencyFrom) {
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
          control.stop(`server_gone: ${error.message}`)
        }
      } else {
        consecutiveTransportFailures = 0
        // Every further request would get the same answer: wrong credentials, or batches over
        // the server's http.max_content_length.
        if (FATAL_STATUSES.has(error.status)) control.stop(`fatal: ${error.message}`)
      }
    }
    const answeredAt = now()
    if (source.release) source.release(request)
    recorder.answered({
      label: request.label,
      units: request.units,
      latencyMicros: (answeredAt - latencyFrom) * 1000,
      at: answeredAt,
      ...outcome
    })
  }
}

async function runClosed ({ source, concurrency, deadline, recorder, control, execute }) {
  async function lane () {
    while (!control.stopped) {
      if (deadline !== null && now() >= deadline) return control.stop('duration')
      const request = source.next()
      if (request === null) return control.stop('completed')
      const sentAt = now()
      recorder.sent(request.units, sentAt)
      await execute(request, sentAt)
    }
  }
  const lanes = []
  for (let i = 0; i < concurrency; i++) lanes.push(lane())
  await Promise.all(lanes)
}

async function runOpen ({ source, concurrency, deadline, recorder, control, pace, execute }) {
  const msPerUnit = 1000 / pace.unitsPerSecond
  const start = now() + (pace.offsetMs || 0)
  const inFlight = new Set()
  let unitsScheduled = 0
  let slotFreed = null
  while (!control.stopped) {
    // Absolute times: a request that goes out late does not push the ones after it back.
    const scheduledAt = start + unitsScheduled * msPerUnit
    if (deadline !== null && scheduledAt >= deadline) {
      control.stop('duration')
      break
    }
    let wait = scheduledAt - now()
    while (wait > 0 && !control.stopped) {
      await sleep(Math.min(wait, MAX_SLEEP_MS))
      wait = scheduledAt - now()
    }
    if (control.stopped) break
    const late = inFlight.size >= concurrency
    while (inFlight.size >= concurrency && !control.stopped) {
      await new Promise((resolve) => { slotFreed = resolve })
    }
    if (control.stopped) break
    // A request that waited for a slot past the deadline is not sent: the run is over.
    if (late && deadline !== null && now() >= deadline) {
      control.stop('duration')
      break
    }
    const request = source.next()
    if (request === null) {
      control.stop('completed')
      break
    }
    unitsScheduled += request.units
    recorder.sent(request.units, now())
    if (late) recorder.late()
    const running = execute(request, scheduledAt).finally(() => {
      inFlight.delete(running)
      if (slotFreed) {
        const wake = slotFreed
        slotFreed = null
        wake()
      }
    })
    inFlight.add(running)
  }
  await Promise.all(inFlight)
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

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
