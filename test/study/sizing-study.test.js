'use strict'

// The study's conductor in-process: a sizing study's plan built from its file as the command builds it, conducted
// with a scripted benchmark (test/helpers/grid-model.js) and a cluster start that starts nothing. What it checks:
// the later parts run at the cell the figure to plan with stands on, within the SLO, never the grid's fastest cell
// over it; an SLO no cell meets sizes nothing and says so in the exit code; the mixed part searches at the grid's cell
// with grid.args carried to the ingest beside the queries.

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

async function conduct (t, slo, { mixed = '', run = null } = {}) {
  const dir = tempDir(t)
  const file = path.join(dir, 'study.yml')
  if (mixed) fs.writeFileSync(path.join(dir, 'q.yml'), '- {name: q, query: "SELECT 1", ratio: 1}\n')
  fs.writeFileSync(file, `cluster: {version: 6.4.3, nodes: [1], http_port: 4900}
grid:
  vary: {batch_size: [2000, 5000], concurrent_requests: [4, 16]}
  repeat: 3
  duration: 10s
  slo: p99=${slo}
  args: [--processes, 1]
${mixed.replace('QUERIES', path.join(dir, 'q.yml'))}sustained:
  duration: 10s
`)
  const config = parseArgs([file, '--out', path.join(dir, 'out')], {})
  fs.mkdirSync(config.out, { recursive: true })
  const progress = readProgress(path.join(config.out, 'study.json'), config.study)
  const bench = fakeGridBenchmark({ cluster: clusterOf(1) })
  const stderr = memoryStream()
  const code = await runSizingStudy(config, progress, { stderr, signals: Object.assign(new EventEmitter(),
    { interrupted: false }), run: run ? run(bench) : bench.run, env: {}, startCluster: fakeStart })
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
  assert.match(stderr, /^note: sustained\.duration 10s is under the 10 minutes a sustained figure needs: the run is /m,
    'said before anything starts')
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

/**
 * The benchmark with a mixed step scripted beside the grid's: queries at their fixed rate, p99 80 ms plus 2 ms per
 * 1,000 rows/s of the ingest beside them (300 ms at 110,000 rows/s), the ingest holding whatever it is asked.
 */
const withMixedSteps = (mixedCalls) => (bench) => async (options) => {
  if (options.app !== 'appClusterAnalytical.js') return bench.run(options)
  mixedCalls.push(options.args)
  const value = (flag) => Number(options.args[options.args.lastIndexOf(flag) + 1])
  const ingestRate = value('--ingest_rate')
  const queryRate = value('--rate')
  const result = { workload: 'query', seconds: 10, queries_failed: 0, queries_in_doubt: 0, partial: false,
    rate: { target_per_sec: queryRate, achieved_per_sec: queryRate, achieved_pct: 100 },
    latency_ms: { p50: 40, p99: 80 + ingestRate / 500 }, warmup: { seconds: 5, requests: 10 },
    ingest: { rows_failed: 0, rows_in_doubt: 0, latency_ms: { p99: 50 },
      rate: { target_per_sec: ingestRate, achieved_per_sec: ingestRate, achieved_pct: 100 } },
    environment: { cluster: clusterOf(1) } }
  fs.writeFileSync(options.logFile, 'report\n')
  fs.writeFileSync(options.resultFile, JSON.stringify(result))
  return { code: 0, signal: null }
}

test('the mixed part in-process: its search runs at the grid\'s cell, with grid.args carried to the ingest beside ' +
  'the queries, and finds the ingest rate within the SLO', async (t) => {
  const mixedCalls = []
  const { code, stderr, bench, out } = await conduct(t, '200ms', { run: withMixedSteps(mixedCalls),
    mixed: 'mixed:\n  queries: QUERIES\n  query_rate: 5\n  slo: p99=300ms\n  duration: 10s\n  warmup: 2s\n' +
      '  max_steps: 12\n  edge_repeat: 1\n' })
  assert.ok(mixedCalls.length >= 3, stderr)
  for (const args of mixedCalls) {
    // The grid's cell, renamed for the ingest beside the queries; grid.args carried as the ingest's processes.
    assert.equal(args[args.indexOf('--ingest_batch_size') + 1], '2000')
    assert.equal(args[args.indexOf('--ingest_concurrent_requests') + 1], '16')
    assert.equal(args[args.indexOf('--ingest_processes') + 1], '1')
    assert.equal(args[args.lastIndexOf('--rate') + 1], '5', 'the queries at their fixed rate')
    assert.ok(args.includes('--queries_config'))
  }
  const summary = JSON.parse(fs.readFileSync(path.join(out, '1-node', 'mixed', 'capacity.summary.json'), 'utf8'))
  assert.ok(summary.capacity > 78_000 && summary.capacity <= 110_000, `capacity ${summary.capacity} within the SLO`)
  assert.match(stderr, /^\[shape 1 of 1: 1 node\] mixed capacity/m)
  assert.equal(bench.calls.length, 14, 'the grid and the sustained run as before')
  assert.ok([EXIT.OK, EXIT.FAILURES].includes(code), stderr)
})
