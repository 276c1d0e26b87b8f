'use strict'

const path = require('node:path')
const { UsageError } = require('../base/errors')
const { parseDuration, requirePositiveInteger } = require('../base/values')

// --warmup as the run takes it: a time, or until the nodes' rate is steady (lib/run/steady-warmup.js), and for the
// runs of a study's duet, where they meet to end it together (lib/run/warmup-rendezvous.js).

// A steady warm-up's cap: a minute unless given; at most ten (a node that has not settled then will not).
const DEFAULT_STEADY_MAX_MS = 60_000
const MIN_STEADY_MAX_MS = 10_000
const MAX_STEADY_MAX_MS = 600_000

/**
 * --warmup: a time (0 is none: what a study's default warm-up is turned off with), or `steady` (until the rate is
 * steady, lib/run/steady-warmup.js), at most a minute or the time after `steady:`. { warmupMs, warmupSteady }: a
 * steady warm-up's warmupMs is its cap, where it ends when the rate never settles.
 */
function warmupOf (args) {
  const text = args.warmup === undefined ? '0' : String(args.warmup).trim()
  const maxMs = steadyCapOf(text)
  if (maxMs === null) return { warmupMs: text === '0' ? 0 : parseDuration(args.warmup, 'warmup'), warmupSteady: false }
  if (args.rate !== undefined) {
    throw new UsageError('--warmup steady and --rate do not go together: a paced run\'s timetable is fixed at its ' +
      'start (give the warm-up as a time)')
  }
  if (!(maxMs >= MIN_STEADY_MAX_MS) || maxMs > MAX_STEADY_MAX_MS) {
    throw new UsageError(`--warmup ${text}: a steady warm-up's cap must be from ${MIN_STEADY_MAX_MS / 1000} s to ` +
      `${MAX_STEADY_MAX_MS / 60_000} minutes`)
  }
  return { warmupMs: maxMs, warmupSteady: true }
}

/**
 * The cap of a steady warm-up given as `text` (`steady`, `steady:2m`) in ms, or null when `text` is no steady warm-up:
 * the one reading of the form, for the run and for a study that reads its runs' options.
 */
function steadyCapOf (text) {
  const steady = /^steady(?::(.*))?$/.exec(String(text ?? '').trim())
  if (!steady) return null
  return steady[1] === undefined ? DEFAULT_STEADY_MAX_MS : parseDuration(steady[1], 'warmup steady:')
}

/** A study's duet: its runs end their steady warm-ups together (run/warmup-rendezvous.js). { dir, peers } or null. */
function warmupTogetherOf (args, options) {
  if (args.warmup_together === undefined && args.warmup_peers === undefined) return null
  if (!options.warmupSteady) throw new UsageError('--warmup_together goes with --warmup steady')
  if (args.warmup_together === undefined) throw new UsageError('--warmup_peers goes with --warmup_together')
  return { dir: path.resolve(String(args.warmup_together)),
    peers: requirePositiveInteger(args.warmup_peers ?? 2, 'warmup_peers') }
}

module.exports = { warmupOf, warmupTogetherOf, steadyCapOf }
