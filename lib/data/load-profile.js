'use strict'

const { UsageError } = require('../base/errors')
const { parseDuration } = require('../base/values')

// More units per second than any cluster serves: a typo (an extra zero or three), not a load.
const MAX_RATE = 1e9

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
  const rate = Number(text)
  if (text.trim() === '' || !Number.isFinite(rate) || rate < 0) {
    throw new UsageError(`${where}: a rate must be a number >= 0 of units per second (got '${text}')`)
  }
  if (rate > MAX_RATE) throw new UsageError(`${where}: a rate over ${MAX_RATE.toExponential()} units/s is no load`)
  return rate
}

/** A stage as --stages writes it: 2m is 120s:50, a ramp 60s:0..500; `number` formats the rates. */
function stageText ({ durationMs, from, to }, number = String) {
  return `${durationMs / 1000}s:${from === to ? number(from) : `${number(from)}..${number(to)}`}`
}

/** A rate changed while a run goes (from the page or the API): the same bounds as --rate, with a reason. */
function checkSteeredRate (value) {
  const rate = typeof value === 'string' && value.trim() !== '' ? Number(value) : value
  if (typeof rate !== 'number' || !Number.isFinite(rate)) {
    return { error: `the rate must be a number (got ${JSON.stringify(value)})` }
  }
  if (rate <= 0) return { error: `the rate must be above 0 (got ${rate}): stop the run to stop its load` }
  if (rate > MAX_RATE) return { error: `the rate must be at most ${MAX_RATE.toExponential()} units/s (got ${rate})` }
  return { rate }
}

/**
 * The target rate of an open-model run over its time: segments, each held or ramped linearly, from the load's start
 * (t = 0, in ms). A --rate run is one segment without end; --stages one per stage; a rate changed while the run goes
 * cuts the profile there and holds the new rate. Pure: the timetable asks it when unit k is due, the report what the
 * target was over a window.
 */
class LoadProfile {
  /** @param {{ startMs: number, durationMs: number, from: number, to: number }[]} segments in order, from 0 */
  constructor (segments) {
    this.segments = segments
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
    return this.segments.find((s) => tMs >= s.startMs && tMs < s.startMs + s.durationMs) ?? null
  }

  /**
   * Where the segment holding t began (a stage's start, or the instant a rate was changed): units due before it and
   * not sent by t are past their stage, and no longer its load. 0 before the first segment's end.
   */
  segmentStartAt (tMs) {
    for (let i = this.segments.length - 1; i >= 0; i--) {
      if (tMs >= this.segments[i].startMs) return this.segments[i].startMs
    }
    return 0
  }

  /** Units due from the start to t (the integral of the rate). */
  unitsBy (tMs) {
    if (tMs <= 0) return 0
    for (let i = this.segments.length - 1; i >= 0; i--) {
      const s = this.segments[i]
      if (tMs >= s.startMs) return this.unitsBefore[i] + segmentUnits(s, Math.min(tMs - s.startMs, s.durationMs))
    }
    return 0
  }

  /**
   * The instant unit `units` is due: the first instant the units due pass it (unit k is sent when its share of the
   * rate begins), so a unit that falls on the end of a stage is due where the rate is next above 0, never in a pause.
   * Infinity: never, within the profile.
   */
  timeOfUnits (units) {
    for (let i = 0; i < this.segments.length; i++) {
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

  /** Off the profile from `atMs`: what was due before stays, then `rate` is held until `untilMs` (the run's end). */
  steered (atMs, rate, untilMs = Infinity) {
    const kept = []
    for (const s of this.segments) {
      if (s.startMs >= atMs) break
      const durationMs = Math.min(s.durationMs, atMs - s.startMs)
      const to = s.durationMs === Infinity ? s.from : s.from + ((s.to - s.from) * durationMs) / s.durationMs
      kept.push({ ...s, durationMs, to })
    }
    kept.push({ startMs: atMs, durationMs: Math.max(0, untilMs - atMs), from: rate, to: rate })
    return new LoadProfile(kept)
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

module.exports = { parseStages, stageText, checkSteeredRate, LoadProfile, MAX_RATE }
