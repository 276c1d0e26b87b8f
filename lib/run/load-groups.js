'use strict'

const { Totals } = require('../results/stats')

/**
 * @typedef {object} LoadGroup One workload of a run and everything the run learns of it, stage by stage.
 * @property {'main'|'companion'} role the benchmark asked for, or the ingest next to a query mix (--ingest_rate)
 * @property {object} workload the workload module (the interface in docs/architecture.md)
 * @property {object} options its parsed options
 * @property {object|null} prepared what the prepare stage made for it (tables, the rows' start time); null before
 * @property {object|null} outcome what its workers produced ({ totals, workers, incidents, resources }); null
 *   until the load stage returned
 * @property {object} finished what the finish added to its result (table counts, the reconciliation)
 */

/** The run's load groups: the main workload's, then the companion its options ask for. */
function loadGroups (workload, options) {
  const main = group('main', workload, options)
  const side = workload.companion ? workload.companion(options) : null
  return side ? [main, group('companion', side.workload, side.options)] : [main]
}

function group (role, workload, options) {
  return { role, workload, options, prepared: null, outcome: null, finished: {} }
}

const mainGroup = (groups) => groups[0]
const companionGroup = (groups) => groups[1] || null

/** What the load produced for a group; an empty outcome when the load never ran. */
function outcomeOf (g) {
  return g.outcome || { totals: new Totals(), workers: [], incidents: [], resources: [] }
}

/** What prepare made, per role ({ main, companion }): the form a fleet's steward hands to the others. */
function preparedByRole (groups) {
  return Object.fromEntries(groups.map((g) => [g.role, g.prepared]))
}

function setPrepared (groups, byRole) {
  for (const g of groups) g.prepared = byRole[g.role] ?? null
}

module.exports = { loadGroups, mainGroup, companionGroup, outcomeOf, preparedByRole, setPrepared }
