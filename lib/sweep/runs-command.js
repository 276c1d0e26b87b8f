'use strict'

// What every command of many runs (a sweep, the grid) does around its runs: options parsed and the output folder made
// before the first run, every error one line with its exit code; a benchmark that could not run named by its log.

const fs = require('node:fs')
const path = require('node:path')
const { EXIT, UsageError, errorText } = require('../base/errors')
const { makeDirectories } = require('../base/files')

/**
 * `parse()` gives the config (or { help: true }); `usage()` the help text; `body(config)` the runs, resolving to the
 * exit code. Returns the exit code.
 */
async function runsCommand ({ name, parse, usage, body, stdout, stderr }) {
  const fail = (error) => {
    stderr.write(errorText(name, error.message))
    return error.exitCode ?? EXIT.CANNOT_RUN
  }
  let config
  try {
    config = parse()
    if (config.help) {
      stdout.write(usage())
      return EXIT.OK
    }
    try {
      makeDirectories(path.join(config.out, 'runs'))
    } catch {
      throw new UsageError(`--out '${config.out}': cannot create that directory`)
    }
  } catch (error) {
    return fail(error)
  }
  return body(config).catch(fail)
}

/** The line of a run's log that says why it could not run: its first error line, else its last line. */
function lastErrorOf (logFile) {
  const log = fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8').trim().split('\n') : []
  return log.find((l) => l.includes('error:')) || log.at(-1) || 'no output'
}

module.exports = { runsCommand, lastErrorOf }
