'use strict'

const { processRuns } = require('../base/processes')

// A cluster the tool started has nodes whose processes it knows. When every one of them is gone, no request in flight
// will ever be answered and no host will come back: the run ends at once (its requests in flight abandoned, their
// rows in doubt), instead of waiting out --timeout for each, the nodes named. A cluster with a node still running is
// left to the client's own judgement (a node that restarts, a cluster that fails over).

const CHECK_EVERY_MS = 1000

/**
 * Checks the `started` cluster's processes (StartedCluster: its `pids`, `lostNodes()`) every `everyMs`; once none runs,
 * calls `onAllGone(why)` once. Returns stop(). Nothing to watch (no pids known): a stop that does nothing.
 */
function watchStartedNodes (started, { onAllGone, everyMs = CHECK_EVERY_MS, alive = processRuns,
  timers = { setInterval, clearInterval } }) {
  const pids = started && Array.isArray(started.pids) ? started.pids.filter((p) => Number.isSafeInteger(p) && p > 1)
    : []
  if (pids.length === 0) return () => {}
  const timer = timers.setInterval(() => {
    if (pids.some((pid) => alive(pid))) return
    timers.clearInterval(timer)
    const named = started.lostNodes().map((n) => `${n.node} (pid ${n.pid})`)
    onAllGone(`every node of the cluster ${started.by ? `${started.by} started` : 'this run started'} is gone` +
      `${named.length ? `: ${named.join(', ')}` : ''}; their requests in flight are in doubt`)
  }, everyMs)
  if (timer && timer.unref) timer.unref()
  return () => timers.clearInterval(timer)
}

module.exports = { watchStartedNodes, CHECK_EVERY_MS }
