'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { loadGroups, mainGroup, companionGroup, outcomeOf, preparedByRole,
  setPrepared } = require('../../lib/run/load-groups')

const workload = (name, companion) => ({ name, ...(companion ? { companion } : {}) })

test('a run is its main group, and the companion its options ask for', () => {
  const ingest = workload('ingest')
  const query = workload('analytical', (options) => (options.ingest ? { workload: ingest,
    options: { rate: options.ingest.rate } } : null))
  const alone = loadGroups(query, {})
  assert.deepEqual(alone.map((g) => [g.role, g.workload.name]), [['main', 'analytical']])
  assert.equal(companionGroup(alone), null)
  const mixed = loadGroups(query, { ingest: { rate: 500 } })
  assert.deepEqual(mixed.map((g) => [g.role, g.workload.name, g.options.rate]), [['main', 'analytical', undefined],
    ['companion', 'ingest', 500]])
  assert.equal(mainGroup(mixed).role, 'main')
  assert.equal(companionGroup(mixed).role, 'companion')
  assert.deepEqual(mixed.map((g) => [g.prepared, g.outcome, g.finished]), [[null, null, {}], [null, null, {}]],
    'nothing known before the stages')
})

test('what prepare made travels by role (a fleet steward hands it to the others); an outcome is empty before the load',
  () => {
  const groups = loadGroups(workload('analytical', () => ({ workload: workload('ingest'), options: {} })), {})
  groups[0].prepared = { table: 'doc.cpu' }
  groups[1].prepared = { table: 'doc.cpu', startTime: 7 }
  const byRole = JSON.parse(JSON.stringify(preparedByRole(groups)))
  const others = loadGroups(workload('analytical', () => ({ workload: workload('ingest'), options: {} })), {})
  setPrepared(others, byRole)
  assert.deepEqual(others.map((g) => g.prepared), [{ table: 'doc.cpu' }, { table: 'doc.cpu', startTime: 7 }])
  const empty = outcomeOf(others[0])
  assert.equal(empty.totals.unitsSent, 0)
  assert.deepEqual([empty.workers, empty.incidents, empty.resources], [[], [], []])
  others[0].outcome = { totals: { unitsSent: 5 }, workers: [], incidents: [], resources: [] }
  assert.equal(outcomeOf(others[0]).totals.unitsSent, 5)
})
