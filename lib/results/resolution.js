'use strict'

const { round } = require('../base/format')

// A day-long run's timeline stays a few MB: one second an interval for the first hour, then a minute.
const FINE_FOR_MS = 3_600_000
const COARSE_MS = 60_000

/**
 * The timeline's intervals on the load's clock: `intervalMs` each for the first `fineForMs`, then `coarseMs` each.
 * A coarse interval never spans a break (a stage's start): a stage is judged on whole intervals of its own. Maps an
 * offset from the load's start to its interval's index, and an index to its start and length.
 */
class Resolution {
  constructor ({ intervalMs = 1000, fineForMs = FINE_FOR_MS, coarseMs = COARSE_MS, breaksMs = [] } = {}) {
    const starts = [{ startMs: 0, stepMs: intervalMs }]
    if (Number.isFinite(fineForMs) && coarseMs > intervalMs) {
      starts.push({ startMs: fineForMs, stepMs: coarseMs })
      for (const at of [...new Set(breaksMs)].sort((a, b) => a - b)) {
        if (at > fineForMs) starts.push({ startMs: at, stepMs: coarseMs })
      }
    }
    this.intervalMs = intervalMs
    this.segments = withIndexes(starts)
  }

  /** Rebuilt from a result's `timeline.resolution` (a merge of several runs' timelines lines them up on one). */
  static fromJSON (list, intervalS = 1) {
    const resolution = new Resolution({ intervalMs: intervalS * 1000, fineForMs: Infinity })
    if (Array.isArray(list) && list.length > 0) {
      resolution.segments = withIndexes(list.map((s) => ({ startMs: s.from_s * 1000, stepMs: s.interval_s * 1000 })))
    }
    return resolution
  }

  segmentOf (offsetMs) {
    return lastAtOrBefore(this.segments, 'startMs', offsetMs)
  }

  indexOf (offsetMs) {
    const segment = this.segmentOf(Math.max(0, offsetMs))
    return segment.firstIndex + Math.floor((Math.max(0, offsetMs) - segment.startMs) / segment.stepMs)
  }

  segmentOfIndex (index) {
    return lastAtOrBefore(this.segments, 'firstIndex', index)
  }

  startMs (index) {
    const segment = this.segmentOfIndex(index)
    return segment.startMs + (index - segment.firstIndex) * segment.stepMs
  }

  /** An interval's length: its step, shorter where a break cuts it. */
  lengthMs (index) {
    const segment = this.segmentOfIndex(index)
    const start = this.startMs(index)
    return Math.min(segment.stepMs, segment.endMs - start)
  }

  /** Whether this interval is longer or shorter than the fine step (its entry then says its length). */
  isFine (index) {
    return this.lengthMs(index) === this.intervalMs
  }

  toJSON () {
    return this.segments.map((s) => ({ from_s: round(s.startMs / 1000, 3), interval_s: round(s.stepMs / 1000, 3) }))
  }
}

/** The last of `segments` (ordered by `key`) whose `key` is at most `value`: a binary search. */
function lastAtOrBefore (segments, key, value) {
  let low = 0
  let high = segments.length - 1
  while (low < high) {
    const middle = (low + high + 1) >> 1
    if (segments[middle][key] <= value) low = middle
    else high = middle - 1
  }
  return segments[low]
}

function withIndexes (starts) {
  let firstIndex = 0
  return starts.map((s, i) => {
    const endMs = i + 1 < starts.length ? starts[i + 1].startMs : Infinity
    const segment = { ...s, endMs, firstIndex }
    firstIndex += Math.ceil((endMs - s.startMs) / s.stepMs)
    return segment
  })
}

module.exports = { Resolution, FINE_FOR_MS, COARSE_MS }
