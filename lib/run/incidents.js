'use strict'

// What happened to a worker group's workers (lib/run/worker-group.js), in the words of the report.

function describeIncident ({ kind, worker, detail, phase }) {
  switch (kind) {
    case 'worker_died':
      return `worker ${worker} died (${detail}) before its final report`
    case 'worker_failed':
      return phase === 'startup' ? `worker ${worker} could not start: ${detail}` : `worker ${worker} failed: ${detail}`
    case 'abandoned':
      return `worker ${worker} abandoned: ${detail}; its requests in flight have no answer`
    case 'server_gone':
      return `worker ${worker}: server gone: ${detail}`
    case 'fatal':
      return `worker ${worker} stopped: ${detail}`
    default:
      return `worker ${worker}: ${kind}${detail ? `: ${detail}` : ''}`
  }
}

/** Messages of workers that failed before the load: the run could not run at all. */
function startupFailures (outcomes) {
  return outcomes.flatMap((o) => o.incidents)
    .filter((i) => i.kind === 'worker_failed' && i.phase === 'startup')
    .map(describeIncident)
}

/** Errors that every further request would have met (wrong password, body too large): exit 3. */
function fatalIncidents (outcomes) {
  const details = outcomes.flatMap((o) => o.incidents).filter((i) => i.kind === 'fatal').map((i) => i.detail)
  return [...new Set(details)]
}

module.exports = { describeIncident, startupFailures, fatalIncidents }
