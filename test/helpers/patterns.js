'use strict'

const assert = require('node:assert/strict')

// An expected message longer than a line, written as the regular expressions of its parts: the parts are one
// pattern (their sources joined, their flags together), so the assertion is exactly the one a single literal made.
function joined (...parts) {
  const flags = [...new Set(parts.flatMap((p) => [...p.flags]))].join('')
  return new RegExp(parts.map((p) => p.source).join(''), flags)
}

// A text (a path, a name) matched as itself inside a pattern.
const escaped = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

// One of several lines (a report's partial reasons, a list of failures) matches; the message shows them all.
function assertSomeMatch (lines, pattern) {
  assert.ok(lines.some((line) => pattern.test(line)), `none of these matches ${pattern}:\n${lines.join('\n')}`)
}

module.exports = { joined, escaped, assertSomeMatch }
