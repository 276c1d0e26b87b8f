'use strict'

// What every command of many runs (a sweep, the grid) does around its runs: the command's frame
// (lib/cli/command-main.js) with the output folder made before the first run; a benchmark that could not run named by
// its log.

const fs = require('node:fs')
const path = require('node:path')
const { UsageError } = require('../base/errors')
const { makeDirectories } = require('../base/files')
const { commandMain } = require('../cli/command-main')

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

module.exports = { runsCommand, lastErrorOf }
