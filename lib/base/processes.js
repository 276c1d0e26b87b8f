'use strict'

/** Whether process `pid` runs now (one this user may not signal runs too). */
function processRuns (pid) {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return error.code === 'EPERM'
  }
}

module.exports = { processRuns }
