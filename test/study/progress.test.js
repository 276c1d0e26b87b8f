'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { readProgress, writeProgress } = require('../../lib/study/progress')
const { tempDir } = require('../helpers/temp-files')

const study = { cluster: { version: '6.4.3' }, shapes: [1], grid: { vary: [{ name: 'batch_size', values: ['1', '2'] },
  { name: 'processes', values: ['1', '2'] }], repeat: 3 } }

test('a study folder resumes the study it holds, its grid\'s vary as an earlier version wrote it too; another ' +
  'study\'s folder is refused', (t) => {
  const file = path.join(tempDir(t), 'study.json')
  assert.deepEqual(readProgress(file, study), { study, shapes: {}, forks: {} })
  writeProgress(file, { study, shapes: { 1: { status: 'done' } }, forks: {} })
  assert.deepEqual(readProgress(file, study).shapes, { 1: { status: 'done' } })
  // vary as text (batch_size=1,2): the form of the versions before it travelled as a value.
  const earlier = { ...study, grid: { ...study.grid, vary: ['batch_size=1,2', 'processes=1,2'] } }
  fs.writeFileSync(file, JSON.stringify({ study: earlier, shapes: { 1: { status: 'done' } }, forks: {} }))
  assert.deepEqual(readProgress(file, study).shapes, { 1: { status: 'done' } })
  const other = { ...study, grid: { ...study.grid, repeat: 5 } }
  assert.throws(() => readProgress(file, other), /holds a study of another file or settings/)
})
