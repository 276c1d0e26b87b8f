'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { readStudyFile, readStudyObject } = require('../../lib/base/files')
const { tempDir } = require('../helpers/temp-files')

test('a study file is read only as the tool writes it: a regular file holding a JSON object; else one reason', (t) => {
  const dir = tempDir(t)
  const refuse = (why) => new Error(`grid.json ${why}`)
  const file = (name, text) => {
    fs.writeFileSync(path.join(dir, name), text)
    return path.join(dir, name)
  }
  assert.deepEqual(readStudyObject(file('ok.json', '{"cells":[]}'), refuse), { cells: [] })
  assert.throws(() => readStudyFile(path.join(dir, 'none.json'), refuse), /^Error: grid\.json does not exist$/)
  assert.equal(readStudyObject(path.join(dir, 'none.json'), refuse, { nullIfMissing: true }), null)
  assert.throws(() => readStudyFile(dir, refuse), /grid\.json is not a regular file/)
  assert.throws(() => readStudyObject(file('list.json', '[1]'), refuse, { kind: 'a grid' }), /does not hold a grid$/)
  assert.throws(() => readStudyObject(file('null.json', 'null'), refuse), /does not hold an object$/)
  assert.throws(() => readStudyObject(file('bad.json', '{"a":'), refuse), /is not JSON \(/)
})
