'use strict'

const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')

/**
 * A sizing study's exit as its --help says: 0 when a shape has a figure to plan with, else 1 with the line that says
 * none has (issue 68: a CI gate must not pass a study that sized nothing). A short study of one run a cell is such a
 * study: what it measured is kept and said, its exit is 1.
 */
function assertSizingExit (run, out) {
  assert.ok([0, 1].includes(run.code), `a study that sized (exit 0 or 1), not exit ${run.code}: ${run.stderr}`)
  const sizing = JSON.parse(fs.readFileSync(path.join(out, 'sizing.json'), 'utf8'))
  const planned = sizing.groups.flatMap((g) => g.shapes).some((s) => s.planning && s.planning.per_sec !== null)
  assert.equal(run.code, planned ? 0 : 1, run.stderr)
  if (!planned) assert.match(run.stderr, /^no shape has a figure to plan with \(\d+ measured; each says why above\)/m)
}

module.exports = { assertSizingExit }
