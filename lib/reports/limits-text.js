'use strict'

const { fmt } = require('../base/format')
const { flightNeeded } = require('../results/result')
const { clusterLimitReason, busyMachineLine } = require('./cluster-limits')

// The report's words on what limited a run: a --rate shortfall (the cluster first, when its samples say so, then
// the client's flight) and requests near --timeout (judged by their own time, not the schedule's).

/**
 * Why a --rate run fell short, from its numbers: requests due while every slot was busy mean the flight was too
 * small for the latency (N in flight serve N / latency a second), so it names the --concurrent_requests that would
 * have served the rate at the run's latency; requests that went out on time point at their answers.
 */
function rateShortfallLine (result, unit) {
  const rate = result.rate
  const head = `warning: achieved ${fmt(rate.achieved_pct)}% of the target rate`
  // The cluster's own samples first: a load it could not serve is no client's to fix.
  const limit = clusterLimitReason(result)
  if (limit) {
    // A machine that ran more than this load first: more nodes would not fix another client's work.
    const busy = busyMachineLine(result)
    const advice = busy ? `but ${busy.replace(/: these figures are not the cluster's alone$/, '')}: quiet them ` +
      'and measure again before you lower the rate or add nodes' : 'lower the rate or add nodes'
    return `${head}: the load was beyond what the cluster serves (${limit}): ${advice}; more ` +
      `requests in flight would only queue more (${fmt(rate.late_requests)} late, ` +
      `${fmt(rate.dropped_requests ?? 0)} never sent)`
  }
  const inFlight = result.options && result.options.concurrent_requests
  const needed = flightNeeded({ inFlight, targetPerSec: rate.target_per_sec, achievedPerSec: rate.achieved_per_sec })
  if (rate.late_requests > 0 && needed !== null) {
    return `${head}: this client's ${fmt(inFlight)} requests in flight per process were all busy when requests ` +
      `were due (${fmt(rate.late_requests)} late, ${fmt(rate.dropped_requests ?? 0)} never sent): at this latency ` +
      `they serve about ${fmt(Math.round(rate.achieved_per_sec))} ${unit}/s. Raise --concurrent_requests to at least ` +
      `${fmt(needed)} (if the cluster's latency then grows with it, the cluster is the limit)`
  }
  const failed = result[`${unit}_failed`] ?? 0
  const inDoubt = result[`${unit}_in_doubt`] ?? 0
  return `${head}: every request went out on time; the shortfall is in the answers (${fmt(failed)} ${unit} failed, ` +
    `${fmt(inDoubt)} in doubt, ${fmt(rate.dropped_requests ?? 0)} requests never sent): the cluster could not keep up`
}

// Above this share of --timeout, requests near the tail time out and turn into rows in doubt.
const P99_TIMEOUT_SHARE = 0.5

/**
 * The slowest requests near --timeout. --timeout bounds a request's own time, send to answer; under --rate the
 * latency counts from each request's scheduled start, so it is judged by the slowest request's own time instead, and
 * a p99 far above it is the schedule falling behind (requests waiting for a free slot), said as such.
 */
function timeoutWarning (result, unit) {
  const timeoutMs = result.options && result.options.timeout_ms
  const p99 = result.latency_ms && result.latency_ms.p99
  if (!(timeoutMs > 0) || !(p99 >= timeoutMs * P99_TIMEOUT_SHARE)) return null
  const share = (ms) => `${fmt(Math.round((ms / timeoutMs) * 100))}% of --timeout (${fmt(timeoutMs)} ms)`
  const advice = `the slowest requests will time out and leave their ${unit} in doubt; lower --concurrent_requests ` +
    'or --batch_size, or raise --timeout'
  const own = result.rate && typeof result.rate.request_max_ms === 'number' ? result.rate.request_max_ms : null
  if (own === null) return `warning: p99 ${fmt(p99)} ms is ${share(p99)}: ${advice}`
  if (own >= timeoutMs * P99_TIMEOUT_SHARE) {
    return `warning: the slowest request took ${fmt(own)} ms from send to answer, ${share(own)}: ${advice}`
  }
  return `note: p99 ${fmt(p99)} ms counts from each request's scheduled start: the schedule fell behind (requests ` +
    `waited for a free slot), while no request's own time came near --timeout (the slowest ${fmt(own)} ms, ` +
    `${share(own)})`
}

module.exports = { rateShortfallLine, timeoutWarning }
