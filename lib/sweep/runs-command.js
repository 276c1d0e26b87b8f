'use strict'

// What every command of many runs (a sweep, the grid) does around its runs: the command's frame
// (lib/cli/command-main.js) with the output folder made before the first run; a benchmark that could not run named by
// its log, and by what the run before it saw when that one lost the cluster.

const fs = require('node:fs')
const path = require('node:path')
const { UsageError } = require('../base/errors')
const { makeDirectories } = require('../base/files')
const { commandMain } = require('../cli/command-main')
const { fmt } = require('../base/format')

/**
 * `parse()` gives the config (or { help: true }); `usage()` the help text; `body(config)` the runs, resolving to the
 * exit code. Returns the exit code.
 */
function runsCommand ({ name, parse, usage, body, stdout, stderr }) {
  return commandMain({ name, parse, usage, stdout, stderr, body: (config) => {
    try {
      makeDirectories(path.join(config.out, 'runs'))
    } catch {
      throw new UsageError(`--out '${config.out}': cannot create that directory`)
    }
    return body(config)
  } })
}

/** The line of a run's log that says why it could not run: its first error line, else its last line. */
function lastErrorOf (logFile) {
  const log = fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8').trim().split('\n') : []
  return log.find((l) => l.includes('error:')) || log.at(-1) || 'no output'
}

/**
 * When the run before one that could not reach the cluster lost it (its hosts down during the run), what it saw: "; the
 * run before it (batch_size 10000, concurrent_requests 16) lost http://db1:4200 at 20.2 s, the cluster answering
 * OutOfMemoryError[Java heap space] (20,000 rows) before" — a load the cluster did not survive. Else ''.
 */
function clusterLostBefore (resultFile, label) {
  let result
  try {
    result = JSON.parse(fs.readFileSync(resultFile, 'utf8'))
  } catch {
    return ''
  }
  const lost = (result.events || []).find((e) => e.kind === 'host_down')
  if (!lost) return ''
  // The largest groups first, as the result lists them; each with its raw sample, not its grouping pattern.
  const own = (result.errors || []).filter(answeredByCluster).slice(0, 2)
  const unit = result.workload === 'analytical' ? 'queries' : 'rows'
  return `; the run before it (${label}) lost ${lost.host} at ${fmt(lost.at_s)} s` +
    (own.length ? `, the cluster answering ${own.map((e) => `${e.sample ?? e.message} (${fmt(e.count)} ${unit})`)
      .join(', ')} before` : '')
}

/**
 * An error group the cluster itself answered: an HTTP status, CrateDB's numeric code (over pg too: XX000 is 5000), or
 * a SQLSTATE (five characters with a digit); not a connection that closed or never opened (ECLOSED, EPIPE, ENOHOST).
 */
function answeredByCluster (group) {
  return typeof group.status === 'number' || typeof group.code === 'number' ||
    /^(?=.*\d)[0-9A-Z]{5}$/.test(String(group.code))
}

module.exports = { runsCommand, lastErrorOf, clusterLostBefore }
