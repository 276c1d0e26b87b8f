'use strict'

const { SteadyWarmup } = require('./steady-warmup')
const { WarmupRendezvous } = require('./warmup-rendezvous')
const { now } = require('../base/clock')
const { fmt, round } = require('../base/format')

/**
 * --warmup steady: the main group's deltas judged second by second (lib/run/steady-warmup.js). Once its rate is steady,
 * every group is told the warm-up ended (each worker measures from then, its --duration counting from there), and
 * `onWarm` gets { ms, steady, line, ... }. At the cap, nobody need be told: the workers' warm-up ends there anyway.
 * A run of a study's duet (--warmup_together) says when it is steady and ends its warm-up once every peer has.
 */
function watchSteadyWarmup (ctx, main, workerGroups, { startAt, onWarm }) {
  const { options, workload } = ctx
  const capMs = options.warmupMs
  const judge = new SteadyWarmup({ startAt, workers: options.processes, maxMs: capMs, unit: workload.unit })
  const together = options.warmupTogether ? new WarmupRendezvous(options.warmupTogether) : null
  let own = null
  let capTimer = null
  let pollTimer = null
  const stop = () => {
    main.off('delta', onDelta)
    clearTimeout(capTimer)
    clearInterval(pollTimer)
  }
  const end = (verdict, atMs) => {
    stop()
    const ms = Math.min(atMs, capMs)
    if (ms < capMs) for (const group of workerGroups) group.warm()
    onWarm({ ms, ...verdict })
  }
  // Steady here: waits for the duet's other runs, at most until the cap.
  const awaitPeers = () => {
    const atMs = now() - startAt
    const arrived = together.arrived()
    const waitedS = round((atMs - own.atMs) / 1000, 1)
    const peers = together.peers - 1
    if (arrived >= together.peers) {
      end({ ...own.verdict, together: { peers, waited_s: waitedS }, line: `${own.verdict.line}; ended with its ` +
        `${peers === 1 ? 'peer' : `${peers} peers`} in the duet (waited ${fmt(waitedS)} s for ${peers === 1 ? 'it'
          : 'them'})` }, atMs)
    } else if (atMs >= capMs) {
      end({ ...own.verdict, together: { peers, waited_s: waitedS }, line: `${own.verdict.line}; its duet's other ` +
        `runs were not steady by the cap: it ended there` }, capMs)
    }
  }
  const decide = () => {
    if (own) return awaitPeers()
    const atMs = now() - startAt
    const verdict = judge.verdict(atMs)
    if (!verdict) return
    if (!verdict.steady || !together) return end(verdict, verdict.steady ? atMs : capMs)
    own = { verdict, atMs }
    main.off('delta', onDelta)
    together.arrive({ at_ms: Math.round(atMs), line: verdict.line })
    pollTimer = setInterval(awaitPeers, PEER_POLL_MS)
    awaitPeers()
  }
  const onDelta = ({ worker, delta }) => {
    judge.add(worker, delta)
    decide()
  }
  main.on('delta', onDelta)
  capTimer = setTimeout(decide, Math.max(0, startAt + capMs - now()))
  return { stop }
}

// How often a steady run of a duet looks whether its peers are steady too: their windows start this close together.
const PEER_POLL_MS = 100

module.exports = { watchSteadyWarmup, PEER_POLL_MS }
