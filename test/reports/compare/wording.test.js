'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { coarseCpuNote } = require('../../../lib/reports/compare/wording')

test('runs whose cluster CPU was sampled coarsely (sys.nodes, short runs) are said, with the widest of them', () => {
  const sampled = (pct, every, over) => ({ cluster_cpu: { source: 'process.cpu.percent', sampling_error_pct: pct,
    sampled_every_s: every, window_s: over } })
  assert.equal(coarseCpuNote([sampled(10.7, 2, 60), {}, { cluster_cpu: { source: 'proc' } }]), null,
    'fine samples, no CPU, or an exact source: nothing to say')
  assert.equal(coarseCpuNote([sampled(156.8, 5, 6), sampled(40, 5, 30), sampled(10, 1, 60)]),
    'the cluster\'s CPU per row was sampled coarsely in 2 of 3 runs (up to ±156.8% as sampled: sys.nodes every 5 s ' +
    'over 6 s): its figure and verdict stand on those samples; longer runs, or --monitor_interval 1s in run.args, ' +
    'sample it finer')
})
