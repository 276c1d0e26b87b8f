'use strict'

const { FatalError } = require('../base/errors')
const { connectionFromArgs } = require('../cluster/connection')
const { CrateClient } = require('../cluster/http-client')
const { parseTableName } = require('../data/schema')
const { DEFAULT_FLEET_TABLE } = require('../data/tool-tables')
const { parseRunId } = require('../results/run-identity')
const { readMergedRun } = require('../results/stored-runs')

/**
 * Each run id's rows in a results table, each merged into one result (a run of several load
 * generators is one result). Connection flags as for the benchmarks.
 */
async function readRuns (tableText, runIds, flags, env) {
  const table = parseTableName(tableText, 'results_table')
  const ids = runIds.map(parseRunId)
  const connection = connectionFromArgs(
    {
      host: flags.host,
      port: flags.port,
      user: flags.user,
      ssl: flags.ssl,
      insecure: Boolean(flags.insecure),
      timeout: flags.timeout ?? '60s'
    },
    env
  )
  const client = new CrateClient({ ...connection, maxSockets: 1, retryUnsent: true })
  const runs = []
  try {
    await client.requireOneHost()
    await client.sql(`REFRESH TABLE ${table.sql}`)
    const fleetTable = parseTableName(flags.fleet_table ?? DEFAULT_FLEET_TABLE, 'fleet_table')
    for (const runId of ids) runs.push(await readMergedRun(client, table, runId, { fleetTable }))
  } catch (error) {
    if (error.exitCode) throw error
    throw new FatalError(`cannot read from ${table.display}: ${error.message}`)
  } finally {
    client.close()
  }
  return runs
}

module.exports = { readRuns }
