'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { reconcile, describeReconciliation } = require('../../lib/results/reconcile')
const { fmt } = require('../../lib/base/format')
const { joined } = require('../helpers/patterns')

test('each verdict at its boundaries', () => {
  const verdict = (counted) => reconcile({ acknowledged: 1000, inDoubt: 200, counted }).verdict
  assert.equal(verdict(1000), 'exact')
  assert.equal(verdict(999), 'missing')
  assert.equal(verdict(1001), 'within_in_doubt')
  assert.equal(verdict(1200), 'within_in_doubt')
  assert.equal(verdict(1201), 'above')
  assert.equal(reconcile({ acknowledged: 5, inDoubt: 0, counted: 5 }).verdict, 'exact')
})

test('the capture of a node lost under load reads as rows stored although reported failed', () => {
  // Shared capture 60-64: 326 bulks of 1000 fully acknowledged and 3 partial ones (848 ok each),
  // 6 lost mid-request, and the table held 333,310 rows.
  const r = reconcile({ acknowledged: 326_000 + 3 * 848, inDoubt: 6000, counted: 333_310 })
  assert.deepEqual(r, { acknowledged: 328_544, in_doubt: 6000, counted: 333_310, verdict: 'within_in_doubt', excess: 0,
    missing: 0 })
  const above = reconcile({ acknowledged: 140_074, inDoubt: 32_000, counted: 174_322 })
  assert.equal(above.verdict, 'above')
  assert.equal(above.excess, 2248)
  const { cell, warning } = describeReconciliation(above, fmt)
  assert.equal(cell, '174,322: 2,248 more than acknowledged + in doubt')
  assert.match(warning,
    joined(
      /^warning: the table holds 2,248 rows more than the 140,074 acknowledged and the /,
      /32,000 in doubt together: CrateDB stored rows it had reported as failed/))
})

test('the words say how many rows in doubt were written, or that rows are missing', () => {
  assert.deepEqual(describeReconciliation(reconcile({ acknowledged: 10, inDoubt: 5, counted: 12 }), fmt),
    { cell: '12: the rows acknowledged and 2 of the 5 in doubt', warning: null })
  assert.deepEqual(describeReconciliation(reconcile({ acknowledged: 10, inDoubt: 5, counted: 10 }), fmt),
    { cell: '10: exactly the rows acknowledged, none of the 5 in doubt', warning: null })
  const missing = describeReconciliation(reconcile({ acknowledged: 10, inDoubt: 0, counted: 7 }), fmt)
  assert.deepEqual(missing, { cell: '7: 3 FEWER than acknowledged',
    warning: 'warning: the table holds 3 rows fewer than the 10 the cluster acknowledged: acknowledged writes are ' +
      'missing' })
})

test('rows a dead worker sent after its last report are named as such, not blamed on a failover', () => {
  const r = reconcile({ acknowledged: 6300, inDoubt: 0, counted: 8000, unreported: { workers: [1], bound: 2500 } })
  assert.equal(r.verdict, 'above')
  assert.equal(r.excess, 1700)
  const { warning } = describeReconciliation(r, fmt)
  assert.match(warning,
    joined(
      /worker 1 died before its final report, and the rows it sent after /,
      /its last report \(up to about 2,500\) are unknown to this run/))
  assert.doesNotMatch(warning, /failover/)
  // Beyond what the dead worker can explain, the failover explanation stands.
  const more = reconcile({ acknowledged: 6300, inDoubt: 0, counted: 9000, unreported: { workers: [1], bound: 2500 } })
  assert.match(describeReconciliation(more, fmt).warning, /shard failover/)
})
