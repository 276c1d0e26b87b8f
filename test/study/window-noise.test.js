'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { ratioNoise } = require('../../lib/study/window-noise')
const { timelineResult, swinging, DEFAULT_START } = require('../helpers/timeline-results')

const steady = (rate, count = 20) => Array.from({ length: count }, () => rate)

test('a duet\'s ratio noise: the variance of the ratio over 5-s blocks of the window, per second', () => {
  const base = timelineResult({ perSecond: steady(10_000) })
  const swung = timelineResult({ perSecond: swinging(10_000, 0.1) })
  const noise = ratioNoise([base, swung], { windowS: 20, together: true })
  // Blocks of 45,000 and 55,000 against 50,000: ln 0.9 and ln 1.1, twice each; their sample variance 0.013424.
  assert.equal(noise.block_s, 5)
  assert.equal(noise.blocks, 4)
  assert.equal(Math.round(noise.block_sd_pct * 100) / 100, 11.59)
  assert.equal(Math.round(noise.per_second_var * 10_000) / 10_000, 0.0671)
})

test('what the machine does to both runs of a duet at once cancels; runs one after another add theirs', () => {
  // The machine's pattern in absolute seconds: b starts 5 s after a, and both see the same seconds alike.
  const machine = swinging(10_000, 0.2, 30)
  const a = timelineResult({ perSecond: machine.slice(0, 25) })
  const b = timelineResult({ perSecond: machine.slice(5, 30), startedAt: DEFAULT_START + 5000 })
  const together = ratioNoise([a, b], { windowS: 20, together: true })
  assert.equal(together.blocks, 3, 'the 15 s both measured')
  assert.ok(together.block_sd_pct < 1e-9, `cancelled: ${together.block_sd_pct}`)
  const apart = ratioNoise([a, b], { windowS: 20, together: false })
  const alone = ratioNoise([a, timelineResult({ perSecond: steady(10_000, 25) })], { windowS: 20, together: false })
  assert.ok(alone.block_sd_pct > 20, 'a run\'s own swing counts')
  assert.ok(Math.abs(apart.per_second_var - 2 * alone.per_second_var) < 0.05 * alone.per_second_var,
    `two runs' variances add: ${apart.per_second_var} against ${alone.per_second_var}`)
})

test('no noise without a timeline, with fewer than three whole blocks, or a block that answered nothing', () => {
  const a = timelineResult({ perSecond: steady(10_000) })
  const b = timelineResult({ perSecond: swinging(10_000, 0.1) })
  assert.equal(ratioNoise([a, { ...b, timeline: undefined }], { windowS: 20, together: true }), null)
  assert.equal(ratioNoise([a, b], { windowS: 10, together: true }), null, 'two blocks of 5 s')
  const silent = timelineResult({ perSecond: [...steady(10_000, 5), ...steady(0, 5), ...steady(10_000, 10)] })
  assert.equal(ratioNoise([a, silent], { windowS: 20, together: true }), null)
  assert.equal(ratioNoise([a], { windowS: 20, together: true }), null, 'one run is no ratio')
})

test('a long run\'s coarser intervals count by their own length', () => {
  // Seconds up to 20 s, then minutes (as results/timeline.js writes them after an hour, each coarse entry with its
  // interval_s): a block of 5 s inside a minute takes a twelfth of that minute's answers.
  const minutes = (result) => ({ ...result, timeline: { ...result.timeline, resolution: [{ from_s: 0, interval_s: 1 },
    { from_s: 30, interval_s: 60 }], series: [...result.timeline.series.slice(0, 30),
    { t_s: 30, interval_s: 60, ingest: { ok: 600_000 } }] } })
  const a = minutes(timelineResult({ perSecond: steady(10_000, 20) }))
  const b = minutes(timelineResult({ perSecond: swinging(10_000, 0.1) }))
  const noise = ratioNoise([a, b], { windowS: 80, together: true })
  assert.equal(noise.blocks, 16)
  const flat = ratioNoise([a, a], { windowS: 80, together: true })
  assert.ok(flat.block_sd_pct < 1e-9, 'a minute spread evenly over its blocks')
})
