'use strict'

const { visible } = require('./format')
const { redact } = require('./secrets')

// Exit codes are part of the interface: sweep scripts tell "the cluster rejected work"
// (data) apart from "the tool could not run" (stop the sweep).
const EXIT = Object.freeze({
  OK: 0,
  FAILURES: 1,
  USAGE: 2,
  CANNOT_RUN: 3,
  PARTIAL: 4,
  THRESHOLDS: 5
})

// Every error the tool means to show a user: its message is the one line printed, its exitCode the process's. The
// command frame and the runner print any of them the same way.
class ToolError extends Error {
  constructor (message, exitCode) {
    super(message)
    this.name = 'ToolError'
    this.exitCode = exitCode
  }
}

// Bad input: a flag, a file, a name. Nothing was sent.
class UsageError extends ToolError {
  constructor (message) {
    super(message, EXIT.USAGE)
    this.name = 'UsageError'
  }
}

// The tool could not do its job at all: unreachable host, bad password, rejected DDL.
class FatalError extends ToolError {
  constructor (message) {
    super(message, EXIT.CANNOT_RUN)
    this.name = 'FatalError'
  }
}

// What was asked for is only partly there: a run interrupted, a fleet nobody reconciled.
class PartialError extends ToolError {
  constructor (message) {
    super(message, EXIT.PARTIAL)
    this.name = 'PartialError'
  }
}

/**
 * Any error as the one line a user sees: line breaks folded, control characters escaped, every password masked.
 */
function errorLine (message) {
  return redact(visible(String(message ?? '').replace(/\s*[\r\n]+\s*/g, ' '))).trim()
}

/** The line a command prints for an error: its name, 'error:', the message as one line. */
function errorText (name, message) {
  return `${name}: error: ${errorLine(message)}\n`
}

/** `check()`'s value, or its usage error's one line led by `key` (the part of a file it checks). */
function underKey (key, check) {
  try {
    return check()
  } catch (error) {
    if (error instanceof UsageError) throw new UsageError(`${key}: ${error.message}`)
    throw error
  }
}

/**
 * `check()`; a UsageError it throws naming `--name` names it as the caller does instead (`keyOf(name)`: grid.repeat in
 * a study file), so that one builder's errors fit the command line and a study file alike.
 */
function keyedAs (name, keyOf, check) {
  try {
    return check()
  } catch (error) {
    if (error instanceof UsageError) throw new UsageError(error.message.split(`--${name}`).join(keyOf(name)))
    throw error
  }
}

module.exports = { EXIT, ToolError, UsageError, FatalError, PartialError, errorLine, errorText, underKey, keyedAs }
