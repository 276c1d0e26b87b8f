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

class UsageError extends Error {
  constructor (message) {
    super(message)
    this.name = 'UsageError'
    this.exitCode = EXIT.USAGE
  }
}

// The tool could not do its job at all: unreachable host, bad password, rejected DDL.
class FatalError extends Error {
  constructor (message) {
    super(message)
    this.name = 'FatalError'
    this.exitCode = EXIT.CANNOT_RUN
  }
}

/**
 * Any error as the one line a user sees: line breaks folded, control characters escaped, every password masked.
 */
function errorLine (message) {
  return redact(visible(String(message ?? '').replace(/\s*[\r\n]+\s*/g, ' '))).trim()
}

module.exports = { EXIT, UsageError, FatalError, errorLine }
