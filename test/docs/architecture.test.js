'use strict'

// docs/architecture.md says which folders lib/ has and what each holds: its list is read against lib/ itself, so a
// folder added or removed without the page fails here.

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { ROOT } = require('../helpers/run-tool')

test('docs/architecture.md names every folder of lib/, and no other', () => {
  const page = fs.readFileSync(path.join(ROOT, 'docs', 'architecture.md'), 'utf8')
  const section = page.slice(page.indexOf('## The folders'))
  const block = /```text\nlib\/\n([\s\S]*?)```/.exec(section)
  assert.ok(block, 'the folder list of "## The folders"')
  const named = [...block[1].matchAll(/^ {2}([a-z-]+)\/ /gm)].map((m) => m[1]).sort()
  const folders = fs.readdirSync(path.join(ROOT, 'lib'), { withFileTypes: true }).filter((d) => d.isDirectory())
    .map((d) => d.name).sort()
  assert.deepEqual(named, folders)
  // And the graph below it names each folder that imports another.
  for (const folder of folders.filter((f) => f !== 'base')) {
    assert.match(page, new RegExp(`(^| )${folder} +→ `, 'm'), `${folder}'s imports in the graph`)
  }
})
