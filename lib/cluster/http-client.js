'use strict'

const { EventEmitter } = require('node:events')
const { systemClock } = require('../base/clock')
const {
  CrateHttpError, TransportError, NEVER_SENT_CODES, HOST_DOWN_CODES, normalizeCode, describeTransportFailure,
  parseErrorBody, cutShort, DEFAULT_MAX_ANSWER_BYTES
} = require('./http-errors')
const { createPool, dispatch } = require('./undici-dispatch')

// How often requests are checked against their deadline: the deadline holds to within this.
const DEADLINE_CHECK_MAX_MS = 250

const FIRST_PAUSE_MS = 1000
const MAX_PAUSE_MS = 10_000
const WAIT_SLICE_MS = 100
const PROBE_TIMEOUT_MS = 2000
// After the load, how long a host may take to answer SELECT 1 before the master's statements leave it out.
const SETTLE_PROBE_TIMEOUT_MS = 5000

/**
 * One CrateDB node: its connection pool and whether it answers. A host that refuses or resets
 * connections is down for a pause (1 s, doubling up to 10 s); after the pause a `SELECT 1` tries
 * it ('probing'), never a request of the workload, and it rejoins when that gets any HTTP answer.
 */
class Host {
  constructor (h, poolOptions) {
    this.base = `${h.protocol}://${h.hostname.includes(':') ? `[${h.hostname}]` : h.hostname}:${h.port}`
    this.poolOptions = poolOptions
    this.pool = createPool(this.base, poolOptions)
    this.state = 'up'
    this.pauseMs = 0
    this.downUntil = 0
  }

  /** Abandons every request in flight; new requests get a fresh pool. */
  resetPool () {
    const old = this.pool
    this.pool = createPool(this.base, this.poolOptions)
    old.destroy().catch(() => {})
  }
}

/**
 * A thin CrateDB HTTP client: round-robin over the hosts that answer, failover past the ones that
 * do not, keep-alive pools sized to the requests in flight, a per-request timeout, basic auth, and
 * TLS verified unless told otherwise. Emits 'host-down' ({ host, detail, at }) and 'host-up'
 * ({ host, at }). When every host has been down for longer than the timeout, requests fail with
 * ENOHOST: the cluster is gone.
 *
 * A request that never left (refused) fails, unless `retryUnsent` is set: the master's own
 * statements (DDL, refresh, count) then go to the next host, since nothing was sent.
 */
class CrateClient extends EventEmitter {
  constructor ({
    hosts,
    user,
    password,
    insecure = false,
    timeoutMs = 60_000,
    maxSockets = 20,
    downHosts = [],
    retryUnsent = false,
    maxAnswerBytes = DEFAULT_MAX_ANSWER_BYTES,
    timeoutName = '--timeout',
    clock = systemClock
  }) {
    super()
    this.bulkEncoding = 'json'
    this.timeoutMs = timeoutMs
    // Where the timeout came from, for the error that names it.
    this.timeoutName = timeoutName
    this.maxAnswerBytes = maxAnswerBytes
    // undici's timeouts are between chunks: an answer that trickles a byte at a time would never time out.
    // Every request in flight is watched against its own deadline, headers and body together.
    this.watched = new Set()
    this.deadlineTimer = null
    this.deadlineCheckMs = Math.max(5, Math.min(DEADLINE_CHECK_MAX_MS, Math.floor(timeoutMs / 10)))
    this.retryUnsent = retryUnsent
    this.clock = clock
    const poolOptions = {
      connections: maxSockets,
      pipelining: 1,
      keepAliveTimeout: 30_000,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs
    }
    if (hosts.some((h) => h.protocol === 'https')) poolOptions.connect = { rejectUnauthorized: !insecure }
    this.hosts = hosts.map((h) => new Host(h, poolOptions))
    this.next = 0
    this.upCount = this.hosts.length
    this.allDownSince = null
    this.waitsEndAt = null
    this.nextProbeAt = Infinity
    // Requests sent before the latest abort() that fail were abandoned, not lost by the network.
    this.sentCount = 0
    this.abortedUpTo = 0
    this.probes = new Set()
    const auth = Buffer.from(`${user}:${password || ''}`).toString('base64')
    this.headers = ['content-type', 'application/json', 'authorization', `Basic ${auth}`, 'accept', 'application/json']
    for (const base of downHosts) {
      const host = this.hosts.find((h) => h.base === base)
      if (host) this.markDown(host, 'unreachable before the run', { silent: true })
    }
  }

  /**
   * SELECT 1 on every host, each pinned: a host without an answer is marked down, and when none answers the
   * first failure is thrown at once, instead of waiting --timeout for a host to come back. An error answer or a
   * TLS failure is a wrong setting, not a host that is down: it is thrown at once, naming the host. Returns the
   * failures of the hosts that did not answer.
   */
  async requireOneHost () {
    const failures = []
    for (const host of this.hosts) {
      try {
        await this.sql('SELECT 1', undefined, { target: host })
      } catch (error) {
        if (!(error instanceof TransportError) || error.code === 'ETLS' || error.code === 'ECERT') {
          throw Object.assign(error, { host: host.base })
        }
        if (host.state === 'up') this.markDown(host, error.message, { silent: true })
        failures.push(error)
      }
    }
    if (failures.length === this.hosts.length) throw failures[0]
    return failures
  }

  /**
   * SELECT 1 on every host taken for up, at once, each bounded by `timeoutMs`: those that do not answer in time are
   * marked down (hosts gone silent during the load), so that the statements that follow go to the hosts that answer
   * instead of waiting out --timeout on a silent one, each. When none answers, none is marked: the statements then
   * judge as before. An error answer is an answer. Returns the hosts marked down.
   */
  async probeHosts ({ timeoutMs = Math.min(this.timeoutMs, SETTLE_PROBE_TIMEOUT_MS) } = {}) {
    const up = this.hosts.filter((h) => h.state === 'up')
    const silent = []
    await Promise.all(up.map(async (host) => {
      try {
        await this.post('{"stmt":"SELECT 1"}', { target: host, timeoutMs })
      } catch (error) {
        if (error instanceof TransportError) silent.push({ host, error })
      }
    }))
    if (silent.length === up.length) return []
    for (const { host, error } of silent) if (host.state === 'up') this.markDown(host, error.message)
    return silent.map(({ host }) => host.base)
  }

  /** The next host that answers, round-robin; down hosts whose pause is over are probed on the side. */
  pickHost () {
    if (this.clock.now() >= this.nextProbeAt) this.probeDueHosts()
    const n = this.hosts.length
    for (let i = 0; i < n; i++) {
      const host = this.hosts[this.next]
      this.next = this.next + 1 === n ? 0 : this.next + 1
      if (host.state === 'up') return host
    }
    return null
  }

  /** Every host is down: wait for one to be tried again, up to the timeout, or until the run stops (stopWaiting). */
  async waitForHost () {
    for (;;) {
      const host = this.pickHost()
      if (host) return host
      if (this.waitsEndAt !== null && this.clock.now() >= this.waitsEndAt) {
        const since = this.allDownSince === null ? '' : ` for ${Math.round(this.clock.now() - this.allDownSince)} ms`
        throw new TransportError({
          code: 'ENOHOST',
          message: `no host answers: all ${this.hosts.length} host${this.hosts.length === 1 ? ' was' : 's were'} ` +
            `down${since} when the run stopped`,
          sent: false
        })
      }
      if (this.allDownSince !== null && this.clock.now() - this.allDownSince > this.timeoutMs) {
        throw new TransportError({
          code: 'ENOHOST',
          message: `no host answers: all ${this.hosts.length} host${this.hosts.length === 1 ? ' has' : 's have'} ` +
            `been down for more than ${this.timeoutMs} ms (--timeout)`,
          sent: false
        })
      }
      await this.clock.sleep(WAIT_SLICE_MS)
    }
  }

  probeDueHosts () {
    for (const host of this.hosts) {
      if (host.state !== 'down' || this.clock.now() < host.downUntil) continue
      host.state = 'probing'
      // Any HTTP answer marks it up (post does); any failure marks it down for a longer pause.
      const probe = this.post('{"stmt":"SELECT 1"}', {
        target: host,
        timeoutMs: Math.min(this.timeoutMs, PROBE_TIMEOUT_MS)
      })
        .catch(() => {})
        .finally(() => this.probes.delete(probe))
      this.probes.add(probe)
    }
    this.updateNextProbe()
  }

  /** Resolves when the probes in flight have their answer. */
  async probesSettled () {
    await Promise.all(this.probes)
  }

  markDown (host, detail, { silent = false } = {}) {
    const wasUp = host.state === 'up'
    host.pauseMs = wasUp ? FIRST_PAUSE_MS : Math.min(MAX_PAUSE_MS, Math.max(FIRST_PAUSE_MS, host.pauseMs * 2))
    host.downUntil = this.clock.now() + host.pauseMs
    host.state = 'down'
    if (wasUp) {
      this.upCount--
      if (this.upCount === 0) this.allDownSince = this.clock.now()
      if (!silent) this.emit('host-down', { host: host.base, detail, at: this.clock.now() })
    }
    this.updateNextProbe()
  }

  /** The host of base URL `base` taken for down (another client found it so), when this client has it up. */
  markHostDown (base, detail) {
    const host = this.hosts.find((h) => h.base === base)
    if (host && host.state === 'up') this.markDown(host, detail, { silent: true })
  }

  markUp (host) {
    if (host.state === 'up') return
    host.state = 'up'
    host.pauseMs = 0
    this.upCount++
    this.allDownSince = null
    this.updateNextProbe()
    this.emit('host-up', { host: host.base, at: this.clock.now() })
  }

  updateNextProbe () {
    let at = Infinity
    for (const h of this.hosts) if (h.state === 'down' && h.downUntil < at) at = h.downUntil
    this.nextProbeAt = at
  }

  /**
   * POSTs a prepared body and resolves with the parsed answer of a 2xx response. Rejects with
   * CrateHttpError for error statuses and TransportError when no answer arrived. `target` pins
   * one host (the check of each host); otherwise the request goes to the next host that answers.
   * `parse` turns the answer text into what the caller accounts (JSON.parse unless the caller
   * knows a cheaper way for its answers).
   */
  async post (body, options = {}) {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.postOnce(body, options)
      } catch (error) {
        const retry = this.retryUnsent && !options.target && error instanceof TransportError && !error.sent &&
          error.code !== 'ENOHOST' && attempt < 10 * this.hosts.length
        if (!retry) throw error
      }
    }
  }

  async postOnce (body, { target = null, parse = JSON.parse, timeoutMs = this.timeoutMs } = {}) {
    const host = target || this.pickHost() || await this.waitForHost()
    const sequence = ++this.sentCount
    const deadline = this.clock.now() + timeoutMs
    const watch = { deadline, abort: null, expired: null, maxAnswerBytes: this.maxAnswerBytes }
    let statusCode, contentType, text
    try {
      // No abort signal per request: listening on one costs about a tenth of a small query's
      // client CPU; abort() replaces the pools instead.
      const options = { origin: host.base, path: '/_sql', method: 'POST', headers: this.headers, body }
      if (timeoutMs !== this.timeoutMs) Object.assign(options, { headersTimeout: timeoutMs, bodyTimeout: timeoutMs })
      ;({ statusCode, contentType, text } = await dispatch(host.pool, options, this.watch(watch)))
    } catch (error) {
      throw this.transportFailure(error, host, sequence, timeoutMs)
    } finally {
      this.watched.delete(watch)
    }
    this.markUp(host)
    if (statusCode < 200 || statusCode >= 300) {
      throw new CrateHttpError(parseErrorBody(statusCode, contentType, text))
    }
    try {
      return parse(text)
    } catch {
      throw new CrateHttpError({
        status: statusCode,
        code: 'EBADJSON',
        message: `answer from ${host.base} is not JSON: ${text.slice(0, 100)}`
      })
    }
  }

  transportFailure (error, host, sequence, timeoutMs) {
    const code = sequence <= this.abortedUpTo ? 'ABORTED' : normalizeCode(error)
    const detail = String(error && error.message)
    const failure = describeTransportFailure(code, detail, host.base, timeoutMs, this.timeoutName)
    if ((HOST_DOWN_CODES.has(failure.code) && host.state === 'up') || host.state === 'probing') {
      this.markDown(host, failure.message)
    }
    return new TransportError({ ...failure, host: host.base, sent: !NEVER_SENT_CODES.has(failure.code) })
  }

  /** One statement with parameters; values never go into the SQL text. */
  sql (stmt, args, options) {
    const payload = args === undefined ? { stmt } : { stmt, args }
    return this.post(JSON.stringify(payload), options)
  }

  /** The bases of the hosts that are down now, for clients started later (the workers). */
  downHosts () {
    return this.hosts.filter((h) => h.state !== 'up').map((h) => h.base)
  }

  /**
   * Abandons every request in flight (Ctrl-C twice): each rejects with TransportError ABORTED.
   * Requests sent afterwards go out as usual.
   */
  watch (entry) {
    this.watched.add(entry)
    if (this.deadlineTimer === null) {
      this.deadlineTimer = setInterval(() => this.cutOverdue(), this.deadlineCheckMs)
      this.deadlineTimer.unref()
    }
    return entry
  }

  /** Requests past their deadline fail as timeouts (in doubt: they were sent). */
  cutOverdue () {
    const now = this.clock.now()
    for (const entry of this.watched) {
      if (now < entry.deadline || entry.expired) continue
      entry.expired = cutShort('ETIMEDOUT', 'deadline passed')
      if (entry.abort) entry.abort(entry.expired)
    }
  }

  /**
   * The run stopped: a request waiting for every host to come back is never sent; waitForHost ends it at once, or
   * after `afterMs` (the master's statements after the load: a node that restarts has a moment, not --timeout).
   */
  stopWaiting ({ afterMs = 0 } = {}) {
    const at = this.clock.now() + afterMs
    if (this.waitsEndAt === null || at < this.waitsEndAt) this.waitsEndAt = at
  }

  abort () {
    this.abortedUpTo = this.sentCount
    for (const host of this.hosts) host.resetPool()
  }

  close () {
    clearInterval(this.deadlineTimer)
    this.deadlineTimer = null
    for (const host of this.hosts) host.pool.destroy().catch(() => {})
  }
}

module.exports = { CrateClient, CrateHttpError, TransportError, parseErrorBody, FIRST_PAUSE_MS, MAX_PAUSE_MS }
