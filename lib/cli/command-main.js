'use strict'

const { EXIT, errorText } = require('../base/errors')

/**
 * The main of a crate-bench command that is not a benchmark (report, compare, sizing, the sweeps, the grid), on the
 * streams it is given: its arguments parsed (`parse()`: the options, or { help: true }), its help, then
 * `body(options)`; every error one line on stderr, named by the command, and its exit code (3 when it carries none).
 * Returns the exit code.
 */
async function commandMain ({ name, usage, parse, body, stdout, stderr }) {
  try {
    const options = parse()
    if (options.help) {
      stdout.write(usage())
      return EXIT.OK
    }
    return await body(options)
  } catch (error) {
    stderr.write(errorText(name, error.message))
    return error.exitCode ?? EXIT.CANNOT_RUN
  }
}

module.exports = { commandMain }
