'use strict'

const { UsageError } = require('../base/errors')
const { parseDuration } = require('../base/values')

// More units per second than any cluster serves: a typo (an extra zero or three), not a load.
const MAX_RATE = 1e9
// Fewer than one unit in about 17 minutes: no load either (and 5e-324 would make every wait infinite).
const MIN_RATE = 0.001
// A rate as a person writes it: decimal digits, a fraction perhaps; never hex, exponents or blanks around it.
const DECIMAL = /^\d+(\.\d+)?$/
// A profile is a plan a person reads in a table: more stages than this is a generated ramp better written as one.
const MAX_STAGES = 1000

/**
 * --stages: `DURATION:RATE` holds RATE for DURATION, `DURATION:FROM..TO` ramps linearly from FROM to TO, stages
 * separated by commas (`2m:50,2m:100,1m:0..500`). Durations are whole seconds (the timeline's intervals, so each
 * stage's figures are whole intervals). Returns [{ durationMs, from, to }].
 */
function parseStages (text, flag = 'stages') {
  const parts = String(text ?? '').split(',').map((part) => part.trim())
  if (parts.length === 0 || parts.some((part) => part === '')) {
    throw new UsageError(`--${flag} must be stages such as 2m:50,2m:100,1m:0..500 (got '${text}')`)
  }
  if (parts.length > MAX_STAGES) {
    throw new UsageError(`--${flag} has ${parts.length} stages; at most ${MAX_STAGES} (write a long ramp as one ` +
      'stage, e.g. 1h:0..5000)')
  }
  const stages = parts.map((part, i) => {
    const where = `--${flag} stage ${i + 1} '${part}'`
    const [durationText, ratesText, extra] = part.split(':')
    const [fromText, toText, more] = (ratesText ?? '').split('..')
    if (extra !== undefined || ratesText === undefined || more !== undefined) {
      throw new UsageError(`${where}: write DURATION:RATE or DURATION:FROM..TO, e.g. 2m:100 or 1m:0..500`)
    }
    let durationMs
    try {
      durationMs = parseDuration(durationText, flag)
    } catch (error) {
      throw new UsageError(`${where}: ${error.message.replace(/^--\S+ /, 'its duration ')}`)
    }
    if (durationMs % 1000 !== 0) throw new UsageError(`${where}: its duration must be whole seconds`)
    const from = stageRate(fromText, where)
    const to = toText === undefined ? from : stageRate(toText, where)
    return { durationMs, from, to }
  })
  if (stages.every((s) => s.from === 0 && s.to === 0)) {
    throw new UsageError(`--${flag}: every stage has rate 0, so nothing would be sent`)
  }
  return stages
}

function stageRate (text, where) {
  const rate = DECIMAL.test(text) ? Number(text) : NaN
  if (!Number.isFinite(rate)) {
    throw new UsageError(`${where}: a rate must be a decimal number >= 0 of units per second (got '${text}')`)
  }
  if (rate > 0 && rate < MIN_RATE) {
    throw new UsageError(`${where}: a rate is 0 (a pause) or at least ${MIN_RATE} units/s (got '${text}')`)
  }
  if (rate > MAX_RATE) throw new UsageError(`${where}: a rate over ${MAX_RATE.toExponential()} units/s is no load`)
  return rate
}

/**
 * Stages whose target is a few requests in all: their achieved rate moves by whole requests of `unitsPerRequest`
 * (over `processes`), so a shortfall of one request reads as a large one. One warning per such stage, before the run.
 */
function granularityWarnings (stages, { unitsPerRequest, processes, unit }) {
  const warnings = []
  stages.forEach((stage, i) => {
    const units = ((stage.from + stage.to) / 2) * (stage.durationMs / 1000)
    const requests = units / unitsPerRequest
    if (units > 0 && requests < MIN_REQUESTS_JUDGED) {
      warnings.push(`warning: stage ${i + 1} (${stageText(stage)}) asks ${round2(units)} ${unit}: ` +
        `${round2(requests)} requests of ${unitsPerRequest}, over ${processes} ` +
        `process${processes === 1 ? '' : 'es'}; ` +
        'its achieved rate moves by whole requests, and a shortfall of one request per process is not judged a ' +
        'knee (a smaller --batch_size, or a longer stage, measures it finer)')
    }
  })
  return warnings
}

// Fewer requests than this in a stage make one request more than 5% of it.
const MIN_REQUESTS_JUDGED = 20
const round2 = (x) => Math.round(x * 100) / 100

/** A stage as --stages writes it: 2m is 120s:50, a ramp 60s:0..500; `number` formats the rates. */
function stageText ({ durationMs, from, to }, number = String) {
  return `${durationMs / 1000}s:${from === to ? number(from) : `${number(from)}..${number(to)}`}`
}

/**
 * A rate changed while a run goes (from the page or the API): a JSON number (never a string), within the bounds of
 * --rate, with a reason.
 */
function checkSteeredRate (value) {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    return { error: `the rate must be a JSON number such as 250 or 12.5 (got ${JSON.stringify(value)})` }
  }
  return rateProblem(value)
}

/** A rate above 0 within MIN_RATE..MAX_RATE: { rate } or { error }. */
function rateProblem (rate) {
  if (rate <= 0) return { error: `the rate must be above 0 (got ${rate}): stop the run to stop its load` }
  if (rate < MIN_RATE) return { error: `the rate must be at least ${MIN_RATE} units/s (got ${rate})` }
  if (rate > MAX_RATE) return { error: `the rate must be at most ${MAX_RATE.toExponential()} units/s (got ${rate})` }
  return { rate }
}

/** --rate, --ingest_rate: a decimal number within the bounds a steered rate has. */
function parseRateText (text, flag, units = '') {
  const checked = DECIMAL.test(String(text).trim()) ? rateProblem(Number(text)) : { error: 'not a decimal number' }
  if (checked.error) {
    throw new UsageError(`--${flag} must be a decimal number from ${MIN_RATE} to ${MAX_RATE.toExponential()}` +
      `${units ? ` of ${units}` : ''} per second (got '${text}')`)
  }
  return checked.rate
}

/**
 * The target rate of an open-model run over its time: segments, each held or ramped linearly, from the load's start
 * (t = 0, in ms). A --rate run is one segment without end; --stages one per stage; a rate changed while the run goes
 * cuts the profile there and holds the new rate. Pure: the timetable asks it when unit k is due, the report what the
 * target was over a window.
 */
class LoadProfile {
  /**
   * @param {{ startMs: number, durationMs: number, from: number, to: number }[]} segments in order, from 0
   * @param {number[]} [unitsBefore] the units due before each segment, when the caller has them
   */
  constructor (segments, unitsBefore = null) {
    this.segments = segments
    if (unitsBefore !== null) {
      this.unitsBefore = unitsBefore
      return
    }
    let units = 0
    this.unitsBefore = segments.map((s) => {
      const before = units
      units += segmentUnits(s, s.durationMs)
      return before
    })
  }

  static constant (rate) {
    return new LoadProfile([{ startMs: 0, durationMs: Infinity, from: rate, to: rate }])
  }

  static ofStages (stages) {
    let startMs = 0
    return new LoadProfile(stages.map((s) => {
      const segment = { startMs, durationMs: s.durationMs, from: s.from, to: s.to }
      startMs += s.durationMs
      return segment
    }))
  }

  /** Where the profile ends (the last stage's end), Infinity for an open one. */
  get endMs () {
    const last = this.segments[this.segments.length - 1]
    return last.startMs + last.durationMs
  }

  /** The target rate at t; 0 after the end. */
  rateAt (tMs) {
    const s = this.segmentAt(tMs)
    if (!s) return 0
    return s.durationMs === Infinity ? s.from : s.from + ((s.to - s.from) * (tMs - s.startMs)) / s.durationMs
  }

  segmentAt (tMs) {
    if (tMs < 0) return null
    const s = this.segments[this.indexAt(tMs)]
    return s && tMs < s.startMs + s.durationMs ? s : null
  }

  /**
   * The last segment starting at or before t (-1 before the first): a binary search, since a run steered by a script
   * has a segment per change.
   */
  indexAt (tMs) {
    let low = 0
    let high = this.segments.length - 1
    let found = -1
    while (low <= high) {
      const mid = (low + high) >> 1
      if (this.segments[mid].startMs <= tMs) {
        found = mid
        low = mid + 1
      } else {
        high = mid - 1
      }
    }
    return found
  }

  /**
   * Where the segment holding t began (a stage's start, or the instant a rate was changed): units due before it and
   * not sent by t are past their stage, and no longer its load. 0 before the first segment's end.
   */
  segmentStartAt (tMs) {
    const i = this.indexAt(tMs)
    return i < 0 ? 0 : this.segments[i].startMs
  }

  /** Whether the segment in force at t began with a change of the rate while the run went (steered). */
  steeredAt (tMs) {
    const i = this.indexAt(tMs)
    return i >= 0 && this.segments[i].steered === true
  }

  /** Units due from the start to t (the integral of the rate). */
  unitsBy (tMs) {
    if (tMs <= 0) return 0
    const i = this.indexAt(tMs)
    if (i < 0) return 0
    const s = this.segments[i]
    return this.unitsBefore[i] + segmentUnits(s, Math.min(tMs - s.startMs, s.durationMs))
  }

  /**
   * The instant unit `units` is due: the first instant the units due pass it (unit k is sent when its share of the
   * rate begins), so a unit that falls on the end of a stage is due where the rate is next above 0, never in a pause.
   * Infinity: never, within the profile.
   */
  timeOfUnits (units) {
    // The first segment that ends past `units`: the segments before it are skipped by a binary search.
    let low = 0
    let high = this.segments.length - 1
    while (low < high) {
      const mid = (low + high) >> 1
      if (this.unitsBefore[mid + 1] <= units) low = mid + 1
      else high = mid
    }
    for (let i = Math.max(0, low - 1); i < this.segments.length; i++) {
      const s = this.segments[i]
      const inside = units - this.unitsBefore[i]
      if (inside >= segmentUnits(s, s.durationMs)) continue
      if (inside <= 0) return s.from > 0 || s.to > 0 ? s.startMs : this.nextActiveStart(i)
      return s.startMs + secondsToReach(s, inside) * 1000
    }
    return Infinity
  }

  nextActiveStart (i) {
    const next = this.segments.slice(i).find((s) => s.from > 0 || s.to > 0)
    return next ? next.startMs : Infinity
  }

  /** The mean target over [fromMs, toMs): what a window of the run was asked to do. */
  meanRate (fromMs, toMs) {
    return toMs > fromMs ? ((this.unitsBy(toMs) - this.unitsBy(fromMs)) * 1000) / (toMs - fromMs) : 0
  }

  /** Each worker's (or generator's) share: every rate times `factor`. */
  scaled (factor) {
    return new LoadProfile(this.segments.map((s) => ({ ...s, from: s.from * factor, to: s.to * factor })))
  }

  /**
   * Off the profile from `atMs`: what was due before stays, then `rate` is held until `untilMs` (the run's end). The
   * segments before the cut are shared, not copied: a script that steers every second for a day makes no square.
   */
  steered (atMs, rate, untilMs = Infinity) {
    let kept = this.indexAt(atMs - 1e-9) + 1
    while (kept > 0 && this.segments[kept - 1].startMs >= atMs) kept--
    const segments = this.segments.slice(0, kept)
    const unitsBefore = this.unitsBefore.slice(0, kept)
    if (kept > 0) {
      const s = segments[kept - 1]
      const durationMs = Math.min(s.durationMs, atMs - s.startMs)
      const to = s.durationMs === Infinity ? s.from : s.from + ((s.to - s.from) * durationMs) / s.durationMs
      segments[kept - 1] = { ...s, durationMs, to }
    }
    const last = segments[kept - 1]
    unitsBefore.push(last ? unitsBefore[kept - 1] + segmentUnits(last, last.durationMs) : 0)
    // Marked as steered: a backlog left at its start was withdrawn by whoever changed the rate (lib/run/engine.js).
    segments.push({ startMs: atMs, durationMs: Math.max(0, untilMs - atMs), from: rate, to: rate, steered: true })
    return new LoadProfile(segments, unitsBefore)
  }

  toJSON () {
    return this.segments.map((s) => ({
      start_s: s.startMs / 1000,
      duration_s: s.durationMs === Infinity ? null : s.durationMs / 1000,
      from: s.from,
      to: s.to
    }))
  }
}

function segmentUnits (s, elapsedMs) {
  if (elapsedMs <= 0) return 0
  const seconds = elapsedMs / 1000
  if (s.durationMs === Infinity || s.from === s.to) return s.from * seconds
  const slope = (s.to - s.from) / (s.durationMs / 1000)
  return s.from * seconds + (slope * seconds * seconds) / 2
}

/** Seconds into a segment at which `units` of it are due: the root of from·s + slope·s²/2 = units. */
function secondsToReach (s, units) {
  if (units <= 0) return 0
  if (s.durationMs === Infinity || s.from === s.to) return units / s.from
  const slope = (s.to - s.from) / (s.durationMs / 1000)
  // 2u / (from + sqrt(from² + 2·slope·u)): the stable form of the root, for ramps up and down, and from 0.
  const root = Math.sqrt(Math.max(0, s.from * s.from + 2 * slope * units))
  return (2 * units) / (s.from + root)
}

module.exports = { parseStages, stageText, checkSteeredRate, parseRateText, granularityWarnings, LoadProfile, MAX_RATE,
  MIN_RATE, MAX_STAGES }
