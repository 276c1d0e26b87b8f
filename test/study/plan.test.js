'use strict'

// A sizing study's plan: each part's configuration built by that part's own builder from the study file's values,
// its errors naming the file's key, all before any cluster starts; one configuration through every part.

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { parseArgs } = require('../../lib/study/command')
const { mixedConfigOf, sustainedArgs, contenderArgs } = require('../../lib/study/plan')
const { BenchmarkOptions } = require('../../lib/cli/benchmark-options')
const { tempDir } = require('../helpers/temp-files')

function studyOf (t, { grid = '', mixed = '', sustained = '' } = {}) {
  const dir = tempDir(t)
  fs.writeFileSync(path.join(dir, 'mix.yml'), '- {name: count, query: "SELECT count(*) FROM doc.cpu", ratio: 1}\n')
  const file = path.join(dir, 'study.yml')
  fs.writeFileSync(file, 'cluster: {version: 6.4.3, nodes: [1, 3], http_port: 4900}\n' +
    `grid: {vary: {batch_size: [2000, 5000], concurrent_requests: [2, 8]}, slo: p99=1s${grid}}\n` +
    (mixed ? `mixed: {queries: ${path.join(dir, 'mix.yml')}, query_rate: 2, slo: p99=3s${mixed}}\n` : '') +
    (sustained ? `sustained: {duration: 10m${sustained}}\n` : ''))
  return () => parseArgs([file, '--out', path.join(dir, 'out')], {})
}

test('each shape holds its grid as a value, its own folder and nodes, checked by the grid\'s builder', (t) => {
  const config = studyOf(t, { grid: ', args: [--processes, 1]' })()
  const [one, three] = config.shapes
  assert.deepEqual(one.grid.vary.map((d) => d.name), ['batch_size', 'concurrent_requests'])
  assert.deepEqual([one.grid.repeat, one.grid.sloP99Ms, one.grid.out], [3, 1000, path.join(one.dir, 'grid')])
  assert.deepEqual(three.grid.target.hosts, ['http://127.0.0.1:4900', 'http://127.0.0.1:4901', 'http://127.0.0.1:4902'])
  assert.equal(one.grid.fixed.get('processes'), '1', 'the benchmark\'s options as a value')
  assert.equal(one.grid.fixed.toArgv().includes('--processes'), true)
})

test('a bad value of a part is one line naming the study file\'s key', (t) => {
  assert.throws(studyOf(t, { grid: ', args: [--json]' }), /--json is added by the grid; leave it out/)
  assert.throws(studyOf(t, { grid: ', args: [--repeat, 3]' }),
    /--repeat is a grid option: give it as grid\.repeat, not in grid\.args/)
  assert.throws(studyOf(t, { grid: ', args: [--batch_size, 100]' }),
    /--batch_size is a dimension of the grid: give its values with grid\.vary/)
  assert.throws(studyOf(t, { grid: ', args: [--processes, none]' }), /^UsageError: grid\.args: --processes must be/)
  assert.throws(studyOf(t, { mixed: ', args: [--ingest_batch_size, 10]' }),
    /mixed\.args: --ingest_batch_size 10 changes the grid's configuration/)
  assert.throws(studyOf(t, { mixed: ', args: [--rate, 5]' }), /--rate is set by find-capacity/)
  assert.throws(studyOf(t, { grid: ', args: [--model, devops]', mixed: ', edge_repeat: 2' }),
    /grid\.args: --model cannot be carried to mixed:/)
  assert.throws(studyOf(t, { sustained: ', args: [--batch_size, 10]' }),
    /sustained\.args: --batch_size 10 changes the grid's configuration/)
})

test('one configuration through every part: the cell and the grid\'s args, renamed for the ingest beside the queries',
  (t) => {
    const config = studyOf(t, { grid: ', args: [--processes, 2, --timeout, 30s]', mixed: ', args: [--seed, 7]',
      sustained: ', args: [--seed, 7]' })()
    const [shape] = config.shapes
    const cell = { batch_size: 5000, concurrent_requests: 8 }
    const mixed = mixedConfigOf(config.study, shape, cell, {}, { start: 4000 })
    assert.deepEqual([mixed.workload, mixed.queryRate, mixed.sloP99Ms, mixed.start], ['mixed', 2, 3000, 4000])
    const load = BenchmarkOptions.parse(mixed.benchmark)
    assert.deepEqual(['ingest_processes', 'ingest_batch_size', 'ingest_concurrent_requests', 'timeout', 'seed']
      .map((name) => load.get(name)), ['2', '5000', '8', '30s', '7'])
    assert.equal(load.has('batch_size'), false, 'the queries\' own options are not the ingest\'s')
    const sustained = BenchmarkOptions.parse(sustainedArgs(config.study, shape, cell, {}))
    assert.deepEqual(['processes', 'batch_size', 'concurrent_requests', 'duration', 'seed']
      .map((name) => sustained.get(name)), ['2', '5000', '8', '10m', '7'])
  })

test('the benchmark\'s options as a value: read once, edited, written back as given', () => {
  const given = ['--processes', '2', '--insecure', '--timeout=30s']
  const options = BenchmarkOptions.parse(given)
  assert.deepEqual(options.toArgv(), given)
  assert.deepEqual([options.get('insecure'), options.get('timeout')], [null, '30s'])
  const cell = BenchmarkOptions.of({ processes: 4 })
  assert.deepEqual(options.with(cell).toArgv(), ['--insecure', '--timeout=30s', '--processes', '4'])
  assert.deepEqual(options.without(cell).toArgv(), ['--insecure', '--timeout=30s'])
  assert.deepEqual(options.mapped((n) => (n === 'processes' ? 'ingest_processes' : null)).toArgv(),
    ['--ingest_processes', '2'])
  assert.throws(() => BenchmarkOptions.parse(['processes']), /'processes' is no option/)
})

test('a comparison\'s run warms up until steady unless its options give a warm-up, a rate or stages, or end at a count',
  () => {
  const study = (args) => ({ run: { workload: 'ingest', args } })
  const argsOf = (args) => contenderArgs(study(args), { name: 'a', ports: [{ http: 4900, pg: 5900 }] }, {})
  assert.deepEqual(argsOf(['--duration', '20s']).slice(-4), ['20s', '--warmup', 'steady:2m', '--json'])
  for (const given of [['--duration', '20s', '--warmup', '0'], ['--duration', '20s', '--warmup=10s'],
    ['--duration', '20s', '--rate', '1000'], ['--stages', '10s:1000'], ['--max_rows', '1000']]) {
    assert.ok(!argsOf(given).includes('steady'), given.join(' '))
  }
})
