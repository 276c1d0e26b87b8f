'use strict'

/**
 * A clock for tests: time stands still until nothing but timers is left to run, then jumps to
 * the next timer. Code under test gets { now, sleep } and never sees the real time, so timing
 * assertions can be exact on any machine, however loaded.
 */
class FakeClock {
  constructor (startMs = 1_000_000) {
    this.time = startMs
    this.timers = []
    this.sequence = 0
    this.now = () => this.time
    this.sleep = (ms) => new Promise((resolve) => {
      this.timers.push({ at: this.time + Math.max(0, ms), sequence: this.sequence++, resolve })
    })
  }

  /** Settles `promise`, advancing time timer by timer; fails on a promise nothing can settle. */
  async run (promise) {
    let settled = false
    promise.then(() => { settled = true }, () => { settled = true })
    for (;;) {
      // Every promise continuation queued so far runs before a setImmediate callback.
      await new Promise((resolve) => setImmediate(resolve))
      if (settled) return promise
      if (this.timers.length === 0) throw new Error('fake clock: nothing is scheduled, but the promise never settles')
      this.timers.sort((a, b) => a.at - b.at || a.sequence - b.sequence)
      const next = this.timers.shift()
      this.time = Math.max(this.time, next.at)
      next.resolve()
    }
  }

  /** A promise that resolves with `value` after `ms` of fake time. */
  after (ms, value) {
    return this.sleep(ms).then(() => value)
  }
}

module.exports = { FakeClock }
