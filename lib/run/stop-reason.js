'use strict'

// Why a worker, a group or a run stopped: structured, so code decides on `kind` and people read
// `describe()`. Kinds:
//   completed     the source ran dry (--max_rows, --max_queries)
//   duration      --duration passed
//   interrupted   Ctrl-C or SIGTERM
//   server_gone   no host answers any more
//   fatal         every further request would fail alike (wrong password, body too large)
//   main_finished the main workload ended, so the one beside it (--ingest_rate) stops too
//   stopped       the group was stopped before it started (another worker failed)
//   master_gone   the master disappeared; nobody is left to report to
//   user_stop     stopped from the live page or its API: graceful, as Ctrl-C, but the run is whole, not partial
const KINDS = new Set([
  'user_stop',
  'completed',
  'duration',
  'interrupted',
  'server_gone',
  'fatal',
  'main_finished',
  'stopped',
  'master_gone'
])

function stopReason (kind, detail = null) {
  if (!KINDS.has(kind)) throw new Error(`unknown stop reason '${kind}'`)
  return { kind, detail }
}

const LABELS = {
  completed: 'completed',
  duration: 'duration',
  interrupted: 'interrupted',
  server_gone: 'server gone',
  fatal: 'stopped',
  main_finished: 'main workload finished',
  stopped: 'stopped before the load',
  master_gone: 'master gone',
  user_stop: 'stopped by the user'
}

function describeStopReason (reason) {
  if (!reason) return '-'
  return reason.detail ? `${LABELS[reason.kind]}: ${reason.detail}` : LABELS[reason.kind]
}

// Ends that leave the load's window incomplete.
const PARTIAL_KINDS = new Set(['interrupted', 'server_gone', 'fatal', 'master_gone'])

module.exports = { stopReason, describeStopReason, PARTIAL_KINDS }
