'use strict'

const { variance } = require('../reports/compare/welch')

// How much a comparison's ratio moves within its runs' own measured windows, read from their per-second timelines:
// the variance of the ratio over blocks of BLOCK_S seconds, per second of window (a block's variance times its
// length). Measured on this machine's A/A duets (docs/study.md), that noise is most of what moves a duet's ratio from
// duet to duet, and it shrinks as 1 / √length: a longer window narrows it, where a count model of the window's two
// ends (0.58 / N answers) saw a tenth of it.

const BLOCK_S = 5
// Fewer whole blocks than this in a window give no variance worth projecting from.
const MIN_BLOCKS = 3
// The fewest answers a block holds (blockFor).
const MIN_BLOCK_REQUESTS = 8
// A window of the forks compared is read in this many blocks or more (windowVarianceOf).
const COMPARED_BLOCKS = 4

/** Units answered ok in each interval of `result`'s timeline, with its start (ms since the epoch) and length. */
function intervalsOf (result) {
  const timeline = result && result.timeline
  const started = Date.parse(result && result.started_at)
  if (!timeline || !Array.isArray(timeline.series) || !Number.isFinite(started)) return null
  const warmupS = Number.isFinite(timeline.warmup_s) ? timeline.warmup_s : 0
  const originMs = started - warmupS * 1000
  // A long run's later intervals are coarser, and its last may be cut short: each entry says its own length.
  return timeline.series.map((point) => ({
    atMs: originMs + point.t_s * 1000,
    lengthMs: (point.partial_s ?? point.interval_s ?? timeline.interval_s ?? 1) * 1000,
    ok: Object.values(point).reduce((sum, group) => sum + (group && Number.isFinite(group.ok) ? group.ok : 0), 0)
  }))
}

/** Units answered in [fromMs, toMs): each interval's share of it by the time it overlaps. */
function okBetween (intervals, fromMs, toMs) {
  let sum = 0
  for (const s of intervals) {
    const overlap = Math.min(s.atMs + s.lengthMs, toMs) - Math.max(s.atMs, fromMs)
    if (overlap > 0) sum += s.ok * overlap / s.lengthMs
  }
  return sum
}

/** The log of each block's units over [fromMs, fromMs + windowMs), or null where a block has none. */
function blockLogs (intervals, fromMs, windowMs, blockMs) {
  const logs = []
  for (let at = fromMs; at + blockMs <= fromMs + windowMs + 1; at += blockMs) {
    const ok = okBetween(intervals, at, at + blockMs)
    if (!(ok > 0)) return null
    logs.push(Math.log(ok))
  }
  return logs
}

/**
 * The ratio's noise per second of window over one fork's runs (`results`: the base contender's first), each measured
 * over `windowS` seconds from its start: `together` (a duet) takes the ratio's blocks over the seconds every run
 * measured at once, so that what the machine did to all alike cancels; apart (paired forks, one run after another),
 * each run's own blocks, their variances added. { per_second_var, block_s, blocks, block_sd_pct }, or null when the
 * runs give no timeline or too few whole blocks.
 */
function ratioNoise (results, { windowS, together, blockS = BLOCK_S }) {
  const runs = results.map(intervalsOf)
  if (runs.length < 2 || runs.some((r) => !r) || !(windowS > 0)) return null
  const starts = results.map((r) => Date.parse(r.started_at))
  const blockMs = blockS * 1000
  let blockVariance
  let blocks
  if (together) {
    const fromMs = Math.max(...starts)
    const windowMs = Math.min(...starts) + windowS * 1000 - fromMs
    const logs = runs.map((intervals) => blockLogs(intervals, fromMs, windowMs, blockMs))
    if (logs.some((l) => !l) || logs[0].length < MIN_BLOCKS) return null
    blocks = logs[0].length
    // Each contender's ratio against the base: the widest of them.
    blockVariance = Math.max(...logs.slice(1).map((l) => variance(l.map((v, i) => v - logs[0][i]))))
  } else {
    const logs = runs.map((intervals, i) => blockLogs(intervals, starts[i], windowS * 1000, blockMs))
    if (logs.some((l) => !l || l.length < MIN_BLOCKS)) return null
    blocks = Math.min(...logs.map((l) => l.length))
    const own = logs.map(variance)
    blockVariance = Math.max(...own.slice(1).map((v) => v + own[0]))
  }
  return { per_second_var: blockVariance * blockS, block_s: blockS, blocks,
    block_sd_pct: Math.sqrt(blockVariance) * 100 }
}

/** The fewest requests a run of `results` measured, with its window: { requests, seconds }, or null. */
function fewestIn (results) {
  const counts = results.filter(Boolean).map((r) => ({ requests: r.requests, seconds: r.seconds }))
    .filter((r) => Number.isFinite(r.requests))
  if (counts.length === 0) return null
  return counts.reduce((a, r) => (r.requests < a.requests ? r : a))
}

/**
 * The blocks the noise is read over: BLOCK_S, or longer in steps of it until the fewest run's rate (`fewest`:
 * { requests, seconds }) holds MIN_BLOCK_REQUESTS a block. A block of one or two answers is mostly their count, which
 * a longer window narrows as 1 / T, not as 1 / √T: read as noise it would overstate what a longer window leaves.
 */
function blockFor (fewest) {
  const perS = fewest.requests / fewest.seconds
  if (!(perS > 0)) return BLOCK_S
  return BLOCK_S * Math.max(1, Math.ceil(MIN_BLOCK_REQUESTS / perS / BLOCK_S))
}

/**
 * What the compared forks' own windows hold of their ratio's spread: the variance of the log ratio a fork's window
 * gets from the noise within it, the mean over `forks` (each: its contenders' results, the base's first), or null
 * when none gives it. Each window is read in blocks of a COMPARED_BLOCKS-th of it (whole BLOCK_S, and no fewer
 * answers than blockFor's): in 5-s blocks a stall and its catch-up fall in neighbouring blocks and cancel over a
 * longer window, so short blocks overstate what it holds (an A/A duet of 90-s windows on this machine read ±29% a
 * second of window in 5-s blocks, ±18% in 20-s ones).
 */
function windowVarianceOf (forks, { together }) {
  const variances = []
  for (const results of forks) {
    if (results.length < 2 || results.some((r) => !r || !Number.isFinite(r.requests) || !(r.seconds > 0))) continue
    const windowS = Math.min(...results.map((r) => r.seconds))
    const fewest = fewestIn(results)
    const blockS = Math.max(blockFor(fewest), BLOCK_S * Math.floor(windowS / COMPARED_BLOCKS / BLOCK_S))
    const noise = ratioNoise(results, { windowS, together, blockS })
    if (noise) variances.push(noise.per_second_var / windowS)
  }
  return variances.length ? variances.reduce((a, v) => a + v, 0) / variances.length : null
}

module.exports = { ratioNoise, blockFor, fewestIn, windowVarianceOf, BLOCK_S }
