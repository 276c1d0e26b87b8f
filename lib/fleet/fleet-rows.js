'use strict'

// The fleet table's rows as the generators and the merged report read them: each row's state, host, time and detail.

const S = require('./statements')

/** When a row was last written, on the server's clock: its write time, or the report time its writer put in it. */
function lastHeardOf (row) {
  return Math.max(Number(row.at) || 0, row.detail.reported_at_server_ms || 0)
}

/** Rows of runRowsSql as objects, their detail parsed. */
function rowsOf (answer) {
  return answer.rows.map(([generator, state, host, at, detail]) => ({ generator, state, host, at,
    detail: parseDetail(detail) }))
}

function parseDetail (text) {
  if (!text) return {}
  try {
    return JSON.parse(text)
  } catch {
    return {}
  }
}

/** The fleet's rows of one run, for the merged report: its generators, its start, its reconciliation. */
async function readFleetRun (client, table, runId) {
  await client.sql(`REFRESH TABLE ${table.sql}`)
  const rows = rowsOf(await client.sql(S.runRowsSql(table), [runId]))
  return {
    generators: rows.filter((r) => r.generator >= 0),
    prepare: rows.find((r) => r.generator === S.PREPARE_ROW) || null,
    start: rows.find((r) => r.generator === S.START_ROW) || null,
    reconciled: rows.find((r) => r.generator === S.RECONCILED_ROW) || null
  }
}

module.exports = { lastHeardOf, rowsOf, parseDetail, readFleetRun }
