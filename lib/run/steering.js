'use strict'

const { EventEmitter } = require('node:events')
const { LoadProfile, checkSteeredRate } = require('../data/load-profile')
const { round } = require('../base/format')

// Changes of one rate closer together than this are one event (a script that steers many times a second), and a run
// keeps at most MAX_EVENTS of them: past it, every change joins the last event (the stop and the leaving of --stages
// are one each). The report, the --json and the
// page stay their size however long the run and however busy its steering.
const COALESCE_MS = 1000
const MAX_EVENTS = 1000

/**
 * What a person (the live page) or a script (its JSON API) may change while the load runs: the target rate of an
 * open-model group (--rate or --stages of the benchmark, --ingest_rate of the ingest beside a query mix), and the
 * run itself, stopped as Ctrl-C stops it but not partial. Keeps each group's target as it really was (the planned
 * profile, cut where a person changed it) and every change as an event of the run.
 *
 * Events: 'event' ({ at_s, kind, host, detail, what, from, to, by }) for each change; 'stop' ({ by }) once.
 */
class Steering extends EventEmitter {
  /**
   * @param {object} settings
   * @param {{ role: string, name: string, options: object, workerGroup: object }[]} settings.groups
   * @param {number} settings.startAt the load's start (the timeline's origin)
   * @param {number|null} settings.deadline the load's planned end
   * @param {() => number} settings.now the clock
   */
  constructor ({ groups, startAt, deadline, now }) {
    super()
    this.startAt = startAt
    this.deadline = deadline
    this.now = now
    this.events = []
    this.stopped = null
    this.groups = new Map(groups.map((g) => [g.role, {
      ...g,
      flag: g.role === 'main' ? (g.options.stages ? 'stages' : 'rate') : 'ingest_rate',
      planned: profileOf(g.options),
      profile: profileOf(g.options),
      offProfile: false
    }]))
  }

  /** The groups and what may be changed of each, for the page and the API. */
  describe () {
    const t = this.now() - this.startAt
    return [...this.groups.values()].map((g) => ({
      role: g.role,
      workload: g.name,
      unit: g.unit,
      steerable: g.profile !== null,
      flag: g.flag,
      target_per_sec: g.profile ? round(g.profile.rateAt(Math.max(0, t))) : null
    }))
  }

  /**
   * A new target rate for a group, from now to the end. Returns { ok: true, event } or { ok: false, status, error }
   * (the API's answer: 400 for a bad rate, 404 for no such group, 409 when the run cannot take it).
   */
  setRate (role, value, by = 'api') {
    const g = this.groups.get(role)
    if (!g) return { ok: false, status: 404, error: `no load group '${role}' in this run (main, companion)` }
    if (!g.profile) {
      return { ok: false, status: 409, error: `the ${g.name} load runs as fast as the answers come: only a run ` +
        'with --rate, --stages or --ingest_rate has a rate to change' }
    }
    if (this.stopped) return { ok: false, status: 409, error: 'the run is stopping' }
    const checked = checkSteeredRate(value)
    if (checked.error) return { ok: false, status: 400, error: checked.error }
    const at = this.now()
    const t = Math.max(0, at - this.startAt)
    if (this.deadline !== null && at >= this.deadline) return { ok: false, status: 409, error: 'the load has ended' }
    const from = g.profile.rateAt(t)
    const until = this.deadline === null ? Infinity : this.deadline - this.startAt
    g.profile = g.profile.steered(t, checked.rate, until)
    g.workerGroup.steer(at, checked.rate)
    if (g.flag === 'stages' && !g.offProfile) {
      g.offProfile = true
      this.record(t, { kind: 'off_profile', what: 'stages', by,
        detail: `--stages no longer sets the rate: changed by hand (${by})` })
    }
    const change = { kind: 'rate_change', what: g.flag, from: round(from), to: checked.rate, by }
    const event = this.coalesce(t, change, g) ?? this.record(t, { ...change, detail: changeText(g, change, 1) })
    return { ok: true, event }
  }

  /** The last event, when this change of the same rate joins it (close after it, or the events are at their cap). */
  coalesce (t, change, g) {
    const last = this.events[this.events.length - 1]
    if (!last || last.kind !== 'rate_change' || last.what !== change.what) return null
    const close = t - (last.last_at_s ?? last.at_s) * 1000 < COALESCE_MS
    if (!close && this.events.length < MAX_EVENTS) return null
    last.changes = (last.changes ?? 1) + 1
    // The highest rate it passed through stays in it: a rate typed by mistake for a moment is not hidden by the next.
    last.highest = Math.max(last.highest ?? Math.max(last.from, last.to), change.to)
    last.to = change.to
    last.last_at_s = round(t / 1000, 3)
    if (last.by !== change.by) last.by = 'api and page'
    last.detail = changeText(g, last, last.changes)
    return last
  }

  /** Stops the run gracefully: no new requests, those in flight answered, the report kept (not partial). */
  stop (by = 'api') {
    if (this.stopped) return { ok: true, already: true }
    const t = Math.max(0, this.now() - this.startAt)
    this.stopped = { by, at: this.now() }
    this.record(t, { kind: 'user_stop', what: 'run', by, detail: `stopped by the user (${by})` })
    this.emit('stop', { by })
    return { ok: true }
  }

  /** An event of the run, in the timeline's form (at_s, kind, host, detail), with what changed: from, to, by whom. */
  record (tMs, { kind, what, from = null, to = null, by, detail }) {
    const event = { at_s: round(tMs / 1000, 3), kind, host: null, detail, what, from, to, by }
    this.events.push(event)
    this.emit('event', event)
    return event
  }

  /** Whether a person changed the group's rate. */
  changed (role) {
    const g = this.groups.get(role)
    return Boolean(g) && this.events.some((e) => e.kind === 'rate_change' && e.what === g.flag)
  }

  /** What each group was asked to do, as it really was: the profile with every change in it. */
  profiles () {
    return Object.fromEntries([...this.groups.values()].map((g) => [g.role, g.profile]))
  }
}

/**
 * "rate 100 -> 250 rows/s (api)", with how many changes it took when more than one, and the highest rate they passed
 * through when it was above both ends.
 */
function changeText (g, { from, to, by, highest }, changes) {
  const peak = highest > Math.max(from, to) ? `, up to ${highest}` : ''
  return `${g.flag === 'stages' ? 'rate' : g.flag} ${from} -> ${to} ${g.unit}/s (${by}` +
    `${changes > 1 ? `, ${changes} changes until ${to}${peak}` : ''})`
}

/** The open model's target of a group: --stages or --rate (--ingest_rate is the companion's --rate); null: closed. */
function profileOf (options) {
  if (options.stages) return LoadProfile.ofStages(options.stages)
  return options.rate == null ? null : LoadProfile.constant(options.rate)
}

module.exports = { Steering, profileOf }
