'use strict'

// The house rules a reader relies on: one concern a file keeps a file of lib/ short enough to read in one sitting.
// Line length is ESLint's max-len (120), run by npm test before any test.

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')

const ROOT = path.join(__dirname, '..')
const MAX_LIB_LINES = 400

function jsFilesUnder (dir) {
  const out = []
  for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const file = `${dir}/${entry.name}`
    if (entry.isDirectory()) out.push(...jsFilesUnder(file))
    else if (entry.name.endsWith('.js')) out.push(file)
  }
  return out
}

// As wc -l and an editor count them: a final newline ends the last line, it does not start another.
const lineCount = (text) => text.split('\n').length - (text.endsWith('\n') ? 1 : 0)
const linesOf = (file) => lineCount(fs.readFileSync(path.join(ROOT, file), 'utf8'))

test('lines are counted as an editor shows them', () => {
  assert.equal(lineCount('x\n'.repeat(MAX_LIB_LINES)), MAX_LIB_LINES)
  assert.equal(lineCount('x\n'.repeat(MAX_LIB_LINES) + 'y'), MAX_LIB_LINES + 1)
})

test(`no file of lib/ passes ${MAX_LIB_LINES} lines`, () => {
  const files = jsFilesUnder('lib')
  assert.ok(files.length > 50, 'lib/ was read')
  const long = files.filter((file) => linesOf(file) > MAX_LIB_LINES).map((file) => `${file}: ${linesOf(file)} lines`)
  assert.deepEqual(long, [])
})
