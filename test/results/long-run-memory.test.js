'use strict'

// A long run's memory on the fake clock: twelve hours of worker reports through the master's code paths (the
// timeline of a query mix of many labels and an ingest beside it, the live page's view ticking, the monitor's samples
// of six nodes, the master's own samples), the heap measured after a forced GC. A closed second keeps its counts and
// percentiles (a few KB with nine labels), never the histograms it was summarised from; after the first hour an
// interval is a minute, so an hour costs what a minute of the first hour did.

const test = require('node:test')
const assert = require('node:assert/strict')
const v8 = require('node:v8')
const vm = require('node:vm')
const { Timeline } = require('../../lib/results/timeline')
const { Recorder } = require('../../lib/results/stats')
const { LiveView } = require('../../lib/ui/live-view')
const { ClusterMonitor, parseNodesAnswer } = require('../../lib/cluster/monitor')
const { SelfMonitor } = require('../../lib/run/self-monitor')
const { fixture } = require('../helpers/crate-test-double')

v8.setFlagsFromString('--expose-gc')
const gc = vm.runInNewContext('gc')

const ORIGIN = 5_000_000
const LABELS = ['point', 'range', 'last', 'groupby', 'top', 'window', 'high-cpu', 'lastpoint']
const HOUR_S = 3600

/** One worker's report of `periodS` seconds: `labels` each answered 40 times. */
function report (labels, periodS) {
  let time = ORIGIN
  const recorder = new Recorder({ now: () => time })
  for (const label of labels) {
    for (let i = 0; i < 40; i++) {
      recorder.sent(1, time)
      recorder.answered({ label, units: 1, ok: 1, failed: 0, inDoubt: 0, latencyMicros: 1000 + i * 137, at: time })
    }
  }
  time = ORIGIN + periodS * 1000
  return recorder.takeDelta()
}

/** Six nodes of the captured sys.nodes answer, under their own names. */
function sixNodes () {
  const body = fixture('56-sys-nodes-before-load').response.body
  const nameAt = body.cols.indexOf('name')
  const rows = [1, 2, 3, 4, 5, 6].map((n) => body.rows[0].map((v, i) => (i === nameAt ? `node-${n}` : v)))
  return parseNodesAnswer({ ...body, rows })
}

function heapAfterGc () {
  gc()
  gc()
  return process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers
}

test('twelve hours of reports: after the first hour the master holds a minute\'s numbers a minute, not more', () => {
  let clock = ORIGIN
  const timeline = new Timeline({ originMs: ORIGIN })
  const nodes = sixNodes()
  const monitor = new ClusterMonitor({ client: null, intervalMs: 5000, now: () => clock })
  monitor.startedAt = ORIGIN
  const self = new SelfMonitor({ now: () => clock, loopDelay: { count: 0, reset () {}, disable () {} },
    timers: { setInterval: () => null, clearInterval: () => {} } }).start()
  const live = new LiveView({ workload: { name: 'analytical', unit: 'queries' }, options: { runId: 'soak' },
    now: () => clock })
  const totals = { all: { ok: 0, failed: 0, inDoubt: 0 }, unitsSent: 0 }
  live.attach({ timeline, monitor, startAt: ORIGIN, deadline: null, countLimit: null,
    groups: [{ workerGroup: { totals } }], hostEvents: { toJSON: () => [] },
    steering: { events: [], describe: () => [] } })
  const feed = (fromS, toS, periodS) => {
    const queries = report(LABELS, periodS)
    const rows = report(['doc.cpu'], periodS)
    for (let s = fromS; s < toS; s += periodS) {
      clock = ORIGIN + (s + periodS) * 1000
      timeline.add('analytical', { ...queries, at: clock })
      timeline.add('ingest', { ...rows, at: clock })
      if (s % 5 === 0) monitor.record(nodes, clock)
      if (s % 10 === 0) live.tick()
      self.sample()
    }
  }
  feed(0, 600, 1)
  const start = heapAfterGc()
  feed(600, 1800, 1)
  const firstHourPerHour = (heapAfterGc() - start) * 3
  // Workers report every second; a report every ten seconds here keeps the test short and the minutes' contents
  // alike (the rest of the first hour then holds a second in ten).
  feed(1800, 2 * HOUR_S, 10)
  const twoHours = heapAfterGc()
  feed(2 * HOUR_S, 12 * HOUR_S, 30)
  const laterPerHour = (heapAfterGc() - twoHours) / 10
  console.log(`# first hour: ${Math.round(firstHourPerHour / 1024)} KB per hour; ` +
    `hours 2 to 12: ${Math.round(laterPerHour / 1024)} KB per hour`)
  assert.ok(laterPerHour < firstHourPerHour / 20, 'an hour after the first costs what a minute of the first did')
  assert.ok(laterPerHour < 1024 * 1024, `${Math.round(laterPerHour / 1024)} KB per simulated hour`)
  assert.ok(timeline.open.size <= 3, 'only the last intervals are open')
  const series = timeline.toJSON()
  assert.equal(series.length, HOUR_S + 11 * 60)
  const minute = series[HOUR_S + 100]
  assert.equal(minute.interval_s, 60)
  assert.equal(minute.analytical.ok, 2 * 40 * LABELS.length, 'the counts of a minute are exact')
  assert.ok(minute.analytical.p99_ms > 1, 'its percentiles were taken when it closed')
  assert.equal(monitor.samples.length, 360 + 180 + 11 * 60, 'every sample in the first hour, then one a minute')
  const answered = series.filter((e) => e.analytical).length
  assert.ok(answered - live.whole().series.length <= 3, 'a page opened now gets the intervals closed so far')
  assert.equal(self.minutes.length, 12 * 60 + 1)
})

test('with each interval\'s histograms kept (a run in stages, a fleet generator): encoded, and a minute a minute',
  () => {
  const timeline = new Timeline({ originMs: ORIGIN, keepHistograms: true })
  const feed = (fromS, toS, periodS) => {
    const rows = report(['doc.cpu', 'doc.mem', 'doc.disk'], periodS)
    for (let s = fromS; s < toS; s += periodS) timeline.add('ingest', { ...rows, at: ORIGIN + (s + periodS) * 1000 })
  }
  feed(0, 2 * HOUR_S, 10)
  const twoHours = heapAfterGc()
  feed(2 * HOUR_S, 12 * HOUR_S, 30)
  const laterPerHour = (heapAfterGc() - twoHours) / 10
  // 4 encoded histograms (the group and 3 labels) of a few hundred bytes each, and the counts: per minute.
  assert.ok(laterPerHour < 512 * 1024, `${Math.round(laterPerHour / 1024)} KB per simulated hour`)
  const minute = timeline.toJSON()[HOUR_S + 5]
  assert.equal(typeof minute.ingest.latency_hist, 'string', 'the minute\'s merged histogram, for a merge of generators')
  console.log(`# with histograms kept: ${Math.round(laterPerHour / 1024)} KB per hour after the first`)
})
