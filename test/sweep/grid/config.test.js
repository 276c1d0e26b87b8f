'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { gridConfig } = require('../../../lib/sweep/grid/config')
const { BenchmarkOptions } = require('../../../lib/cli/benchmark-options')

const benchmark = ['--host', 'http://127.0.0.1:4200', '--duration', '10s', '--processes', '2']

test('a grid as a value: its dimensions from flags or from a study\'s mapping alike, the benchmark\'s options held ' +
  'as one value with the warm-up it gets', () => {
  const fromFlags = gridConfig({ vary: ['batch_size=500,1000', 'concurrent_requests=1,2'], benchmark, out: 'g' })
  const fromStudy = gridConfig({ vary: [{ name: 'batch_size', values: ['500', '1000'] },
    { name: 'concurrent_requests', values: [1, 2] }], benchmark: BenchmarkOptions.parse(benchmark), out: 'g' })
  assert.deepEqual(fromStudy.vary, fromFlags.vary)
  assert.deepEqual(fromFlags.vary.map((d) => [d.name, d.values]), [['batch_size', [500, 1000]],
    ['concurrent_requests', [1, 2]]])
  assert.ok(fromFlags.fixed instanceof BenchmarkOptions)
  assert.deepEqual(fromFlags.fixed.toArgv(), [...benchmark, '--warmup', '5s'])
  assert.deepEqual(fromFlags.target, { hosts: ['http://127.0.0.1:4200'], protocol: 'http' })
  // A prefill sets each run's --prefill and --no-drop_table.
  const filled = gridConfig({ vary: ['batch_size=500,1000', 'concurrent_requests=1,2'], benchmark, prefill: 1000 })
  assert.equal(filled.fixed.get('prefill'), '1000')
  assert.equal(filled.fixed.has('no-drop_table'), true)
})

test('a grid\'s bad key is one line named as its caller names it', () => {
  const vary = ['batch_size=500,1000', 'concurrent_requests=1,2']
  const keyOf = (name) => `grid.${name}`
  assert.throws(() => gridConfig({ vary, benchmark, repeat: 0 }, { keyOf }),
    /^UsageError: grid\.repeat must be a whole number of at least 1, not '0'$/)
  assert.throws(() => gridConfig({ vary, benchmark, repeat: 0 }), /^UsageError: --repeat must be a whole number/)
  assert.throws(() => gridConfig({ vary, benchmark: [...benchmark, '--json'] }), /--json is added by the grid/)
  assert.throws(() => gridConfig({ vary, benchmark: [...benchmark, '--batch_size', '5'] }, { keyOf }),
    /--batch_size is a dimension of the grid: give its values with grid\.vary/)
  assert.throws(() => gridConfig({ vary: [{ name: 'shards_x', values: [1, 2] }, 'batch_size=1,2'], benchmark },
    { keyOf }), /^UsageError: grid\.vary shards_x: a grid varies /)
  assert.throws(() => gridConfig({ vary, benchmark, prefill: 10, workload: 'query' }, { keyOf }),
    /grid\.prefill fills the ingest's table: it goes with grid\.workload ingest/)
})
