'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { SelfMonitor } = require('../../lib/run/self-monitor')

const MB = 1024 * 1024

/** A monitor on a simulated clock whose process holds `rssAt(t)` (ms since start), GC peaks between. */
function simulate (hours, rssAt) {
  let t = 0
  const monitor = new SelfMonitor({ now: () => t, memory: () => ({ rss: rssAt(t) + ((t / 5000) % 3) * 20 * MB,
    heapUsed: rssAt(t) / 2, arrayBuffers: 0 }), timers: { setInterval: () => null, clearInterval: () => {} } }).start()
  for (t = 0; t <= hours * 3_600_000; t += 5000) monitor.sample()
  t = hours * 3_600_000
  return monitor
}

test('a day of samples: the master flat is said flat, its GC peaks ignored; the minutes kept are bounded', () => {
  const flat = simulate(24, () => 90 * MB)
  const s = flat.summary()
  assert.equal(s.flat, true)
  assert.equal(s.rss_mb_start, 90)
  assert.equal(s.rss_mb_end, 90)
  assert.equal(flat.minutes.length, 24 * 60 + 1, 'one entry a minute')
})

test('a master that grows 0.35 MB a second is not flat, with its growth per hour', () => {
  const leaking = simulate(2, (t) => 80 * MB + (t / 1000) * 0.35 * MB).summary()
  assert.equal(leaking.flat, false)
  assert.ok(Math.abs(leaking.rss_growth_mb_per_hour - 0.35 * 3600) < 60, JSON.stringify(leaking))
  assert.equal(simulate(0.01, () => 90 * MB).summary(), null, 'under two minutes: nothing to say')
  const short = simulate(0.25, (t) => 60 * MB + Math.min(t, 120_000) / 1000 * 0.3 * MB).summary()
  assert.equal(short.flat, null, 'a quarter of an hour is reported, not judged')
  // V8 sizes its heap in the first minutes: the start window comes after them.
  const sized = simulate(3, (t) => 60 * MB + Math.min(t, 600_000) / 1000 * 0.05 * MB).summary()
  assert.equal(sized.flat, true, JSON.stringify(sized))
})

test('a half-hour run is judged over its second half: V8 sizing its heap first is no leak, a steady leak is', () => {
  // As measured on a real node (36 min): fast at first, slowing, then +2 MB in the second half (about 7 MB/h).
  const sizing = (t) => 68 * MB + 9 * MB * (1 - Math.exp(-t / 600_000)) + (t / 3_600_000) * 3 * MB
  const real = simulate(0.6, sizing).summary()
  assert.equal(real.flat, true, JSON.stringify(real))
  assert.equal(real.judged_from_minute >= 14 && real.judged_from_minute <= 18, true, JSON.stringify(real))
  // A steady 15 MB an hour, from the first minute to the last.
  const leak = simulate(0.6, (t) => 70 * MB + (t / 3_600_000) * 15 * MB).summary()
  assert.equal(leak.flat, false, JSON.stringify(leak))
  assert.ok(Math.abs(leak.rss_growth_mb_per_hour - 15) < 2, JSON.stringify(leak))
})

test('the master minute by minute on the load\'s clock: least memory, CPU share, worst event-loop delay', () => {
  let t = 0
  let cpu = 0
  const delays = [4e6, 9e6, 2e6]
  let sampleNumber = 0
  const loopDelay = { count: 1, percentile: () => delays[sampleNumber++ % delays.length], reset () {}, disable () {} }
  const monitor = new SelfMonitor({ now: () => t, cpuUsage: () => ({ user: cpu, system: 0 }), loopDelay,
    memory: () => ({ rss: (100 + (t % 10_000 ? 10 : 0)) * MB, heapUsed: 20 * MB, arrayBuffers: MB, external: 3 * MB }),
    timers: { setInterval: () => null, clearInterval: () => {} } }).start()
  for (t = 5000; t <= 120_000; t += 5000) {
    cpu += 1_000_000 // 1 s of CPU every 5 s: 20% of a core
    monitor.sample()
  }
  t = 120_000
  const rows = monitor.timelineRows(30_000)
  assert.deepEqual(rows.map((r) => r.t_s), [-30, 30, 90])
  assert.deepEqual(rows[1], { t_s: 30, rss_mb: 100, heap_mb: 21, external_mb: 3, cpu_pct: 20, loop_delay_p99_ms: 9 })
  const summary = monitor.summary()
  assert.equal(summary.cpu_pct, 20)
  assert.equal(summary.loop_delay_p99_ms_max, 9)
})
