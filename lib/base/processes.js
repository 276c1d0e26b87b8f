'use strict'

const fs = require('node:fs')

/** Whether process `pid` runs now (one this user may not signal runs too). */
function processRuns (pid) {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return error.code === 'EPERM'
  }
}

/**
 * Whether `pid` is a process of this tool that still runs: alive and, where /proc shows its command line, a node
 * process of crate-bench or a benchmark (a pid reused by another program after a reboot holds nothing).
 */
function toolProcessRuns (pid) {
  if (!processRuns(pid)) return false
  try {
    return /crate-bench|appCluster/.test(fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8'))
  } catch {
    // No /proc (macOS): alive is all that can be known.
    return !fs.existsSync('/proc')
  }
}

module.exports = { processRuns, toolProcessRuns }
