'use strict'

const { systemClock } = require('../base/clock')
const { createTimetable } = require('./timetable')
const { stopReason } = require('./stop-reason')
const { CrateHttpError, TransportError } = require('../cluster/http-client')

// After this many answers in a row lost to --timeout, the cluster is treated as gone: going on
// would only turn the rest of the run into timeouts. Hosts that refuse or reset connections are
// the client's failover's business: the run goes on while one host answers.
const MAX_CONSECUTIVE_TRANSPORT_FAILURES = 50
const FATAL_STATUSES = new Set([401, 413])
// Answers in a row that say the table (or schema) is unknown: someone dropped it mid-run, and
// every further request would be sent only to fail alike.
const MAX_CONSECUTIVE_UNKNOWN_RELATION = 10
const UNKNOWN_RELATION_CODES = new Set([4041, 4045])

// Waits sleep in slices so that stop() never waits for a long gap between requests.
const MAX_SLEEP_MS = 100

/**
 * Runs the workload's requests and accounts each answer exactly once, so ok + failed + in flight
 * always equals what was sent. Nothing is sent before `startAt` (the instant the master gave every
 * worker). Two models:
 *
 * closed (no pace): keeps exactly `concurrency` requests in flight, each lane sending its next
 *   request when its answer arrives, until the source runs dry, the deadline passes or
 *   `control.stop()` is called. Latency: send -> answer.
 * open (pace = { profile, offsetUnits } or { unitsPerSecond, offsetMs }): requests go out on the timetable
 *   (lib/run/timetable.js), which `timetable.steer` can change while the run goes,
 *   whatever the answers do, with at most `concurrency` in flight. Latency counts from each
 *   request's scheduled start, so a server that falls behind shows up in the percentiles instead
 *   of silently lowering the load (coordinated omission corrected). A request whose time came
 *   while every slot was busy is counted as late.
 *
 * `clock` ({ now, sleep }) is the only source of time, so tests run the engine on a fake one.
 *
 * source.next()              -> { body, units, label } or null when nothing is left
 * source.account(req, json)  -> { ok, failed, failures, serverMillis } for a 2xx answer
 * source.release(req)        -> optional, hands the request's buffer back
 * source.parse(text)         -> optional, parses a 2xx answer (default JSON.parse)
 */
async function runEngine ({
  client,
  source,
  concurrency,
  startAt = null,
  deadline = null,
  gracefulStopMs = null,
  recorder,
  control,
  pace = null,
  clock = systemClock
}) {
  control.onAbort(() => client.abort())
  // A request still waiting for a host at the stop was never sent: nothing to drain, it ends at once.
  if (typeof client.stopWaiting === 'function') control.onStop(() => client.stopWaiting())
  if (startAt !== null) await sleepUntil(startAt, control, clock)
  const execute = requestExecutor({ client, source, recorder, control, clock })
  const run = { source, concurrency, deadline, recorder, control, execute, clock }
  if (control.stopped) return control.reason
  const finished = { value: false }
  // A closed run's deadline can move (a steady warm-up ends before its cap): the grace and the stop read it anew.
  control.deadline = deadline
  const grace =
    deadline !== null && gracefulStopMs !== null
      ? abandonAfterGrace({ gracefulStopMs, control, clock, finished })
      : null
  if (pace) {
    const timetable = createTimetable({ startAt: startAt ?? clock.now(), endMs: deadline ?? Infinity, ...pace })
    control.timetable = timetable
    await runOpen({ ...run, timetable })
  }
  else {
    // The deadline stops the run on time even when every lane waits (for a host that went away, say): its lanes
    // look at the clock only between requests.
    const onTime = deadline !== null ? stopAtDeadline(control, clock) : null
    await runClosed(run)
    if (onTime) await onTime
  }
  finished.value = true
  if (grace) await grace
  return control.reason
}

async function stopAtDeadline (control, clock) {
  while (!control.stopped) {
    const deadline = control.deadline
    await sleepUntil(deadline, control, clock, () => control.deadline !== deadline)
    if (!control.stopped && control.deadline === deadline) control.stop(stopReason('duration'))
  }
}

/**
 * --duration ends the sending; the requests in flight then drain for at most --graceful_stop.
 * Those still without an answer after it are abandoned: their units are in doubt.
 */
async function abandonAfterGrace ({ gracefulStopMs, control, clock, finished }) {
  const abortAt = () => control.deadline + gracefulStopMs
  while (!finished.value && clock.now() < abortAt()) {
    await clock.sleep(Math.min(MAX_SLEEP_MS, abortAt() - clock.now()))
  }
  if (!finished.value) control.abort(stopReason('duration'))
}

async function sleepUntil (at, control, clock, moved = () => false) {
  let wait = at - clock.now()
  while (wait > 0 && !control.stopped && !moved()) {
    await clock.sleep(Math.min(wait, MAX_SLEEP_MS))
    wait = at - clock.now()
  }
}

/** Sends one request, accounts its answer, and decides whether the run can go on. */
function requestExecutor ({ client, source, recorder, control, clock }) {
  let consecutiveTransportFailures = 0
  let consecutiveUnknownRelation = 0
  return async function execute (request, latencyFrom, sentAt = latencyFrom) {
    let outcome
    try {
      const answer = await client.post(request.body, { parse: source.parse, units: request.units })
      outcome = accountOrMalformed(source, request, answer)
      consecutiveTransportFailures = 0
      consecutiveUnknownRelation = 0
    } catch (error) {
      outcome = failedOutcome(request, error)
      if (error instanceof TransportError) {
        consecutiveTransportFailures = error.code === 'ETIMEDOUT' ? consecutiveTransportFailures + 1 : 0
        if (error.code === 'ENOHOST') control.serverGone(stopReason('server_gone', error.message))
        else if (consecutiveTransportFailures >= MAX_CONSECUTIVE_TRANSPORT_FAILURES) {
          control.stop(stopReason('server_gone', error.message))
        }
      } else {
        consecutiveTransportFailures = 0
        consecutiveUnknownRelation = UNKNOWN_RELATION_CODES.has(error.code) ? consecutiveUnknownRelation + 1 : 0
        // Every further request would get the same answer: wrong credentials, batches over the
        // server's http.max_content_length, a table that is gone.
        if (FATAL_STATUSES.has(error.status)) control.stop(stopReason('fatal', error.message))
        if (consecutiveUnknownRelation >= MAX_CONSECUTIVE_UNKNOWN_RELATION) {
          control.stop(
            stopReason(
              'fatal',
              `${error.message} (${consecutiveUnknownRelation} answers in a row: the table was dropped during the run?)`
            )
          )
        }
      }
    }
    const answeredAt = clock.now()
    if (source.release) source.release(request)
    recorder.answered({
      label: request.label,
      units: request.units,
      latencyMicros: (answeredAt - latencyFrom) * 1000,
      // Its own time, send to answer: under --rate the latency counts from the schedule, --timeout from the send.
      ownMicros: (answeredAt - sentAt) * 1000,
      at: answeredAt,
      ...outcome
    })
  }
}

async function runClosed ({ source, concurrency, recorder, control, execute, clock }) {
  async function lane () {
    while (!control.stopped) {
      if (control.deadline !== null && clock.now() >= control.deadline) return control.stop(stopReason('duration'))
      const request = source.next()
      if (request === null) return control.stop(stopReason('completed'))
      const sentAt = clock.now()
      recorder.sent(request.units, sentAt)
      await execute(request, sentAt)
    }
  }
  const lanes = []
  for (let i = 0; i < concurrency; i++) lanes.push(lane())
  await Promise.all(lanes)
}

async function runOpen ({ source, concurrency, deadline, recorder, control, execute, clock, timetable }) {
  const inFlight = new Set()
  let unitsScheduled = 0
  let unitsPerRequest = timetable.unitsPerRequest
  let slotFreed = null
  while (!control.stopped) {
    const version = timetable.version
    const scheduledAt = timetable.scheduledAt(unitsScheduled)
    if ((deadline !== null && scheduledAt >= deadline) || scheduledAt === Infinity) {
      // Nothing more is due before the end, unless the rate changes before it: wait for the end or for that.
      if (deadline !== null) await sleepUntil(deadline, control, clock, () => timetable.version !== version)
      if (timetable.version !== version && !control.stopped) continue
      control.stop(stopReason('duration'))
      break
    }
    await sleepUntil(scheduledAt, control, clock, () => timetable.version !== version)
    if (control.stopped) break
    // The rate changed while this unit waited: its time moved, take it again.
    if (timetable.version !== version) continue
    const late = inFlight.size >= concurrency
    while (inFlight.size >= concurrency && !control.stopped) {
      await new Promise((resolve) => { slotFreed = resolve })
    }
    if (control.stopped) break
    if (timetable.version !== version) continue
    // A stage that ended (or a rate changed) while its units waited for a slot: they are not its load any more. A
    // planned stage's backlog is load the run could not offer (dropped); one a change of the rate left behind was
    // withdrawn by whoever changed it (a rate typed by mistake for a moment), not the cluster's shortfall.
    const backlog = timetable.backlogDueBefore(clock.now(), unitsScheduled, unitsPerRequest)
    if (backlog.requests > 0 && scheduledAt < backlog.before) {
      unitsScheduled += backlog.requests * unitsPerRequest
      if (backlog.steered) recorder.withdrawn(backlog.requests, backlog.requests * unitsPerRequest)
      else recorder.dropped(backlog.requests, backlog.requests * unitsPerRequest)
      continue
    }
    // A request that waited for a slot past the deadline is not sent: the run is over.
    if (late && deadline !== null && clock.now() >= deadline) {
      control.stop(stopReason('duration'))
      break
    }
    const request = source.next()
    if (request === null) {
      control.stop(stopReason('completed'))
      break
    }
    unitsScheduled += request.units
    unitsPerRequest = request.units
    // The window of the open model starts at the first request's scheduled time: the load it
    // offered. A first request that goes out late must not make the achieved rate read high.
    // Sending ends with the last request that went out, when it went out.
    const sentAt = clock.now()
    recorder.sent(request.units, scheduledAt, sentAt)
    if (late) recorder.late()
    const running = execute(request, scheduledAt, sentAt).finally(() => {
      inFlight.delete(running)
      if (slotFreed) {
        const wake = slotFreed
        slotFreed = null
        wake()
      }
    })
    inFlight.add(running)
  }
  const dropped = droppedRequests({ timetable, unitsScheduled, unitsPerRequest, deadline, reason: control.reason })
  if (dropped.requests > 0) recorder.dropped(dropped.requests, dropped.units)
  await Promise.all(inFlight)
}

/**
 * The requests the timetable held before --duration ended that never went out, because every slot stayed busy
 * (k6's dropped_iterations). Only a run that reached its deadline drops: an interrupted one is partial instead.
 */
function droppedRequests ({ timetable, unitsScheduled, unitsPerRequest, deadline, reason }) {
  const none = { requests: 0, units: 0 }
  if (deadline === null || !reason || reason.kind !== 'duration') return none
  const requests = timetable.requestsDueBefore(deadline, unitsScheduled, unitsPerRequest)
  return { requests, units: requests * unitsPerRequest }
}

/**
 * A 2xx answer whose shape the workload cannot read ({"results":[null]}, a body of null) fails the request's units:
 * the server answered, but said nothing this run can count as written.
 */
function accountOrMalformed (source, request, answer) {
  try {
    return source.account(request, answer)
  } catch (error) {
    const message = `malformed answer: ${error.message}`
    return {
      ok: 0,
      failed: request.units,
      inDoubt: 0,
      requestFailed: true,
      failures: [{ code: 'EMALFORMED', status: 200, message, count: request.units, inDoubt: false }]
    }
  }
}

/**
 * A request that got no usable answer: its units failed when the server said no or nothing was
 * sent; they are in doubt when the request was sent and its answer lost (they may be written).
 */
function failedOutcome (request, error) {
  if (!(error instanceof CrateHttpError) && !(error instanceof TransportError)) throw error
  const inDoubt = error instanceof TransportError && error.sent
  // Rows the server answered before the connection was lost stand as answered (a batch over the PostgreSQL protocol).
  const answered = inDoubt && error.answered ? error.answered : { ok: 0, failed: 0, failures: [] }
  const unsettled = request.units - answered.ok - answered.failed
  return {
    ok: answered.ok,
    failed: inDoubt ? answered.failed : request.units,
    inDoubt: inDoubt ? unsettled : 0,
    requestFailed: true,
    failures: [
      ...answered.failures,
      { code: error.code, status: error.status ?? null, message: error.message, count: unsettled, inDoubt }
    ]
  }
}

/**
 * stop(): no new requests, the ones in flight finish. abort(): also abandon those in flight.
 * The first reason given is the one kept.
 */
function createControl () {
  const abortHandlers = []
  const stopHandlers = []
  return {
    stopped: false,
    reason: null,
    aborted: false,
    stop (reason) {
      if (!this.reason) this.reason = reason
      if (this.stopped) return
      this.stopped = true
      for (const handler of stopHandlers.splice(0)) handler()
    },
    /**
     * No host answers any more: the run stops, and a run that reached its duration meanwhile is still one whose
     * server went away (partial), not a whole one.
     */
    serverGone (reason) {
      if (this.reason && this.reason.kind === 'duration') this.reason = reason
      this.stop(reason)
    },
    onStop (handler) {
      if (this.stopped) handler()
      else stopHandlers.push(handler)
    },
    timetable: null,
    deadline: null,
    /**
     * The deadline moved (a steady warm-up ended before its cap: the duration counts from there). A closed run only:
     * an open one's timetable ends at the deadline it started with, so a steady warm-up is refused with a rate.
     */
    moveDeadline (at) {
      if (this.deadline !== null && !this.timetable) this.deadline = at
    },
    /** A new rate from `at` on (this worker's share), for an open-model run; a closed one has no rate to change. */
    steer (at, unitsPerSecond) {
      if (this.timetable) this.timetable.steer(at, unitsPerSecond)
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

module.exports = {
  runEngine,
  createControl,
  MAX_CONSECUTIVE_TRANSPORT_FAILURES,
  MAX_CONSECUTIVE_UNKNOWN_RELATION,
  MAX_SLEEP_MS
}
