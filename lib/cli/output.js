'use strict'

// stdout carries --json; when it cannot be written (`--json | true` closes the pipe, `--json > /dev/full` fills the
// disk), the stream emits 'error', which unhandled would end the process with a stack trace and exit 1 ("rows
// failed"). Instead: one line on stderr, and the exit code of a run that could not deliver its result.
const state = { failure: null }

function guardOutput ({ name, stdout = process.stdout, stderr = process.stderr }) {
  stdout.on('error', (error) => {
    if (state.failure) return
    state.failure = error
    try {
      stderr.write(`${name}: error: cannot write the results to stdout: ${error.code || error.message}\n`)
    } catch { /* stderr is gone too */ }
    process.exitCode = 3
  })
  // Nothing more can be said when stderr itself is closed.
  stderr.on('error', () => {})
}

/** The error that stdout met, or null. */
function outputFailure () {
  return state.failure
}

module.exports = { guardOutput, outputFailure }
