'use strict'

// The end of a fleet run, as methods of FleetCoordinator (lib/fleet/coordinator.js): the steward waits for every
// other generator, the others wait for the finish, a silent finisher's finish is taken over through a claim with one
// winner, and the first reconciliation stored is the fleet's one verdict.

const S = require('./statements')
const { lastHeardOf } = require('./fleet-rows')

const FINISHED = new Set(['done', 'failed'])

const finishMethods = {
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
        const lastHeard = lastHeardOf(row)
        const silentFor = row.at === null ? this.clock() - waitStarted : this.serverNow() - lastHeard
        const dead = !FINISHED.has(row.state) && silentFor > deadAfterMs
        // How long the silence had lasted when it was judged: what a death took to notice.
        generators.push({ ...row, dead, silent_ms: dead ? Math.round(silentFor) : null,
          last_heard_server_ms: row.at === null ? null : lastHeard })
        if (!FINISHED.has(row.state) && !dead) waiting.push(k + 1)
      }
      if (waiting.length === 0) return generators
      this.emit('waiting', { what: 'the other generators to finish', missing: waiting })
      await this.keepAlive('done')
      await this.sleep(this.pollMs)
    }
  },

  /**
   * A generator that does not finish the fleet, after its own run: waits, reading rows by their whole key only, until
   * the fleet is reconciled. When its finisher (first the steward) stops heartbeating, the lowest-numbered living
   * generator takes the finish over, through a claim with one winner. Returns { finishedBy } once another finished,
   * or { takeOver: true, deadFinishers } when this generator is to finish.
   */
  async awaitFinish ({ deadAfterMs }) {
    let finisher = this.stewardIndex
    const deadFinishers = []
    for (;;) {
      this.throwIfStopped('the fleet to be finished')
      const reconciled = await this.readRow(S.RECONCILED_ROW)
      if (reconciled) return { finishedBy: reconciled.detail.finished_by ?? finisher }
      const row = await this.readRow(finisher)
      // A finisher that failed (its run threw) will not finish either: its row says so at once.
      if ((row && row.state === 'failed') || this.silentFor(row) > deadAfterMs) {
        deadFinishers.push(finisher)
        const candidate = await this.lowestLiving(deadFinishers, deadAfterMs)
        if (candidate === this.index) {
          if (await this.claim(S.takeoverRow(finisher), 'finishing', { by: this.index, after: finisher })) {
            return { takeOver: true, deadFinishers }
          }
          finisher = (await this.readRow(S.takeoverRow(finisher))).detail.by
        } else {
          finisher = candidate
        }
        this.emit('finisher', { dead: deadFinishers[deadFinishers.length - 1], next: finisher })
      } else {
        this.emit('waiting', { what: `generator ${finisher + 1} to finish the fleet`, missing: [] })
      }
      await this.keepAlive('done')
      await this.sleep(this.pollMs)
    }
  },

  /** The lowest-numbered generator that is neither a dead finisher nor silent: read one row at a time, by key. */
  async lowestLiving (deadFinishers, deadAfterMs) {
    for (let k = 0; k < this.count; k++) {
      if (k === this.index) return k
      if (deadFinishers.includes(k)) continue
      const row = await this.readRow(k)
      if (row && row.state !== 'failed' && this.silentFor(row) <= deadAfterMs) return k
    }
    return this.index
  },

  /**
   * Before a finisher finishes: whether another generator took its finish over while it was silent (paused past the
   * death rule). Its heartbeat is written first, so that nobody takes a finisher that is back for dead. Returns the
   * generator that took it over, or null when the finish is this one's.
   */
  async finishTakenBy () {
    this.lastBeatAt = null
    await this.keepAlive('done')
    const takeover = await this.readRow(S.takeoverRow(this.index))
    return takeover && takeover.detail.by !== this.index ? takeover.detail.by : null
  },

  /** The generator whose reconciliation the fleet has, or null before one is stored. */
  async reconciledBy () {
    const stored = await this.readRow(S.RECONCILED_ROW)
    return stored ? stored.detail.finished_by ?? null : null
  },

  /**
   * The fleet's one verdict: the first reconciliation stored stays (a claim with one winner), never overwritten by a
   * finisher that came back late. Returns true when this one is the fleet's, else the generator whose is.
   */
  async storeReconciliation (detail) {
    if (await this.claim(S.RECONCILED_ROW, 'reconciled', detail)) return true
    return this.reconciledBy()
  }
}

module.exports = { finishMethods }
