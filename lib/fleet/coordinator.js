'use strict'

const { EventEmitter } = require('node:events')
const { UsageError, FatalError } = require('../base/errors')
const { sleep: systemSleep } = require('../base/clock')
const { formatMs } = require('../base/values')
const S = require('./statements')
const { lastHeardOf, rowsOf, parseDetail, readFleetRun } = require('./fleet-rows')
const { finishMethods } = require('./fleet-finish')
const { measureClockOffset } = require('./clock-offset')
const { optionsDigest, differences } = require('./compared-options')

// States of a generator's row, in order. A row past 'ready' has joined the start.
const STARTED = new Set(['ready', 'running', 'done', 'failed'])

/**
 * One generator's part in a fleet, coordinated through a table on the cluster under test: no coordinator process, no
 * port of its own. join() registers it with its clock offset; prepareOnce() lets exactly one generator (the
 * steward) prepare the tables while the others wait for it; barrier() waits until all N are ready and returns the
 * one start instant, on the server's clock, converted to this machine's; heartbeat() keeps its counts current;
 * done() ends its part; the steward then awaitOthers() and stores the fleet's reconciliation.
 * Emits 'waiting' ({ what, missing }) while it waits, for the progress of a person watching.
 */
class FleetCoordinator extends EventEmitter {
  constructor ({ client, table, runId, index, count, host, toolVersion, barrierTimeoutMs, clock = Date.now,
    sleep = systemSleep, pollMs = 500, heartbeatMs = 2000 }) {
    super()
    Object.assign(this, { client, table, runId, index, count, host, toolVersion, barrierTimeoutMs })
    Object.assign(this, { clock, sleep, pollMs, heartbeatMs })
    this.lastBeatAt = null
    this.offsetMs = 0
    this.detail = {}
    this.steward = false
    // This generator's writes to its own row, one after another: a count sent a moment before 'done' must not land
    // after it and make a finished generator look running (the steward would then take it for dead).
    this.ownWrites = Promise.resolve()
  }

  /** Ends every wait at its next poll (Ctrl-C). */
  stop () {
    this.stopped = true
  }

  throwIfStopped (what) {
    if (this.stopped) throw new FatalError(`${this.name}: interrupted while waiting for ${what}`)
  }

  get name () {
    return `generator ${this.index + 1}/${this.count}`
  }

  serverNow () {
    return this.clock() + this.offsetMs
  }

  async sql (stmt, args, what) {
    try {
      return await this.client.sql(stmt, args)
    } catch (error) {
      throw new FatalError(`fleet table ${this.table.display}: ${what}: ${error.message}`)
    }
  }

  async readRow (generator) {
    const answer = await this.sql(S.readRowSql(this.table), [this.runId, generator], 'cannot read a row')
    const row = answer.rows[0]
    return row ? { state: row[0], host: row[1], at: row[2], detail: parseDetail(row[3]) } : null
  }

  async writeRow (generator, state, detail) {
    return this.sql(S.updateRowSql(this.table), [state, this.host, JSON.stringify(detail), this.runId, generator],
      `cannot set ${state}`)
  }

  async claim (generator, state, detail) {
    const answer = await this.sql(S.claimSql(this.table), [this.runId, generator, state, this.host,
      JSON.stringify(detail)], `cannot write ${state}`)
    return answer.rowcount === 1
  }

  /** Every row of the run, after a REFRESH: a search sees only what a refresh made visible (captures 70–72). */
  async runRows () {
    await this.sql(`REFRESH TABLE ${this.table.sql}`, undefined, 'cannot refresh')
    return rowsOf(await this.sql(S.runRowsSql(this.table), [this.runId], 'cannot read the run'))
  }

  /** Writes this generator's row after every earlier write of it has been answered. */
  writeOwnRow (state, detail) {
    const write = this.ownWrites.then(() => this.writeRow(this.index, state, detail))
    this.ownWrites = write.catch(() => {})
    return write
  }

  /** The fleet table, this machine's clock offset, and this generator's row. */
  async join ({ compared, deadAfterMs = Infinity }) {
    try {
      await this.client.sql(S.createFleetTableSql(this.table))
    } catch (error) {
      // Two generators creating it at the same moment: one of them is told it exists.
      if (!/already exists/i.test(error.message)) {
        throw new FatalError(`cannot create the fleet table ${this.table.display}: ${error.message}`)
      }
    }
    const clock = await measureClockOffset(this.client, { clock: this.clock })
    this.offsetMs = clock.offsetMs
    this.compared = compared
    this.detail = {
      tool_version: this.toolVersion,
      options_digest: optionsDigest(compared),
      clock_offset_ms: clock.offsetMs,
      clock_rtt_ms: clock.rttMs
    }
    if (await this.claim(this.index, 'registered', this.detail)) {
      this.joined = true
      return clock
    }
    // The index is taken: a pod started again before its run began takes its place (also one evicted while it waited
    // at the barrier, as long as the fleet has not started); after that the run is over.
    const existing = await this.readRow(this.index)
    const rejoin = existing && (!STARTED.has(existing.state) ||
      (existing.state === 'ready' && this.silentFor(existing) > deadAfterMs && !(await this.readRow(S.START_ROW))))
    if (rejoin) {
      await this.writeOwnRow('registered', this.detail)
      this.joined = true
      return clock
    }
    throw new FatalError(
      `${this.name} of run ${this.runId} has already ${existing ? `run (${existing.state}, on ${existing.host})` :
        'registered'}: start the fleet again with a new --run_id`)
  }

  /**
   * Exactly one generator prepares (drops and creates the tables) and marks them prepared; the others wait for that
   * and take what it prepared. Its options are the fleet's: a generator whose options differ is refused.
   * Returns { steward, prepared, seed }.
   */
  async prepareOnce (prepareFn, { seed, seedGiven }) {
    const claim = { generator: this.index, host: this.host, tool_version: this.toolVersion, seed,
      compared: this.compared }
    if (await this.claim(S.PREPARE_ROW, 'preparing', claim)) {
      this.steward = true
      this.stewardIndex = this.index
      let prepared
      try {
        prepared = await prepareFn()
      } catch (error) {
        await this.writeRow(S.PREPARE_ROW, 'failed', { ...claim, error: error.message }).catch(() => {})
        throw error
      }
      await this.writeRow(S.PREPARE_ROW, 'prepared', { ...claim, prepared })
      return { steward: true, prepared, seed }
    }
    const deadline = this.clock() + this.barrierTimeoutMs
    for (;;) {
      this.throwIfStopped('the tables to be prepared')
      const row = await this.readRow(S.PREPARE_ROW)
      if (row) {
        this.refuseDifferences(row.detail, { seedGiven, seed })
        if (row.state === 'prepared') {
          const { prepared, seed, generator } = row.detail
          this.stewardIndex = generator
          return { steward: false, prepared, seed, stewardIndex: generator }
        }
        if (row.state === 'failed') {
          throw new FatalError(`generator ${row.detail.generator + 1} (${row.host}) could not prepare the tables: ` +
            `${row.detail.error}`)
        }
      }
      if (this.clock() >= deadline) {
        throw new FatalError(`the tables of run ${this.runId} were not prepared within --barrier_timeout ` +
          `${formatMs(this.barrierTimeoutMs)} (${row ? `generator ${row.detail.generator + 1} on ${row.host} is ` +
          'still preparing' : 'no generator claimed the preparation'})`)
      }
      this.emit('waiting', { what: 'the tables to be prepared', missing: [] })
      await this.sleep(this.pollMs)
    }
  }

  refuseDifferences (steward, { seedGiven, seed }) {
    const here = { ...this.compared }
    const there = { ...steward.compared }
    // A seed left to chance here is the fleet's.
    if (!seedGiven) delete there.seed
    if (seedGiven && there.seed === undefined) there.seed = steward.seed
    if (seedGiven) here.seed = seed
    const found = differences(here, there)
    if (steward.tool_version !== this.toolVersion) {
      found.unshift(`tool version: ${this.toolVersion} here, ${steward.tool_version} there`)
    }
    if (found.length > 0) {
      throw new UsageError(`${this.name} does not run the fleet's options (those of generator ` +
        `${steward.generator + 1} on ${steward.host}): ${found.join('; ')}`)
    }
  }

  /**
   * Marks this generator ready, waits until all N are, and returns the start: one instant on the server's clock, as
   * this machine's wall-clock ms. Only the steward refreshes and searches the fleet table (a search does not see rows
   * before a REFRESH: captures 70–72, 75–79) and claims the start row; every other generator reads the start row and
   * the steward's row by their whole key, real-time and cheap (76), so the barrier's cost does not grow with N.
   * `deadAfterMs`: a steward silent that long has died, and the fleet cannot start.
   */
  async barrier ({ leadMs = 2000, deadAfterMs = Infinity } = {}) {
    await this.writeOwnRow('ready', this.detail)
    const start = this.steward ? await this.startFleet(leadMs, deadAfterMs) : await this.awaitStart(deadAfterMs)
    this.startAtServerMs = start.detail.start_at_ms
    return { localStartMs: this.startAtServerMs - this.offsetMs, serverStartMs: this.startAtServerMs }
  }

  /**
   * The steward's part of the barrier: the one search of the fleet, until all are ready, then the start row. A
   * generator that went silent while it waited (its pod evicted) is not ready: the fleet waits for it to come back
   * (a restarted pod takes its place) until --barrier_timeout.
   */
  async startFleet (leadMs, deadAfterMs) {
    const deadline = this.clock() + this.barrierTimeoutMs
    for (;;) {
      this.throwIfStopped('the start barrier')
      const rows = await this.runRows()
      const failed = rows.find((r) => r.generator >= 0 && r.state === 'failed')
      if (failed) {
        await this.abortStart(`generator ${failed.generator + 1} (${failed.host}) failed before the start: ` +
          `${failed.detail.error || 'no detail'}`)
      }
      const alive = (r) => r.generator === this.index || this.silentFor(r) <= deadAfterMs
      const ready = new Set(rows.filter((r) => r.generator >= 0 && STARTED.has(r.state) && alive(r))
        .map((r) => r.generator))
      const missing = []
      for (let k = 0; k < this.count; k++) if (!ready.has(k)) missing.push(k)
      if (missing.length === 0) {
        await this.claim(S.START_ROW, 'start', { start_at_ms: Math.round(this.serverNow() + leadMs), by: this.index })
        return this.readRow(S.START_ROW)
      }
      if (this.clock() >= deadline) {
        const known = new Map(rows.filter((r) => r.generator >= 0).map((r) => [r.generator, r]))
        const names = missing.map((k) => `${k + 1}${known.has(k) ? ` (${this.stateWithSilence(known.get(k))} on ` +
          `${known.get(k).host})` : ' (never registered)'}`)
        await this.abortStart(`the start barrier of run ${this.runId} was not complete within --barrier_timeout ` +
          `${formatMs(this.barrierTimeoutMs)}: generator${missing.length === 1 ? '' : 's'} ${names.join(', ')} of ` +
          `${this.count} not ready`)
      }
      this.emit('waiting', { what: 'every generator to be ready', missing: missing.map((k) => k + 1) })
      await this.keepAlive('ready')
      await this.sleep(this.pollMs)
    }
  }

  /** A row's state, and how long it has been silent when that is long enough to matter. */
  stateWithSilence (row) {
    const silent = this.silentFor(row)
    return silent > this.heartbeatMs * 2 ? `${row.state}, silent for ${formatMs(silent)}` : row.state
  }

  /** The start row says why the fleet will not start, so that every generator stops with the steward's words. */
  async abortStart (message) {
    await this.claim(S.START_ROW, 'aborted', { error: message, by: this.index }).catch(() => {})
    throw new FatalError(message)
  }

  /** Every other generator's part of the barrier: the start row and the steward's row, by their whole key. */
  async awaitStart (deadAfterMs) {
    const deadline = this.clock() + this.barrierTimeoutMs + Math.min(deadAfterMs, this.barrierTimeoutMs)
    for (;;) {
      this.throwIfStopped('the start barrier')
      const start = await this.readRow(S.START_ROW)
      if (start && start.state === 'start') return start
      if (start && start.state === 'aborted') throw new FatalError(start.detail.error)
      const steward = await this.readRow(this.stewardIndex)
      if (this.silentFor(steward) > deadAfterMs) {
        throw new FatalError(`the steward, generator ${this.stewardIndex + 1}${steward ? ` (${steward.host})` : ''}, ` +
          `stopped before the start (silent for ${formatMs(this.silentFor(steward))}): the fleet cannot start`)
      }
      if (this.clock() >= deadline) {
        throw new FatalError(`the start barrier of run ${this.runId} was not complete within --barrier_timeout ` +
          `${formatMs(this.barrierTimeoutMs)}: the steward, generator ${this.stewardIndex + 1}, did not start it`)
      }
      this.emit('waiting', { what: 'every generator to be ready', missing: [] })
      await this.keepAlive('ready')
      await this.sleep(this.pollMs)
    }
  }

  /** How long a generator's row has been silent, on the server's clock; Infinity for a row that is not there. */
  silentFor (row) {
    if (!row) return Infinity
    return this.serverNow() - lastHeardOf(row)
  }

  /** While it waits, a generator's row stays fresh, so that nobody takes a waiting generator for a dead one. */
  async keepAlive (state) {
    if (this.lastBeatAt !== null && this.clock() - this.lastBeatAt < this.heartbeatMs) return
    this.lastBeatAt = this.clock()
    this.detail = { ...this.detail, reported_at_server_ms: Math.round(this.serverNow()) }
    await this.writeOwnRow(state, this.detail).catch(() => {})
  }

  /**
   * Every few seconds from the start to the end of this generator's process: its counts while it loads (what the
   * finisher knows of a generator that dies), then only that it is alive (a finisher that stops beating while it
   * reconciles would be taken for dead, and its finish taken over).
   */
  async beat (counts) {
    // A failed generator's row is final: a heartbeat queued behind it would make it 'running' again, and then dead.
    if (this.hasFailed) return
    if (this.isDone) {
      this.lastBeatAt = null
      return this.keepAlive('done')
    }
    if (!counts) return
    // One heartbeat at a time: on a cluster whose writes take longer than a heartbeat, queued writes would each land
    // later than the counts they carry (a partition test's last one landed 15 s after its counts); the next beat
    // carries newer ones.
    if (this.beating) return
    this.beating = true
    try {
      this.detail = { ...this.detail, counts, reported_at_server_ms: Math.round(this.serverNow()) }
      await this.writeOwnRow('running', this.detail)
    } finally {
      this.beating = false
    }
  }

  async done (summary) {
    this.isDone = true
    this.detail = { ...this.detail, ...summary, reported_at_server_ms: Math.round(this.serverNow()) }
    await this.writeOwnRow('done', this.detail)
  }

  /**
   * This generator failed. One refused at join (the index is another's) has no row of its own to write. `counts`,
   * where it knows them (its load ended, its result could not be stored), are its final ones: the last heartbeat's
   * may be older than its last rows, which the fleet's verdict would then find in the table unaccounted for.
   */
  async failed (message, counts = null) {
    if (!this.joined) return
    this.hasFailed = true
    const final = counts ? { counts, counts_final: true, reported_at_server_ms: Math.round(this.serverNow()) } : {}
    await this.writeOwnRow('failed', { ...this.detail, ...final, error: message })
  }
}

// The end of a fleet run (lib/fleet/fleet-finish.js): waiting for the others, the finish taken over, the one verdict.
Object.assign(FleetCoordinator.prototype, finishMethods)

module.exports = { FleetCoordinator, readFleetRun }
