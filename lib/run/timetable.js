'use strict'

/**
 * The open model's timetable (--rate): unit k of a worker is due at
 *   startAt + offsetMs + k * 1000 / unitsPerSecond
 * Absolute times from one start that every worker shares, so a request that goes out late does
 * not push the ones after it back, and N workers cover one window instead of N skewed ones.
 * A pure function of its inputs: tested without a clock, in the way Rally tests its schedulers.
 */
function createTimetable ({ startAt, unitsPerSecond, offsetMs = 0, unitsPerRequest = 1 }) {
  if (!(unitsPerSecond > 0)) throw new RangeError(`unitsPerSecond must be positive (got ${unitsPerSecond})`)
  const msPerUnit = 1000 / unitsPerSecond
  const firstAt = startAt + offsetMs
  return {
    unitsPerSecond,
    unitsPerRequest,
    scheduledAt: (unitsBefore) => firstAt + unitsBefore * msPerUnit
  }
}

/**
 * --rate is over all processes: each takes an equal share, and worker w starts w/N of a request
 * interval after worker 0, so the processes' requests interleave instead of arriving in bursts.
 */
function workerPace ({ rate, workerIndex, workerCount, unitsPerRequest }) {
  const unitsPerSecond = rate / workerCount
  const requestIntervalMs = (unitsPerRequest * 1000) / unitsPerSecond
  return { unitsPerSecond, unitsPerRequest, offsetMs: (workerIndex / workerCount) * requestIntervalMs }
}

module.exports = { createTimetable, workerPace }
