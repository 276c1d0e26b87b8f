'use strict'

// One run of a benchmark as a child process, the way every sweep and find-capacity take a step.

const fs = require('node:fs')
const path = require('node:path')
const { spawn } = require('node:child_process')

const ROOT = path.join(__dirname, '..', '..')

/**
 * `node app args`, stdout (the --json result) and stderr (its report) to files. It gets a process
 * group of its own, so that Ctrl-C in a terminal reaches it once, from the caller, and not twice
 * (which the benchmark takes as "abandon the requests in flight").
 */
function runBenchmark ({ app, args, resultFile, logFile, signals }) {
  return new Promise((resolve) => {
    const stdout = fs.openSync(resultFile, 'w')
    const stderr = fs.openSync(logFile, 'w')
    const child = spawn(process.execPath, [path.join(ROOT, app), ...args], {
      stdio: ['ignore', stdout, stderr],
      detached: true
    })
    const stop = () => child.kill('SIGINT')
    signals.on('interrupt', stop)
    if (signals.interrupted) stop()
    child.on('exit', (code, signal) => {
      signals.off('interrupt', stop)
      fs.closeSync(stdout)
      fs.closeSync(stderr)
      resolve({ code, signal })
    })
  })
}

module.exports = { runBenchmark }
