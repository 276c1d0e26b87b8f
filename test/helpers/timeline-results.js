'use strict'

// A run's result as a fork's run writes it, with the per-second timeline that window-noise.js reads: `perSecond`,
// the units answered ok in each second of its measured window (from `startedAt`), after `warmupS` seconds of warm-up
// at the window's first rate.

const DEFAULT_START = Date.parse('2026-11-29T12:00:00.000Z')

function timelineResult ({ perSecond, startedAt = DEFAULT_START, warmupS = 10, requests = 40 }) {
  const warmup = Array.from({ length: warmupS }, () => perSecond[0])
  const series = [...warmup, ...perSecond].map((ok, t) => ({ t_s: t, ingest: { ok, failed: 0, in_doubt: 0 } }))
  const rowsOk = perSecond.reduce((a, b) => a + b, 0)
  return { workload: 'ingest', started_at: new Date(startedAt).toISOString(), seconds: perSecond.length, requests,
    rows_ok: rowsOk, rows_per_sec: rowsOk / perSecond.length, timeline: { interval_s: 1, warmup_s: warmupS, series } }
}

/** `count` seconds at `rate`, every block of `blockS` seconds alternately `swing` above and below it (a share). */
const swinging = (rate, swing, count = 20, blockS = 5) => Array.from({ length: count }, (_, s) =>
  Math.round(rate * (Math.floor(s / blockS) % 2 === 0 ? 1 - swing : 1 + swing)))

module.exports = { timelineResult, swinging, DEFAULT_START }
