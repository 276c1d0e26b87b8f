'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { filesOf } = require('./files')

test('npm test runs every test file once: side by side, or alone for the reason given', () => {
  const sideBySide = filesOf('side-by-side')
  const alone = filesOf('one-at-a-time')
  assert.ok(alone.includes('test/integration/node-stopped.integration.test.js'))
  assert.ok(sideBySide.includes('test/files.test.js'))
  assert.deepEqual(sideBySide.filter((f) => alone.includes(f)), [])
  assert.ok(alone.every((f) => /^test\/(integration|e2e)\//.test(f)), 'only files that share a server or a clock')
  assert.throws(() => filesOf('all'), /unknown group "all"/)
})
