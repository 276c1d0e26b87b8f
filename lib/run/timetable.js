'use strict'

const { LoadProfile } = require('../data/load-profile')

/**
 * The open model's timetable (--rate, --stages): unit k of a worker is due at
 *   startAt + profile.timeOfUnits(k + offsetUnits)
 * Absolute times from one start that every worker shares, so a request that goes out late does not push the ones
 * after it back, and N workers cover one window instead of N skewed ones. At a constant rate this is
 * startAt + offsetMs + k * 1000 / unitsPerSecond. A rate changed while the run goes (steer) cuts the profile at that
 * instant: what was due before stays due, the rest follows the new rate. What was due before a stage began (or before
 * a rate was changed) and is still unsent once it began is no longer sent: the new stage's rate holds from its start
 * (backlogDueBefore). A pure function of its inputs: tested without a clock, in the way Rally tests its schedulers.
 */
function createTimetable ({
  startAt, profile = null, unitsPerSecond = null, offsetMs = 0, offsetUnits = 0, unitsPerRequest = 1, endMs = Infinity
}) {
  if (profile === null) {
    // A constant rate, as the tests and find-capacity's single steps give it.
    if (!(unitsPerSecond > 0)) throw new RangeError(`unitsPerSecond must be positive (got ${unitsPerSecond})`)
    profile = LoadProfile.constant(unitsPerSecond)
    offsetUnits += (offsetMs * unitsPerSecond) / 1000
  }
  let current = profile
  return {
    unitsPerRequest,
    /** Changes with every steer, so that a wait for the next unit can tell its time has moved. */
    version: 0,
    get profile () {
      return current
    },
    scheduledAt: (unitsBefore) => startAt + current.timeOfUnits(unitsBefore + offsetUnits),
    /** Requests of `unitsPerRequest` due from the one holding unit `unitsBefore` until `at` (k6's dropped). */
    requestsDueBefore: (at, unitsBefore, unitsPerRequest) => {
      const units = current.unitsBy(at - startAt) - offsetUnits - unitsBefore
      return units > 0 ? Math.ceil(units / unitsPerRequest - 1e-9) : 0
    },
    /**
     * The requests still to send at `now` that were due before the stage (or rate) in force at `now` began: dropped,
     * as the load of a stage that is over. { requests, before, steered } (before: the stage's start; steered: it
     * began with a change of the rate while the run went, so the backlog was withdrawn by the change, not dropped).
     */
    backlogDueBefore: (now, unitsBefore, unitsPerRequest) => {
      const before = startAt + current.segmentStartAt(now - startAt)
      const units = current.unitsBy(before - startAt) - offsetUnits - unitsBefore
      return { requests: units > 0 ? Math.ceil(units / unitsPerRequest - 1e-9) : 0, before,
        steered: current.steeredAt(now - startAt) }
    },
    steer (at, unitsPerSecond) {
      current = current.steered(Math.max(0, at - startAt), unitsPerSecond, endMs - startAt)
      this.version++
    }
  }
}

/**
 * The rate is over all processes: each takes an equal share of the profile, and worker w starts w/N of a request
 * after worker 0, so the processes' requests interleave instead of arriving in bursts.
 */
function workerPace ({ rate = null, stages = null, workerIndex, workerCount, unitsPerRequest }) {
  const whole = stages ? LoadProfile.ofStages(stages) : LoadProfile.constant(rate)
  return {
    profile: whole.scaled(1 / workerCount),
    unitsPerRequest,
    offsetUnits: (workerIndex / workerCount) * unitsPerRequest
  }
}

module.exports = { createTimetable, workerPace }
