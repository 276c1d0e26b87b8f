'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { relativePaths } = require('../../../lib/reports/html/relative-paths')

test('a page names files under its folder relative to it, a file outside from there, and nothing else changes', () => {
  const page = '<li>study file /s/study.yml (SHA-256 x)</li><li>kept in /s/out/forks/1-a-lost-nodes/n1): see ' +
    '/s/out, /s/outer/x and /s/out/</li>'
  assert.equal(relativePaths(page, '/s/out', { files: ['/s/study.yml'] }), '<li>study file ../study.yml (SHA-256 ' +
    'x)</li><li>kept in forks/1-a-lost-nodes/n1): see ., /s/outer/x and .</li>')
  assert.equal(relativePaths('a <b>/s/out/grid</b>', '/s/out/'), 'a <b>grid</b>')
})
