'use strict'

const { EventEmitter } = require('node:events')
const { UsageError, FatalError } = require('../base/errors')
const { sleep: systemSleep } = require('../base/clock')
const { formatMs } = require('../base/values')
const S = require('./statements')
const { measureClockOffset } = require('./clock-offset')
const { optionsDigest, differences } = require('./compared-options')

// States of a generator's row, in order. A row past 'ready' has joined the start.
const STARTED = new Set(['ready', 'running', 'done', 'failed'])
const FINISHED = new Set(['done', 'failed'])

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
    sleep = systemSleep, pollMs = 500 }) {
    super()
    Object.assign(this, { client, table, runId, index, count, host, toolVersion, barrierTimeoutMs })
    Object.assign(this, { clock, sleep, pollMs })
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
  async join ({ compared }) {
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
    if (await this.claim(this.index, 'registered', this.detail)) return clock
    // The index is taken: a pod started again before its run began takes its place; after that the run is over.
    const existing = await this.readRow(this.index)
    if (existing && !STARTED.has(existing.state)) {
      await this.writeOwnRow('registered', this.detail)
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
   * Marks this generator ready, waits until all N are, and returns the start: one instant on the server's clock,
   * chosen by whichever generator saw the fleet complete first, as this machine's wall-clock ms.
   */
  async barrier ({ leadMs = 2000 } = {}) {
    await this.writeOwnRow('ready', this.detail)
    const deadline = this.clock() + this.barrierTimeoutMs
    for (;;) {
      this.throwIfStopped('the start barrier')
      let start = await this.readRow(S.START_ROW)
      if (!start) {
        const rows = await this.runRows()
        const failed = rows.find((r) => r.generator >= 0 && r.state === 'failed')
        if (failed) {
          throw new FatalError(`generator ${failed.generator + 1} (${failed.host}) failed before the start: ` +
            `${failed.detail.error || 'no detail'}`)
        }
        const ready = new Set(rows.filter((r) => r.generator >= 0 && STARTED.has(r.state)).map((r) => r.generator))
        const missing = []
        for (let k = 0; k < this.count; k++) if (!ready.has(k)) missing.push(k)
        if (missing.length === 0) {
          await this.claim(S.START_ROW, 'start', { start_at_ms: Math.round(this.serverNow() + leadMs), by: this.index })
          start = await this.readRow(S.START_ROW)
        } else if (this.clock() >= deadline) {
          const known = new Map(rows.filter((r) => r.generator >= 0).map((r) => [r.generator, r]))
          const names = missing.map((k) => `${k + 1}${known.has(k) ? ` (${known.get(k).state} on ` +
            `${known.get(k).host})` : ' (never registered)'}`)
          throw new FatalError(`the start barrier of run ${this.runId} was not complete within --barrier_timeout ` +
            `${formatMs(this.barrierTimeoutMs)}: generator${missing.length === 1 ? '' : 's'} ${names.join(', ')} of ` +
            `${this.count} not ready`)
        } else {
          this.emit('waiting', { what: 'every generator to be ready', missing: missing.map((k) => k + 1) })
          await this.sleep(this.pollMs)
          continue
        }
      }
      this.startAtServerMs = start.detail.start_at_ms
      return { localStartMs: this.startAtServerMs - this.offsetMs, serverStartMs: this.startAtServerMs }
    }
  }

  /** Counts so far, every few seconds: what the steward knows of a generator that dies. */
  async heartbeat (counts) {
    this.detail = { ...this.detail, counts, reported_at_server_ms: Math.round(this.serverNow()) }
    await this.writeOwnRow('running', this.detail)
  }

  async done (summary) {
    this.detail = { ...this.detail, ...summary, reported_at_server_ms: Math.round(this.serverNow()) }
    await this.writeOwnRow('done', this.detail)
  }

  async failed (message) {
    await this.writeOwnRow('failed', { ...this.detail, error: message })
  }

  /**
   * The steward, after its own run: waits until every other generator is done or failed, or has not reported for
   * deadAfterMs (it died). Returns the rows of all generators, each with `dead` set.
   */
  async awaitOthers ({ deadAfterMs }) {
    const waitStarted = this.clock()
    for (;;) {
      this.throwIfStopped('the other generators to finish')
      const rows = await this.runRows()
      const byIndex = new Map(rows.filter((r) => r.generator >= 0).map((r) => [r.generator, r]))
      const generators = []
      const waiting = []
      for (let k = 0; k < this.count; k++) {
        const row = byIndex.get(k) || { generator: k, state: 'missing', host: null, at: null, detail: {} }
        const lastHeard = Math.max(Number(row.at) || 0, row.detail.reported_at_server_ms || 0)
        const silentFor = row.at === null ? this.clock() - waitStarted : this.serverNow() - lastHeard
        const dead = !FINISHED.has(row.state) && silentFor > deadAfterMs
        generators.push({ ...row, dead })
        if (!FINISHED.has(row.state) && !dead) waiting.push(k + 1)
      }
      if (waiting.length === 0) return generators
      this.emit('waiting', { what: 'the other generators to finish', missing: waiting })
      await this.sleep(this.pollMs)
    }
  }

  async storeReconciliation (detail) {
    if (!(await this.claim(S.RECONCILED_ROW, 'reconciled', detail))) {
      await this.writeRow(S.RECONCILED_ROW, 'reconciled', detail)
    }
  }
}

/** Rows of runRowsSql as objects, their detail parsed. */
function rowsOf (answer) {
  return answer.rows.map(([generator, state, host, at, detail]) => ({ generator, state, host, at,
    detail: parseDetail(detail) }))
}

function parseDetail (text) {
  if (!text) return {}
  try {
    return JSON.parse(text)
  } catch {
    return {}
  }
}

/** The fleet's rows of one run, for the merged report: its generators, its start, its reconciliation. */
async function readFleetRun (client, table, runId) {
  await client.sql(`REFRESH TABLE ${table.sql}`)
  const rows = rowsOf(await client.sql(S.runRowsSql(table), [runId]))
  return {
    generators: rows.filter((r) => r.generator >= 0),
    prepare: rows.find((r) => r.generator === S.PREPARE_ROW) || null,
    start: rows.find((r) => r.generator === S.START_ROW) || null,
    reconciled: rows.find((r) => r.generator === S.RECONCILED_ROW) || null
  }
}

module.exports = { FleetCoordinator, readFleetRun }
