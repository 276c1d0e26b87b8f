'use strict'

// The study's conductor in-process: a sizing study's plan built from its file as the command builds it, conducted
// with a scripted benchmark (test/helpers/grid-model.js) and a cluster start that starts nothing. What it checks:
// the later parts run at the cell the figure to plan with stands on, within the SLO, never the grid's fastest cell
// over it; an SLO no cell meets sizes nothing and says so in the exit code.

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { EventEmitter } = require('node:events')
const { parseArgs } = require('../../lib/study/command')
const { readProgress } = require('../../lib/study/progress')
const { runSizingStudy } = require('../../lib/study/sizing-study')
const { EXIT } = require('../../lib/base/errors')
const { fakeGridBenchmark, clusterOf } = require('../helpers/grid-model')
const { memoryStream } = require('../helpers/memory-stream')
const { tempDir } = require('../helpers/temp-files')

/** A cluster start that starts nothing: its record written, no node ever lost. */
async function fakeStart (options, { recordFile, stopped }, body) {
  const record = { name: 'fake', version: '6.4.3', build_hash: 'abc', nodes: options.nodes, heap: '512m', ports: [],
    on: 'this machine', by: 'the study' }
  fs.mkdirSync(path.dirname(recordFile), { recursive: true })
  fs.writeFileSync(recordFile, JSON.stringify(record))
  try {
    return await body({ target: { name: 'fake', keepLostNodeLogs: () => [] }, record, recordFile })
  } finally {
    stopped(null)
  }
}

async function conduct (t, slo) {
  const dir = tempDir(t)
  const file = path.join(dir, 'study.yml')
  fs.writeFileSync(file, `cluster: {version: 6.4.3, nodes: [1], http_port: 4900}
grid:
  vary: {batch_size: [2000, 5000], concurrent_requests: [4, 16]}
  repeat: 3
  duration: 10s
  slo: p99=${slo}
  args: [--processes, 1]
sustained:
  duration: 10s
`)
  const config = parseArgs([file, '--out', path.join(dir, 'out')], {})
  fs.mkdirSync(config.out, { recursive: true })
  const progress = readProgress(path.join(config.out, 'study.json'), config.study)
  const bench = fakeGridBenchmark({ cluster: clusterOf(1) })
  const stderr = memoryStream()
  const code = await runSizingStudy(config, progress, { stderr, signals: Object.assign(new EventEmitter(),
    { interrupted: false }), run: bench.run, env: {}, startCluster: fakeStart })
  return { code, stderr: stderr.text, bench, progress, out: config.out }
}

test('the later parts run at the cell within the SLO, never at the grid\'s fastest cell over it', async (t) => {
  // The scripted cluster's fastest cell, batch_size 5000 × 16 in flight, has p99 420 ms; at 200 ms its fastest
  // within the target is batch_size 2000 × 16 (180 ms).
  const { code, stderr, bench, progress, out } = await conduct(t, '200ms')
  // The grid's warm-up run and its 12 measured runs, then the sustained run.
  assert.equal(bench.calls.length, 14, stderr)
  const sustained = bench.calls.at(-1)
  const settings = bench.settingsOf(sustained)
  const saved = JSON.parse(fs.readFileSync(path.join(out, '1-node', 'grid', 'grid.json'), 'utf8'))
  assert.deepEqual(saved.best.settings, { batch_size: 5000, concurrent_requests: 16 })
  assert.ok(saved.best.p99_ms > 200, 'the grid\'s fastest cell breaks the SLO')
  const at = saved.cells.find((c) => JSON.stringify(c.settings) === JSON.stringify(settings))
  assert.ok(at.p99_ms <= 200, `the sustained run's cell ${at.id} meets the SLO (p99 ${at.p99_ms} ms)`)
  assert.deepEqual(progress.shapes[1].settings, { cell: progress.shapes[1].settings.cell, ...settings },
    'the shape records the one cell its parts ran at')
  assert.ok(sustained.includes('--duration') && sustained[sustained.indexOf('--duration') + 1] === '10s')
  assert.match(stderr, /the later parts run at the grid's .* cell, with every option of grid\.args: --batch_size/)
  assert.ok([EXIT.OK, EXIT.FAILURES].includes(code), stderr)
})

test('an SLO no cell meets: no later part, no figure to plan with, exit 1', async (t) => {
  const { code, stderr, bench } = await conduct(t, '1ms')
  assert.equal(bench.calls.length, 13, 'the grid only: no sustained run at a cell the study rules out')
  assert.match(stderr, /no cell of the grid met its SLO \(no cell met p99 ≤ 1 ms without failures; the nearest: /)
  assert.match(stderr, /^1 node: no figure to plan with: write-only: every cell of .* is over its SLO/m)
  assert.match(stderr, /no shape has a figure to plan with \(1 measured; each says why above\): exit 1/)
  assert.equal(code, EXIT.FAILURES)
})
