'use strict'

const v8 = require('node:v8')

// Where a run's workers run: a run of one load group of one process runs its worker in the master's process
// (lib/run/in-process-worker.js), which spares it a second Node process to start and its modules to load; every
// other run forks a process per worker. CRATE_BENCH_FORK_WORKERS forks even then (tests that kill a worker).

// What of a worker's V8 flags (workload.workerNodeFlags) V8 still takes once the process runs: the scavenger reads
// --parallel-scavenge at every scavenge, WebAssembly compilation reads --liftoff-only at every compile (so it is set
// before the first request compiles undici's llhttp). The heap's sizes and the rest of what --single-threaded-gc
// implies are fixed at start-up; setting those later aborts the process.
const RUNTIME_FLAGS = { '--single-threaded-gc': ['--no-parallel-scavenge'], '--liftoff-only': ['--liftoff-only'] }

function workersInMasterProcess (loadGroups, env) {
  return loadGroups.length === 1 && loadGroups[0].options.processes === 1 && !env.CRATE_BENCH_FORK_WORKERS
}

/** The part of the workload's worker flags V8 takes at runtime, set in this process. */
function applyWorkerFlags (workload) {
  const applied = []
  for (const flag of workload.workerNodeFlags || []) {
    for (const runtimeFlag of RUNTIME_FLAGS[flag] || []) {
      v8.setFlagsFromString(runtimeFlag)
      applied.push(runtimeFlag)
    }
  }
  return applied
}

module.exports = { workersInMasterProcess, applyWorkerFlags }
