'use strict'

// Both workloads are exactly the Workload interface of lib/workloads/workload.js: nothing missing, nothing beyond it,
// and each worker's RequestSource has what the engine calls.

const test = require('node:test')
const assert = require('node:assert/strict')
const { loadWorkload } = require('../../lib/workloads')
const { workloadProblems, SOURCE_REQUIRED, SOURCE_OPTIONAL } = require('../../lib/workloads/workload')
const { parseOptions } = require('../../lib/cli/options')

const ENV = { CRATE_HOST: 'localhost' }

test('ingest and analytical are Workloads: every member the interface names, none it does not', () => {
  for (const name of ['ingest', 'analytical']) assert.deepEqual(workloadProblems(loadWorkload(name)), [], name)
})

test('a module short of a member, or with one the interface does not name, is not a Workload', () => {
  const { createSource, ...lacking } = loadWorkload('ingest')
  assert.equal(typeof createSource, 'function')
  assert.deepEqual(workloadProblems(lacking), ['missing createSource'])
  assert.deepEqual(workloadProblems({ ...loadWorkload('ingest'), secretHook: () => {} }),
    ['not in the interface: secretHook'])
})

test('each workload\'s source is a RequestSource: its next request, and an answer settled into units', () => {
  const ingest = loadWorkload('ingest')
  const options = parseOptions(ingest, ['--batch_size', '3', '--max_rows', '5'], ENV)
  const rows = ingest.createSource(options, { workerIndex: 0, workerCount: 1 }, { startTime: '2026-01-01T00:00:00Z' })
  const query = loadWorkload('analytical')
  const queryOptions = parseOptions(query, ['--queries_config', 'queries/select1.yml', '--max_queries', '2'], ENV)
  const queries = query.createSource(queryOptions, { workerIndex: 0, workerCount: 1 }, {})
  for (const source of [rows, queries]) {
    for (const member of SOURCE_REQUIRED) assert.notEqual(source[member], undefined, member)
    for (const member of SOURCE_OPTIONAL) {
      assert.ok(source[member] === undefined || typeof source[member] === 'function', member)
    }
  }
  const batch = rows.next()
  assert.equal(batch.units, 3)
  const settled = rows.account(batch,
    rows.parse('{"cols":[],"duration":1,"results":[{"rowcount":1},{"rowcount":-2},{"rowcount":1}]}'))
  assert.deepEqual([settled.ok, settled.failed], [2, 1])
  assert.equal(rows.next().units, 2)
  assert.equal(rows.next(), null)
  const first = queries.next()
  assert.equal(first.units, 1)
  assert.equal(queries.account(first, { cols: ['1'], rows: [[1]], rowcount: 1, duration: 0.5 }).ok, 1)
})
