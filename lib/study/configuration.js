'use strict'

const { UsageError } = require('../base/errors')

// One configuration through every part of a shape: the grid's cell (the settings it varied) with every option of the
// grid's args, carried as each part takes it. The sustained run is an ingest run as the grid's were: the same
// options. The mixed capacity runs the queries with an ingest beside them, whose options are its --ingest_* ones: the
// grid's are renamed so, and an option that ingest cannot take is refused before anything starts (a mixed figure of
// another load would be compared with the grid's as if it were the same one).

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

/** `args` as [{ name, value, text }]: `--name value`, `--name=value`, or a flag alone (its value null). */
function optionsOf (args) {
  const out = []
  for (let i = 0; i < args.length; i++) {
    const m = /^--([a-z0-9_-]+)(?:=(.*))?$/s.exec(args[i])
    if (!m) throw new UsageError(`'${args[i]}' is no option (options start with --)`)
    if (m[2] !== undefined) {
      out.push({ name: m[1], value: m[2], text: [args[i]] })
    } else if (i + 1 < args.length && !args[i + 1].startsWith('--')) {
      out.push({ name: m[1], value: args[i + 1], text: [args[i], args[i + 1]] })
      i++
    } else {
      out.push({ name: m[1], value: null, text: [args[i]] })
    }
  }
  return out
}

/** A cell's settings as options: { batch_size: 5000 } -> ['--batch_size', '5000']. */
const settingsArgs = (settings) => Object.entries(settings || {}).flatMap(([k, v]) => [`--${k}`, String(v)])

/**
 * The ingest options of the shape's configuration: the grid's args with the cell's settings, the cell's winning where
 * the grid varied one (a grid refuses a varied option in its args: none is given twice).
 */
function ingestArgs (gridArgs, settings) {
  const varied = new Set(Object.keys(settings || {}))
  return [...optionsOf(gridArgs).filter((o) => !varied.has(o.name)).flatMap((o) => o.text), ...settingsArgs(settings)]
}

/** The load's options of `ingest` (ingestArgs) that the ingest beside the queries cannot take: their names. */
function notCarriedToMixed (ingest) {
  return optionsOf(ingest).map((o) => o.name)
    .filter((name) => !TO_MIXED[name] && !SHARED.has(name) && !OWN_PER_RUN.has(name))
}

/** The options of the mixed capacity's runs that carry `ingest` (ingestArgs): renamed, shared, or left to the part. */
function mixedArgs (ingest) {
  return optionsOf(ingest).flatMap((o) => {
    if (TO_MIXED[o.name]) return [`--${TO_MIXED[o.name]}`, ...(o.value === null ? [] : [o.value])]
    if (SHARED.has(o.name)) return o.text
    return []
  })
}

/**
 * Refuses `partArgs` (a part's own args:, at `key`) that give an option the configuration carries (`carried`) another
 * value: the part runs at the grid's configuration, which it may not change (the same value again says nothing new).
 */
function refuseOverride (partArgs, carried, key) {
  const values = new Map(optionsOf(carried).map((o) => [o.name, o.value]))
  const clash = optionsOf(partArgs).find((o) => values.has(o.name) && values.get(o.name) !== o.value)
  if (clash) {
    throw new UsageError(`${key}: --${clash.name} ${clash.value ?? ''} changes the grid's configuration (grid.args, ` +
      `or a setting it varies: ${values.get(clash.name) ?? 'given'}), which this part runs at: leave it out`)
  }
}

/** `partArgs` without the options `carried` gives already (the same value: refuseOverride refused any other). */
function withoutCarried (partArgs, carried) {
  const names = new Set(optionsOf(carried).map((o) => o.name))
  return optionsOf(partArgs).filter((o) => !names.has(o.name)).flatMap((o) => o.text)
}

module.exports = { optionsOf, settingsArgs, ingestArgs, notCarriedToMixed, mixedArgs, refuseOverride, withoutCarried,
  TO_MIXED }
