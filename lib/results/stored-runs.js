'use strict'

const { FatalError, PartialError } = require('../base/errors')
const { visible } = require('../base/format')
const { parseTableName } = require('../data/schema')
const { readFleetRun } = require('../fleet/coordinator')
const { mergeResults } = require('./merge')
const { keepLateApart } = require('./late-results')
const { resultProblem, unitOfWorkload } = require('./result')
const { COLUMNS_SQL, resultColumnOf } = require('./store')
const { parseThreshold, evaluateThresholds } = require('./thresholds')

// The read side of the results table (lib/results/store.js writes it): one run's rows merged into one result, with its
// fleet's rows when its generators were a fleet.

/**
 * One run's rows of a results table (refreshed by the caller), merged into one result: with its fleet's rows when
 * its generators were a fleet, and its thresholds judged again on the merged figures. Returns { runId,
 * loadGenerators, result }.
 */
async function readMergedRun (client, table, runId, { fleetTable = null } = {}) {
  const column = await resultColumn(client, table)
  const select = `SELECT ${column} FROM ${table.sql} WHERE run_id = ? ORDER BY started_at`
  const rows = (await client.sql(select, [runId])).rows
  if (rows.length === 0) {
    const unreconciled = fleetTable && (await unreconciledFleet(client, fleetTable, runId))
    if (unreconciled) throw new PartialError(unreconciled)
    throw new FatalError(`${table.display} has no row with run_id ${runId}`)
  }
  const results = rows.map(([text]) => JSON.parse(text))
  const problem = results.map(resultProblem).find(Boolean)
  if (problem) {
    const message = `${table.display} holds a row of run ${runId} that is not a result: ${problem}`
    throw new FatalError(message)
  }
  const fleet = await fleetOf(client, results[0], runId)
  // A generator the finisher judged dead that stored its result after all (it was paused past the death rule): kept
  // apart (lib/results/late-results.js).
  const reconciled = (fleet && fleet.reconciled && fleet.reconciled.detail) || {}
  const judgedDead = new Set(reconciled.dead || [])
  const late = results.filter((r) => judgedDead.has(generatorOf(r)))
  const onTime = results.filter((r) => !judgedDead.has(generatorOf(r)))
  const merged = mergeResults(onTime.length > 0 ? onTime : results, { fleet })
  if (late.length > 0 && onTime.length > 0) {
    keepLateApart(merged, late, reconciled.generators, unitOfWorkload(merged.workload), generatorOf)
  }
  merged.thresholds = rejudgedThresholds(results[0], merged)
  return { runId, loadGenerators: fleet ? fleet.generators.length : rows.length, result: merged }
}

const generatorOf = (result) => (result.options && result.options.generator ? result.options.generator.index : 0)

/** The column of a results table that holds the results: `result_json`, or `result` in tables of earlier versions. */
async function resultColumn (client, table) {
  const answer = await client.sql(COLUMNS_SQL, [table.schema, table.table])
  const column = resultColumnOf(answer.rows.map(([name]) => name))
  if (!column) {
    const message = `${table.display} is not a results table of this tool: it has no result_json column`
    throw new FatalError(message)
  }
  return column
}

/** The fleet table's rows of a run whose generators were a fleet (their options name the table); null otherwise. */
async function fleetOf (client, result, runId) {
  const named = result.options && result.options.fleet && result.options.fleet.table
  if (!named || !named.display) return null
  try {
    return await readFleetRun(client, parseTableName(named.display, 'fleet_table'), runId)
  } catch {
    return null
  }
}

/**
 * A run with no result but generators in the fleet table: every generator died before it stored its result, so
 * nobody reconciled the fleet. Says what the fleet table knows of them; null when the run is not there either.
 */
async function unreconciledFleet (client, fleetTable, runId) {
  let fleet
  try {
    fleet = await readFleetRun(client, fleetTable, runId)
  } catch {
    return null
  }
  if (fleet.generators.length === 0) return null
  const known = fleet.generators.map((g) => {
    const ok = g.detail.counts ? g.detail.counts.ok : 0
    return `generator ${g.generator + 1}${g.host ? ` on ${visible(g.host)}` : ''} ${g.state}, ${ok} acknowledged ` +
      'by its last heartbeat'
  })
  return `run ${runId} was not reconciled and has no result: every generator of its fleet died before storing one ` +
    `(${fleetTable.display}: ${known.join('; ')}); the table's rows of this run are unaccounted for`
}

/** The run's --threshold checks, judged again on the merged figures: each generator judged only its own. */
function rejudgedThresholds (result, merged) {
  const texts = (result.thresholds || []).map((t) => t.threshold)
  return evaluateThresholds(texts.map(parseThreshold), merged, unitOfWorkload(merged.workload))
}

module.exports = { readMergedRun }
