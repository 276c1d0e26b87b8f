'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { EXIT, ToolError, UsageError, FatalError, PartialError, errorText } = require('../../lib/base/errors')

test('every error meant for a user carries its exit code; each kind is a ToolError', () => {
  for (const [error, code] of [[new UsageError('u'), EXIT.USAGE], [new FatalError('f'), EXIT.CANNOT_RUN],
    [new PartialError('p'), EXIT.PARTIAL], [new ToolError('t', 7), 7]]) {
    assert.ok(error instanceof ToolError && error instanceof Error)
    assert.equal(error.exitCode, code)
  }
})

test('a command prints an error as its name, "error:" and the message on one line', () => {
  assert.equal(errorText('crate-bench report', 'no such\nrun'), 'crate-bench report: error: no such run\n')
})
