'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { BenchmarkOptions } = require('../../lib/cli/benchmark-options')

const parse = (args) => BenchmarkOptions.parse(args)

test('options read and written again are the options given; a study file\'s list is strict, a command line not', () => {
  const args = ['--processes', '2', '--protocol=pg', '--insecure', '--timeout', '-1s']
  assert.deepEqual(parse(args).toArgv(), args)
  assert.deepEqual(parse(args).names, ['processes', 'protocol', 'insecure', 'timeout'])
  assert.throws(() => parse(['processes', '2']), /^UsageError: 'processes' is no option \(options start with --\)$/)
  // -h or a stray word on a command line is the option parser's to judge: kept where it stands.
  const line = BenchmarkOptions.fromCommandLine(['-h', '--start_cluster', '1', 'stray'])
  assert.deepEqual(line.toArgv(), ['-h', '--start_cluster', '1', 'stray'])
  assert.deepEqual(line.names, ['start_cluster'])
  assert.equal(parse(line), line, 'a value is taken as it is')
})

test('the questions every part asks: a flag given, the protocol, a connection option, the cluster to start', () => {
  const options = parse(['--batch_size', '500', '--protocol', 'pg', '--start_cluster', '3', '--crate_setting', 'a=1',
    '--crate_setting', 'b=2', '--crate_heap=2g'])
  assert.equal(options.has('batch_size'), true)
  assert.equal(options.has('warmup'), false)
  assert.equal(options.protocol({ CRATE_PROTOCOL: 'http' }), 'pg', '--protocol wins over the environment')
  assert.equal(parse([]).protocol({ CRATE_PROTOCOL: 'pg' }), 'pg')
  assert.equal(parse([]).protocol({}), 'http')
  assert.equal(options.connectionFlag(), '--start_cluster')
  assert.equal(parse(['--duration', '1s', '--pg_port=5433']).connectionFlag(), '--pg_port')
  assert.equal(parse(['--duration', '1s']).connectionFlag(), null)
  const { rest, given } = options.splitCluster()
  assert.deepEqual(rest.toArgv(), ['--batch_size', '500', '--protocol', 'pg'])
  assert.deepEqual(given, { start_cluster: ['3'], crate_setting: ['a=1', 'b=2'], crate_heap: ['2g'] })
  assert.throws(() => parse(['--crate_heap', '1g', '--crate_heap', '2g']).splitCluster(),
    /--crate_heap was given twice/)
  assert.throws(() => parse(['--start_cluster', '--crate_heap', '1g']).splitCluster(), /--start_cluster needs a value/)
})

test('the connection to a started cluster\'s nodes: every node\'s address, the protocol said outright', () => {
  const ports = [{ http: 4200, pg: 5432 }, { http: 4201, pg: 5433 }]
  assert.deepEqual(parse(['--batch_size', '5']).connectionTo(ports, { CRATE_PROTOCOL: 'pg' }).toArgv(),
    ['--host', 'http://127.0.0.1:4200,http://127.0.0.1:4201', '--user', 'crate', '--protocol', 'pg', '--pg_port',
      '5432,5433'])
  assert.deepEqual(parse(['--protocol', 'http']).connectionTo(ports, {}).toArgv(),
    ['--host', 'http://127.0.0.1:4200,http://127.0.0.1:4201', '--user', 'crate'])
})

test('the warm-ups a study gives its runs: a tenth of a --duration (at least 5 s), or steady for a comparison', () => {
  assert.deepEqual(parse(['--duration', '2m']).withDefaultWarmup().toArgv(), ['--duration', '2m', '--warmup', '12s'])
  assert.deepEqual(parse(['--duration', '10s']).withDefaultWarmup().toArgv(), ['--duration', '10s', '--warmup', '5s'])
  assert.deepEqual(parse(['--duration', '1m', '--warmup', '0']).withDefaultWarmup().toArgv(),
    ['--duration', '1m', '--warmup', '0'])
  assert.deepEqual(parse(['--max_rows', '10']).withDefaultWarmup().toArgv(), ['--max_rows', '10'], 'a count: none')
  assert.deepEqual(parse(['--duration', '20s']).withSteadyWarmup().toArgv(), ['--duration', '20s', '--warmup',
    'steady:2m'])
  for (const open of [['--rate', '100'], ['--stages', '1m:10'], ['--warmup', '5s']]) {
    assert.deepEqual(parse(['--duration', '20s', ...open]).withSteadyWarmup().toArgv(), ['--duration', '20s', ...open])
  }
})

test('options combined: with (the other wins), plus (both, in order), without, mapped, of settings', () => {
  const a = parse(['--batch_size', '1', '--processes', '2'])
  assert.deepEqual(a.with(parse(['--batch_size', '9'])).toArgv(), ['--processes', '2', '--batch_size', '9'])
  assert.deepEqual(a.plus(['--json']).toArgv(), ['--batch_size', '1', '--processes', '2', '--json'])
  assert.deepEqual(a.without(parse(['--processes', '7'])).toArgv(), ['--batch_size', '1'])
  assert.deepEqual(a.mapped((n) => (n === 'batch_size' ? 'ingest_batch_size' : null)).toArgv(),
    ['--ingest_batch_size', '1'])
  assert.deepEqual(BenchmarkOptions.of({ batch_size: 5000, concurrent_requests: 2 }).toArgv(),
    ['--batch_size', '5000', '--concurrent_requests', '2'])
})
