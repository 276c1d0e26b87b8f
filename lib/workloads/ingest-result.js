'use strict'

const { METRICS_PER_ROW } = require('../data/generators/cpu')
const { MODELS } = require('../data/models')
const { round, perSecond } = require('../base/format')
const { describeReconciliation } = require('../results/reconcile')

// What the ingest workload adds to the result (per table: rows/s and field values/s) and to the report (its summary
// lines, the reconciliation's warning, the per-table table of a model with several tables).

const tablesOf = (options) => MODELS[options.model || 'cpu'].tables(options)

/** Per table and in total: rows/s and field values/s (the TPS of published TSBS results). */
function extendResult (result, totals, options) {
  const specs = tablesOf(options)
  result.model = options.model || 'cpu'
  // A run that never reached its finish (interrupted during set-up) has counted nothing.
  if (result.table_count === undefined) {
    Object.assign(result, { table_count: null, table_count_matches: null, reconciliation: null })
  }
  result.tables = specs.map((spec) => {
    const series = totals.series.get(spec.label)
    const ok = series ? series.ok : 0
    return {
      name: spec.table.display,
      rows_ok: ok,
      rows_failed: series ? series.failed : 0,
      rows_per_sec: perSecond(ok, result.seconds),
      field_values_per_sec: perSecond(ok * spec.fieldsPerRow, result.seconds),
      latency_ms: series ? series.latencySummary() : null
    }
  })
  result.field_values_per_sec = round(result.tables.reduce((sum, t) => sum + t.field_values_per_sec, 0))
  if (result.model === 'cpu') result.metrics_per_sec = round(result.rows_per_sec * METRICS_PER_ROW)
  if (specs[0].payloadBytes) result.payload_mb_per_sec = round((result.rows_per_sec * specs[0].payloadBytes) / 1e6, 3)
  return result
}

function summaryLines (result, fmt) {
  const lines = []
  if (result.metrics_per_sec !== undefined) lines.push(['metrics/s (rows x 10)', fmt(result.metrics_per_sec)])
  else lines.push(['field values/s', fmt(result.field_values_per_sec)])
  if (result.payload_mb_per_sec !== undefined) lines.push(['payload MB/s', fmt(result.payload_mb_per_sec)])
  for (const t of result.tables_not_restored || []) {
    lines.push([`NOT RESTORED: ${t.table}`, `refresh_interval is still this run's; run ${t.statement}`])
  }
  for (const l of result.leases_lost || []) {
    lines.push([`LEASE LOST: ${l.table}`, `at ${l.at}${l.by ? ` to ${l.by}` : ''}: another run may have dropped ` +
      'or written the table meanwhile'])
  }
  if (result.reconciliation) {
    lines.push([
      `rows in ${result.tables.length > 1 ? 'tables' : 'table'} after refresh`,
      describeReconciliation(result.reconciliation, fmt).cell
    ])
  } else if (result.table_count != null) {
    lines.push(['rows in the tables this run created, after refresh', fmt(result.table_count)])
  }
  return lines
}

/** What a person must not miss about the rows in the table. */
function warningLines (result, fmt) {
  const warning = result.reconciliation && describeReconciliation(result.reconciliation, fmt).warning
  return warning ? [warning] : []
}

/** One row per table when the model writes several (devops). */
function detailTable (result, table, fmt) {
  if (!result.tables || result.tables.length < 2) return null
  const t = table(['table', 'rows ok', 'rows failed', 'rows/s', 'field values/s', 'p50 ms', 'p99 ms'])
  for (const r of result.tables) {
    t.push([
      r.name,
      fmt(r.rows_ok),
      fmt(r.rows_failed),
      fmt(r.rows_per_sec),
      fmt(r.field_values_per_sec),
      fmt(r.latency_ms && r.latency_ms.p50),
      fmt(r.latency_ms && r.latency_ms.p99)
    ])
  }
  t.push([
    'total',
    fmt(result.rows_ok),
    fmt(result.rows_failed),
    fmt(result.rows_per_sec),
    fmt(result.field_values_per_sec),
    '',
    ''
  ])
  return t.toString()
}

module.exports = { extendResult, summaryLines, warningLines, detailTable }
