'use strict'

const { runTool } = require('./run-tool')

/**
 * Generators 1..count of one run, started as pods would be (`common` and `args` their flags), generator 1 first so
 * that it is the steward, then `crate-bench report` of the run. `kills[K]` = { at: /stderr pattern/, delayMs,
 * signal, resumeAfterMs }: generator K's process group gets the signal (SIGKILL unless named) delayMs after its
 * stderr shows the pattern; a SIGSTOP is followed by SIGCONT after resumeAfterMs. `delays[K]`: generator K starts
 * that many ms after the others. Returns { runs, report }.
 */
async function runFleet ({ env, common, runId, count = 3, args = ['--duration', '4s'], kills = {}, delays = {},
  resultsTable = 'doc.crate_bench_results' }) {
  const start = (k) => new Promise((resolve) => {
    const kill = kills[k]
    let started = false
    const run = runTool('appClusterIngest.js', [...common, ...args, '--run_id', runId, '--generator', `${k}/${count}`],
      {
      env,
      detached: true,
      onSpawn: (child) => {
        let seen = ''
        let killing = false
        child.stderr.on('data', (chunk) => {
          seen += chunk
          if (k === 1 && !started && /prepared the tables for the fleet/.test(seen)) {
            started = true
            resolve({ run, others: startOthers() })
          }
          if (kill && !killing && kill.at.test(seen)) {
            killing = true
            setTimeout(() => signalGroup(child.pid, kill.signal || 'SIGKILL'), kill.delayMs ?? 0)
            if (kill.resumeAfterMs) setTimeout(() => signalGroup(child.pid, 'SIGCONT'),
              (kill.delayMs ?? 0) + kill.resumeAfterMs)
          }
        })
      }
    })
    if (k !== 1) resolve({ run })
    // A steward killed before it prepared: the others start anyway, as pods would.
    if (k === 1) run.then(() => { if (!started) { started = true; resolve({ run, others: startOthers() }) } })
  })
  const later = (k) => new Promise((resolve) => setTimeout(resolve, delays[k] || 0)).then(() => start(k))
  const startOthers = () => Promise.all(Array.from({ length: count - 1 }, (_, i) => later(i + 2).then((g) => g.run)))
  const first = await start(1)
  const runs = [await first.run, ...(await first.others)]
  const report = await runTool('bin/crate-bench.js', ['report', '--results_table', resultsTable, '--run_id', runId,
    '--json', ...fleetTableOf(args)], { env })
  return { runs, report }
}

function signalGroup (pid, signal) {
  try {
    process.kill(-pid, signal)
  } catch { /* the group has ended */ }
}

/** The --fleet_table of the generators' flags, for the report, which reads it when no generator left a result. */
function fleetTableOf (args) {
  const at = args.indexOf('--fleet_table')
  return at >= 0 ? ['--fleet_table', args[at + 1]] : []
}

module.exports = { runFleet }
