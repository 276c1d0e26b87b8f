'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { studyRunOf, PROGRESS_LINE } = require('../../lib/study/parts')
const { tempDir } = require('../helpers/temp-files')
const { memoryStream } = require('../helpers/memory-stream')

test('a study shows its runs\' progress lines, never a row of their report\'s tables', async (t) => {
  const stderr = memoryStream()
  let at = 0
  const lines = ['│ rows/s                                   │ 21,352.31            │',
    '  12s/30s  rows ok 24,000  rows/s 2,000  failed 0  p99 80 ms  client rss 80 MB',
    '│ queries/s │ 12 │',
    '  31s/30s  rows ok 60,000  rows/s 2,000  failed 0  p99 80 ms  client rss 80 MB']
  const run = studyRunOf(async ({ onLine }) => {
    for (const line of lines) {
      onLine(line)
      at += 60_000
    }
    return { code: 0 }
  }, { out: tempDir(t), recordFile: '/x/record.json', stderr, now: () => at })
  await run({ args: [], resultFile: '/x/runs/cell-r2.json' })
  assert.equal(stderr.text, ['  cell-r2: 12s/30s  rows ok 24,000  rows/s 2,000  failed 0  p99 80 ms  client rss 80 MB',
    '  cell-r2: 31s/30s  rows ok 60,000  rows/s 2,000  failed 0  p99 80 ms  client rss 80 MB', ''].join('\n'))
  const others = ['warm-up 3s/10s  rows ok 0 (warm-up, in no figure)', '   4s  42%  rows ok 10', '  9s  queries ok 5']
  for (const line of others) {
    assert.match(line, PROGRESS_LINE)
  }
})
