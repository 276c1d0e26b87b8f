'use strict'

const assert = require('node:assert/strict')

/**
 * The project's invariant for a result against the test double's table: count(*) lies within [acknowledged,
 * acknowledged + in doubt], the result's reconciliation counted that table, and no excess is blamed on the cluster.
 */
function assertCountWithinAcknowledged (result, double) {
  const counted = double.keys.size
  assert.ok(counted >= result.rows_ok && counted <= result.rows_ok + result.rows_in_doubt,
    `count(*) ${counted} within [${result.rows_ok}, ${result.rows_ok} + ${result.rows_in_doubt}]`)
  assert.equal(result.reconciliation.counted, counted)
  assert.notEqual(result.reconciliation.verdict, 'above', 'no excess blamed on the cluster')
}

module.exports = { assertCountWithinAcknowledged }
