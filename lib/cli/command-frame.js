'use strict'

const { EXIT, errorText } = require('../base/errors')

/**
 * @typedef {object} Command One command of crate-bench, as bin/crate-bench.js lists it.
 * @property {string} usage its line in crate-bench --help (the name and its arguments)
 * @property {string} describe what it does, in a few words
 * @property {'run'|'exit'|'forward'} interrupts how Ctrl-C and SIGTERM reach it: 'run' the benchmark's pipeline
 *   installs its own watcher; 'exit' ends a command with nothing to restore at once, exit 4; 'forward' hands the
 *   watcher to the command, which stops what it runs and still reports
 * @property {(argv: string[], services: { signals?: object }) => Promise<number>|number|void} main returns the exit
 *   code (a benchmark sets process.exitCode itself)
 */

/**
 * The one frame every command runs in: its output guarded (a closed pipe or a full disk is an error, not a crash),
 * .env read with the password masked in anything printed, the interrupt policy installed, one-line errors, and the
 * exit code. Returns a promise of the exit code.
 */
async function runCommand (name, command, argv, { stderr = process.stderr } = {}) {
  if (command.interrupts === 'run') return command.main(argv, {})
  require('./output').guardOutput({ name })
  try {
    require('./env-file').loadEnvFile()
  } catch (error) {
    stderr.write(errorText(name, error.message))
    return finish(error.exitCode ?? EXIT.USAGE)
  }
  const { Interrupts } = require('./interrupts')
  const signals = new Interrupts().install()
  if (command.interrupts === 'exit') {
    // Nothing to restore: an interruption ends the command at once, with the exit code of an interrupted run.
    signals.on('interrupt', ({ signal }) => {
      stderr.write(`${name}: error: interrupted (${signal})\n`)
      process.exit(EXIT.PARTIAL)
    })
  }
  try {
    return finish(await command.main(argv, { signals }))
  } catch (error) {
    stderr.write(errorText(name, error.message))
    return finish(error.exitCode ?? EXIT.CANNOT_RUN)
  } finally {
    if (command.interrupts === 'forward') signals.uninstall()
  }
}

function finish (code) {
  if (code !== undefined) process.exitCode = code
  return code
}

/** crate-bench --help: the commands, from their table. */
function commandsUsage (commands) {
  const width = Math.max(...Object.values(commands).map((c) => c.usage.length)) + 2
  return Object.values(commands).map((c) => c.usage.length + 2 > 31
    ? `  ${c.usage}\n${' '.repeat(31)}${c.describe}`
    : `  ${c.usage.padEnd(Math.min(width, 29))}${c.describe}`).join('\n')
}

module.exports = { runCommand, commandsUsage }
