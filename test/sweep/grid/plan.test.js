'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { parseVary, cellsOf, schedule, runsLeft } = require('../../../lib/sweep/grid/plan')
const { BenchmarkOptions } = require('../../../lib/cli/benchmark-options')

test('--vary: two or more dimensions of known flags, each value checked as the benchmark takes it', () => {
  assert.deepEqual(parseVary(['batch_size=100,500', 'concurrent_requests=1, 4,16', 'rate=2.5,10', 'replicas=0,0-1']), [
    { name: 'batch_size', values: [100, 500] },
    { name: 'concurrent_requests', values: [1, 4, 16] },
    { name: 'rate', values: [2.5, 10] },
    { name: 'replicas', values: [0, '0-1'] }
  ])
  assert.deepEqual(parseVary(['batch_size=1', 'replicas=00-01,2-2,1-all'])[1].values, ['0-1', 2, '1-all'],
    'each range in one spelling')
  for (const [texts, message] of [
    [['batch_size=1,2'], /a grid needs --vary NAME=V1,V2,… at least twice/],
    [['batch_size=1,2', 'workers=1,2'],
      /--vary workers: a grid varies batch_size, concurrent_requests, processes, shards, replicas, rate/],
    [['batch_size=1,2', 'batch_size=3'], /--vary batch_size is given twice/],
    [['batch_size=1,0', 'shards=3'], /--vary batch_size: '0' is not a value; give whole numbers of at least 1/],
    [['batch_size=1,1', 'shards=3'], /--vary batch_size names a value twice/],
    [['batch_size', 'shards=3'], /--vary must be NAME=V1,V2,… \(got 'batch_size'\)/],
    [['batch_size=1', 'rate=-3'], /--vary rate: '-3' is not a value; give positive numbers/],
    // Issue 57: replica ranges compared by their bounds, as CrateDB reads them.
    [['batch_size=1', 'replicas=0-1,0-01'], /--vary replicas names a value twice \(0-1 and 0-01\)/],
    [['batch_size=1', 'replicas=1,1-1'], /--vary replicas names a value twice \(1 and 1-1\)/],
    [['batch_size=1', 'replicas=01,1'], /--vary replicas names a value twice \(01 and 1\)/],
    [['batch_size=1', 'replicas=2-1'], /--vary replicas: '2-1' is not a value; give replica counts .*upper bound not /]
  ]) assert.throws(() => parseVary(texts), (e) => e.exitCode === 2 && message.test(e.message), message)
})

test('the cells: every combination, the first dimension slowest; repeats in rounds over the whole grid', () => {
  const cells = cellsOf([{ name: 'batch_size', values: [100, 500] }, { name: 'concurrent_requests', values: [1, 4,
    16] }])
  assert.deepEqual(cells.map((c) => c.id), ['batch_size-100_concurrent_requests-1',
    'batch_size-100_concurrent_requests-4',
    'batch_size-100_concurrent_requests-16', 'batch_size-500_concurrent_requests-1',
      'batch_size-500_concurrent_requests-4',
    'batch_size-500_concurrent_requests-16'])
  assert.deepEqual(BenchmarkOptions.of(cells[1].settings).toArgv(), ['--batch_size', '100', '--concurrent_requests',
    '4'])
  const order = schedule(cells, 3).map((r) => `${r.round}:${cells.indexOf(r.cell)}`)
  assert.deepEqual(order, ['1:0', '1:1', '1:2', '1:3', '1:4', '1:5', '2:0', '2:1', '2:2', '2:3', '2:4', '2:5',
    '3:0', '3:1', '3:2', '3:3', '3:4', '3:5'], 'round 2 starts only when every cell has run once')
  const done = new Set(['batch_size-100_concurrent_requests-1#1', 'batch_size-500_concurrent_requests-16#1'])
  assert.deepEqual(runsLeft(cells, 1, done).map((r) => r.cell.id), ['batch_size-100_concurrent_requests-4',
    'batch_size-100_concurrent_requests-16', 'batch_size-500_concurrent_requests-1',
      'batch_size-500_concurrent_requests-4'])
})
