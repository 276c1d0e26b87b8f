'use strict'

const { nodeRows } = require('../results/timeline')
const { round } = require('../base/format')
const { stageText } = require('../data/load-profile')

/**
 * What the live page shows, built from the same objects the report is built from: the timeline's closed intervals
 * (the report's series, so the page's charts and the final report agree), the groups' totals as the workers report
 * them, the monitor's samples of the nodes, the host events and the steering's changes. A page opened late gets the
 * whole run, read again from the timeline and the monitor (never a copy of them: a run's first hour keeps every
 * second); each tick() gives only what is new.
 */
class LiveView {
  constructor ({ workload, options, now = Date.now }) {
    this.workload = workload
    this.options = options
    this.now = now
    this.load = null
    this.phase = 'starting'
    this.events = []
    this.newestInterval = -1
    this.samplesSeen = 0
    this.hostEventsSeen = 0
    this.steeringEventsSeen = 0
    // Where a steady warm-up ended, once it did (null: --warmup as given, or the cap so far).
    this.warmupMs = null
    this.last = null
    // The last few seconds of the main group's counts: whether the load holds its target is judged over them, not
    // over one tick.
    this.recent = []
  }

  /** A steady warm-up ended (the load stage's 'warm' event): the page marks it where it ended, not at its cap. */
  warmed (warmup) {
    this.warmupMs = warmup.ms
  }

  /** The live handles of the load stage's 'load' event. */
  attach (load) {
    this.load = load
    this.phase = 'running'
  }

  /**
   * What is new since the last tick, and the figures of this instant. `provisional`: the intervals not closed yet,
   * as they stand (each tick replaces the last tick's).
   */
  tick () {
    const fresh = { series: [], nodes: [], events: [] }
    const load = this.load
    if (load) {
      // A fleet's generator hands its intervals' histograms on: the fleet's page merges them into exact percentiles.
      const closed = load.timeline.closedAfter(this.newestInterval, { withHistograms: Boolean(this.options.fleet) })
      this.newestInterval = closed.newest
      fresh.series = closed.entries
      if (load.monitor) {
        fresh.nodes = this.nodeRowsOf(load.monitor.samples.slice(this.samplesSeen))
        this.samplesSeen = load.monitor.samples.length
      }
      const hostEvents = load.hostEvents.toJSON(load.startAt)
      const steered = load.steering.events.slice(this.steeringEventsSeen)
      fresh.events.push(...hostEvents.slice(this.hostEventsSeen), ...steered)
      this.hostEventsSeen = hostEvents.length
      this.steeringEventsSeen = load.steering.events.length
      fresh.events.sort((a, b) => a.at_s - b.at_s)
    }
    this.events.push(...fresh.events)
    const provisional = load ? load.timeline.provisional() : []
    return { ...fresh, provisional, now: this.current() }
  }

  /** The intervals the ticks have sent so far. */
  seriesSoFar () {
    if (!this.load) return []
    return this.load.timeline.closedAfter(-1, { upTo: this.newestInterval,
      withHistograms: Boolean(this.options.fleet) }).entries
  }

  /** The nodes' rows of the samples the ticks have sent so far. */
  nodesSoFar () {
    const monitor = this.load && this.load.monitor
    return monitor ? this.nodeRowsOf(monitor.samples.slice(0, this.samplesSeen)) : []
  }

  /** The monitor's samples as the page's node rows, on the load's clock; those before the load are left out. */
  nodeRowsOf (samples) {
    const offsetS = (this.load.monitor.startedAt - this.load.startAt) / 1000
    return samples.flatMap((sample) => nodeRows(sample, offsetS)).filter((n) => n.t_s >= 0)
  }

  /** Everything so far, for a page that connects now. */
  whole () {
    const provisional = this.load ? this.load.timeline.provisional() : []
    return {
      ...this.describe(), series: this.seriesSoFar(), provisional, nodes: this.nodesSoFar(), events: this.events,
      now: this.current()
    }
  }

  /** The run as the page's header and controls need it. */
  describe () {
    const { options, workload } = this
    return {
      run_id: options.runId,
      workload: workload.name,
      unit: workload.unit,
      phase: this.phase,
      queries: workload.name === 'analytical' ? (options.queries || []).map((q) => ({ name: q.name })) : undefined,
      stages: stagesOf(options.stages),
      warmup_s: round((this.warmupMs ?? options.warmupMs ?? 0) / 1000, 3),
      groups: this.load ? this.load.steering.describe() : []
    }
  }

  /** This instant: progress and the main group's totals, with the rate over the last tick. */
  current () {
    const load = this.load
    if (!load) return { phase: this.phase }
    const at = this.now()
    const main = load.groups[0].workerGroup.totals
    const ok = main.all.ok
    const rate = this.last && at > this.last.at ? ((ok - this.last.ok) * 1000) / (at - this.last.at) : null
    this.last = { at, ok }
    this.recent.push({ at, ok, late: main.lateRequests || 0 })
    while (this.recent.length > 2 && at - this.recent[1].at >= HELD_WINDOW_MS) this.recent.shift()
    const groups = load.steering.describe()
    const elapsedS = Math.max(0, (at - load.startAt) / 1000)
    return {
      phase: this.phase,
      elapsed_s: round(elapsedS, 1),
      duration_s: load.deadline === null ? null : round((load.deadline - load.startAt) / 1000, 1),
      sent: main.unitsSent,
      limit: load.countLimit,
      ok,
      failed: main.all.failed,
      in_doubt: main.all.inDoubt,
      per_sec: rate === null ? null : round(rate),
      held: heldOf(this.recent, groups.find((g) => g.role === 'main')),
      companion: companionOf(load, groups.find((g) => g.role === 'companion')),
      groups
    }
  }
}

// Whether the load holds its target is judged over this long (a tick is one second: too noisy to mark).
const HELD_WINDOW_MS = 5000
// Below this share of its target, with requests late, the load is marked as not holding it.
const HELD_SHARE = 0.95

/**
 * Over the last seconds: the rate achieved against the target, and the requests that went out late (every slot
 * busy when they were due). `behind` when under HELD_SHARE of the target with requests late; null without a target.
 */
function heldOf (recent, main) {
  if (!main || !(main.target_per_sec > 0) || recent.length < 2) return null
  const [first, last] = [recent[0], recent[recent.length - 1]]
  const seconds = (last.at - first.at) / 1000
  if (!(seconds >= 1)) return null
  const perSec = (last.ok - first.ok) / seconds
  const late = last.late - first.late
  const pct = round((perSec / main.target_per_sec) * 100, 1)
  return { over_s: round(seconds, 1), per_sec: round(perSec), target_per_sec: main.target_per_sec, pct, late,
    behind: pct < HELD_SHARE * 100 && late > 0 }
}

/** The ingest beside a query mix, as the header shows it: its totals and its group's name in the series. */
function companionOf (load, described) {
  const side = load.groups[1]
  if (!side || !described) return null
  const totals = side.workerGroup.totals
  return { name: described.workload, unit: described.unit, ok: totals.all.ok, failed: totals.all.failed,
    in_doubt: totals.all.inDoubt }
}

/** The stages as the page shades them: number, start and end in seconds of the load, and as planned. */
function stagesOf (stages) {
  if (!stages) return null
  let startS = 0
  return stages.map((s, i) => {
    const entry = {
      stage: i + 1,
      start_s: startS,
      end_s: startS + s.durationMs / 1000,
      planned: stageText(s)
    }
    startS = entry.end_s
    return entry
  })
}

module.exports = { LiveView, stagesOf }
