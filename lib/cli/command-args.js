'use strict'

const { UsageError } = require('../base/errors')
const { unknownOptionMessage } = require('./suggest')

/**
 * The one parser style of every command: yargs, started here so that each command parses the same way. Options are
 * strict (an unknown one is a UsageError naming it) unless `passThrough` is set: then the options the command does
 * not declare stay, in order and as typed, in `_` for the benchmark or the generators that take them. Values are kept
 * as the user typed them (no number guessing in positionals, no camelCase copies); yargs' own --help and --version
 * are off because each command writes its own usage; every problem throws a UsageError (exit 2).
 * The caller declares its options and calls parseSync().
 */
function commandParser (argv, { passThrough = false, benchmarkAfterDash = false } = {}) {
  const parser = require('yargs/yargs')(argv)
    .parserConfiguration({
      'unknown-options-as-args': passThrough,
      'parse-positional-numbers': false,
      'camel-case-expansion': false,
      'populate--': passThrough
    })
    .version(false)
    .help(false)
    .option('help', { alias: 'h', type: 'boolean', describe: 'show this help' })
    .fail((message, error) => {
      const known = Object.keys(parser.getOptions().key)
      throw new UsageError(inOurWords(message || (error && error.message), known, benchmarkAfterDash, argv))
    })
  return passThrough ? parser : parser.strictOptions()
}

/**
 * yargs' messages in the words of the rest of the tool, naming the flag as the user typed it and the declared one it
 * most likely meant; a command that passes benchmark options on after `--` says so.
 */
function inOurWords (message, known, afterDash, argv) {
  const unknown = /^Unknown arguments?: (.+)$/.exec(message)
  if (unknown) return unknownOptionMessage(firstTyped(unknown[1].split(', '), argv), known, { afterDash })
  const noValue = /^Not enough arguments following: (.+)$/.exec(message)
  if (noValue) return `--${noValue[1]} needs a value`
  const missing = /^Missing required arguments?: (.+)$/.exec(message)
  if (missing) return `give ${missing[1].split(', ').map((name) => `--${name}`).join(' and ')} (see --help)`
  return message
}

/**
 * Of the unknown names yargs lists (in its own order), the one the user typed first as an option of its own: in
 * `--precision -5%` that is `precision`, not the `5` and `%` yargs reads from the negative value.
 */
function firstTyped (names, argv) {
  const typedAt = (name) => argv.findIndex((arg) => arg === `--${name}` || String(arg).startsWith(`--${name}=`))
  const long = names.map((name) => [name, typedAt(name)]).filter(([, at]) => at >= 0).sort((a, b) => a[1] - b[1])
  return long.length > 0 ? long[0][0] : names[0]
}

/** The arguments a pass-through parser left for others: positionals and unknown options, then what followed `--`. */
function passedThrough (parsed) {
  const rest = parsed._.map(String)
  return parsed['--'] ? [...rest, '--', ...parsed['--'].map(String)] : rest
}

/**
 * The connection flags of a command that reads a results table (report, compare, sizing), declared once; the
 * password comes from CRATE_PASSWORD, never a flag.
 */
const CONNECTION_FLAGS = Object.freeze({
  host: { type: 'string', requiresArg: true },
  port: { type: 'string', requiresArg: true },
  user: { type: 'string', requiresArg: true },
  timeout: { type: 'string', requiresArg: true },
  ssl: { type: 'boolean' },
  insecure: { type: 'boolean' }
})

/** The connection flags given, by name: what lib/reports/read-runs.js takes. */
function connectionFlagsOf (parsed) {
  return Object.fromEntries(Object.keys(CONNECTION_FLAGS).filter((name) => parsed[name] !== undefined)
    .map((name) => [name, parsed[name]]))
}

module.exports = { commandParser, passedThrough, CONNECTION_FLAGS, connectionFlagsOf }
