'use strict'

const { UsageError } = require('../base/errors')
const { BenchmarkOptions } = require('../cli/benchmark-options')

// One configuration through every part of a shape: the grid's cell (the settings it varied) with every option of the
// grid's args, as a value (cli/benchmark-options.js). The sustained run is an ingest run as the grid's were: the
// same options. The mixed capacity runs the queries with an ingest beside them, whose options are its --ingest_* ones:
// the grid's are renamed so, and an option that ingest cannot take is refused before anything starts (a mixed figure
// of another load would be compared with the grid's as if it were the same one).

/** A grid's dimension (or the ingest's option of the same name) as the ingest beside a query mix takes it. */
const TO_MIXED = {
  batch_size: 'ingest_batch_size',
  concurrent_requests: 'ingest_concurrent_requests',
  processes: 'ingest_processes',
  interval: 'ingest_interval',
  shards: 'shards',
  replicas: 'replicas',
  table: 'table',
  scale: 'scale'
}
// The connection's and the run's own options: the same for the queries and the ingest beside them.
const SHARED = new Set(['timeout', 'protocol', 'pg_insert', 'max_answer_mb', 'insecure', 'monitor_interval',
  'graceful_stop', 'seed'])
// Options of one run, not of the load: each part sets its own (its duration, warm-up, rate, output, table's
// preparation).
const OWN_PER_RUN = new Set(['duration', 'warmup', 'rate', 'stages', 'json', 'report', 'progress', 'no-progress',
  'results_table', 'run_id', 'threshold', 'metrics_port', 'metrics_host', 'ui', 'ui_host', 'max_rows', 'drop_table',
  'no-drop_table', 'prefill', 'start_time', 'queueing_factor'])

/**
 * The ingest's configuration at a cell: the grid's args (BenchmarkOptions) with the cell's settings, the cell's
 * winning where the grid varied one (a grid refuses a varied option in its args: none is given twice).
 */
const ingestAt = (gridArgs, settings) => gridArgs.with(BenchmarkOptions.of(settings))

/** The load's options of an ingest configuration that the ingest beside the queries cannot take: their names. */
const notCarriedToMixed = (ingest) => ingest.names.filter((name) => !TO_MIXED[name] && !SHARED.has(name) &&
  !OWN_PER_RUN.has(name))

/** The options of the mixed capacity's runs that carry an ingest configuration: renamed, shared, or left out. */
const mixedOf = (ingest) => ingest.mapped((name) => TO_MIXED[name] ?? (SHARED.has(name) ? name : null))

/**
 * Refuses a part's own args (`partArgs`, at `key`) that give an option the configuration carries (`carried`) another
 * value: the part runs at the grid's configuration, which it may not change (the same value again says nothing new).
 */
function refuseOverride (partArgs, carried, key) {
  const clash = partArgs.entries.find((o) => carried.has(o.name) && carried.get(o.name) !== o.value)
  if (clash) {
    throw new UsageError(`${key}: --${clash.name} ${clash.value ?? ''} changes the grid's configuration (grid.args, ` +
      `or a setting it varies: ${carried.get(clash.name) ?? 'given'}), which this part runs at: leave it out`)
  }
}

/** A cell's settings as a person reads them on the study's lines: --batch_size 5000 --concurrent_requests 2. */
const settingsText = (settings) => BenchmarkOptions.of(settings).toArgv().join(' ')

module.exports = { ingestAt, notCarriedToMixed, mixedOf, refuseOverride, settingsText, TO_MIXED }
