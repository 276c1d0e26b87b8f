'use strict'

// A long run's memory on the fake clock: hours of worker reports through the master's timeline (a query mix of many
// labels and an ingest beside it, two workers each), the heap measured after a forced GC. What a closed second keeps
// is its counts and percentiles (a few hundred bytes a label), never the histograms it was summarised from.

const test = require('node:test')
const assert = require('node:assert/strict')
const v8 = require('node:v8')
const vm = require('node:vm')
const { Timeline } = require('../../lib/results/timeline')
const { Recorder } = require('../../lib/results/stats')

v8.setFlagsFromString('--expose-gc')
const gc = vm.runInNewContext('gc')

const ORIGIN = 5_000_000
const LABELS = ['point', 'range', 'last', 'groupby', 'top', 'window', 'high-cpu', 'lastpoint']

/** One worker's report of a second: `labels` each answered 40 times. */
function report (labels) {
  let time = ORIGIN
  const recorder = new Recorder({ now: () => time })
  for (const label of labels) {
    for (let i = 0; i < 40; i++) {
      recorder.sent(1, time)
      recorder.answered({ label, units: 1, ok: 1, failed: 0, inDoubt: 0, latencyMicros: 1000 + i * 137, at: time })
    }
  }
  time = ORIGIN + 1000
  return recorder.takeDelta()
}

function heapAfterGc () {
  gc()
  gc()
  return process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers
}

test('half an hour of reports: the master\'s timeline holds a few numbers per second, not histograms', () => {
  const queries = report(LABELS)
  const rows = report(['doc.cpu'])
  const timeline = new Timeline({ originMs: ORIGIN })
  const feed = (fromS, toS) => {
    for (let s = fromS; s < toS; s++) {
      for (let worker = 0; worker < 2; worker++) {
        timeline.add('analytical', { ...queries, at: ORIGIN + (s + 1) * 1000 + worker })
        timeline.add('ingest', { ...rows, at: ORIGIN + (s + 1) * 1000 + worker })
      }
    }
  }
  feed(0, 600)
  const early = heapAfterGc()
  // Half an hour more.
  feed(600, 600 + 1800)
  const late = heapAfterGc()
  const perSecond = (late - early) / 1800
  // Each second: 9 labels and two groups of counts and percentiles. A second's histograms alone were ~3 MB.
  assert.ok(perSecond < 8 * 1024, `${Math.round(perSecond)} bytes per simulated second`)
  console.log(`# timeline: ${Math.round(perSecond)} bytes per simulated second`)
  assert.equal(timeline.open.size <= 3, true, 'only the last intervals are open')
  const series = timeline.toJSON()
  assert.equal(series.length, 600 + 1800)
  assert.equal(series[2000].analytical.ok, 2 * 40 * LABELS.length, 'the counts of a closed second are exact')
  assert.ok(series[2000].analytical.p99_ms > 1, 'its percentiles were taken when it closed')
})
