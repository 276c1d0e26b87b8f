'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { capacityConfig } = require('../../lib/sweep/capacity-config')
const { BenchmarkOptions } = require('../../lib/cli/benchmark-options')

const benchmark = ['--host', 'http://127.0.0.1:4200', '--processes', '2']

test('a capacity search as a value: the benchmark\'s options held as one value; its keys checked as its caller ' +
  'names them', () => {
  const config = capacityConfig({ slo: 'p99=500ms', benchmark, duration: '10s', warmup: '2s' })
  assert.ok(config.benchmark instanceof BenchmarkOptions)
  assert.deepEqual(config.benchmark.toArgv(), benchmark)
  assert.deepEqual([config.sloP99Ms, config.durationMs, config.warmupMs], [500, 10_000, 2000])
  const keyOf = (name) => `mixed.${name}`
  assert.throws(() => capacityConfig({ slo: 'banana', benchmark }, { keyOf }), /^UsageError: mixed\.slo must be p99=/)
  assert.throws(() => capacityConfig({ slo: 'p99=1s', benchmark, edge_repeat: 15 }, { keyOf }),
    /^UsageError: mixed\.edge_repeat must be a whole number from 1 to 10 \(got '15'\)$/)
  assert.throws(() => capacityConfig({ slo: 'p99=1s', benchmark: [...benchmark, '--rate', '5'] }),
    /^UsageError: --rate is set by find-capacity; leave it out of the benchmark options$/)
  assert.throws(() => capacityConfig({ slo: 'p99=1s', benchmark, workload: 'mixed' }, { keyOf }),
    /mixed\.workload mixed and mixed\.query_rate go together/)
})
