'use strict'

const { KV_KEY_MIN_BYTES } = require('../data/generators/strings')
const { MODELS, MODEL_NAMES } = require('../data/models')
const { parseTableName, parseReplicas } = require('../data/schema')
const { parseDuration, requirePositiveInteger, parseBooleanText, countLimit } = require('../base/values')
const { UsageError } = require('../base/errors')
const { constants: { MAX_LENGTH: BUFFER_MAX_BYTES } } = require('node:buffer')
const { prefillRows } = require('./prefill')

// The ingest benchmark's own flags and their checks, into the options its master and workers read.

const options = {
  model: {
    type: 'string',
    default: 'cpu',
    choices: MODEL_NAMES,
    group: 'Data:',
    describe: 'data model: cpu (TSBS cpu-only), devops (TSBS, nine tables), loadtest (random strings), kv (key-value)'
  },
  table: {
    type: 'string',
    group: 'Table:',
    describe: 'target table, [schema.]name (default: doc.cpu; doc.loadtest, doc.kv for those models)'
  },
  schema: {
    type: 'string',
    default: 'doc',
    group: 'Table:',
    describe: '--model devops: the schema of its nine tables'
  },
  refresh_interval: {
    type: 'string',
    group: 'Table:',
    describe:
      "refresh_interval of tables this run creates (e.g. 0 to turn refresh off, 5s); reset to the default at the " +
      "end (default: CrateDB's 1s; 0 for --model loadtest)"
  },
  shards: {
    type: 'number',
    default: 12,
    group: 'Table:',
    describe: 'CLUSTERED INTO <shards> SHARDS when the table is created'
  },
  replicas: {
    type: 'string',
    default: '0',
    group: 'Table:',
    describe: "number_of_replicas: a number or a range such as '0-1'"
  },
  drop_table: {
    type: 'boolean',
    group: 'Table:',
    describe: 'drop the table before the run, whoever made it (--no-drop_table: keep it and add rows); by default ' +
      'an existing table is dropped only when this tool made it and nobody wrote to it since'
  },
  batch_size: { type: 'number', default: 10000, group: 'Load:', describe: 'rows per INSERT request (bulk_args)' },
  max_body_mb: {
    type: 'number',
    default: 100,
    group: 'Load:',
    describe:
      "the cluster's http.max_content_length in MB (CrateDB's default: 100): a --batch_size whose requests would be " +
      "larger is refused before the run"
  },
  max_rows: {
    type: 'number',
    group: 'Load:',
    describe: 'rows per process; the last batch is smaller when needed (default: 1,000,000; none with --duration)'
  },
  scale: { type: 'number', default: 4000, group: 'Data:', describe: 'simulated hosts (TSBS scale)' },
  prefill: {
    type: 'string',
    group: 'Data:',
    describe: 'before the measured load, fill the table to ROWS rows at full speed (the same model, in time before ' +
      'the run\'s rows; counted apart, never in the run\'s figures): a table of realistic size (cpu, loadtest)'
  },
  extra_tags_length: {
    type: 'number',
    default: 0,
    group: 'Data:',
    describe: 'add tags tag_0 .. tag_{N-1} to every row'
  },
  start_time: {
    type: 'string',
    default: '2016-01-01T00:00:00Z',
    group: 'Data:',
    describe: 'timestamp of the first interval (ISO 8601)'
  },
  interval: { type: 'string', default: '10s', group: 'Data:', describe: 'time between two rows of the same host' },
  payload_bytes: { type: 'number', default: 512, group: 'Data:', describe: '--model loadtest: characters per row' },
  key_bytes: {
    type: 'number',
    default: 40,
    group: 'Data:',
    describe: `--model kv: key length (at least ${KV_KEY_MIN_BYTES})`
  },
  value_bytes: { type: 'number', default: 16, group: 'Data:', describe: '--model kv: value length' },
  upsert: {
    type: 'boolean',
    default: false,
    group: 'Data:',
    describe: '--model kv: INSERT ... ON CONFLICT (k) DO UPDATE instead of failing on existing keys'
  }
}

function parseRefreshInterval (text) {
  if (text === undefined) return undefined
  return String(text).trim() === '0' ? 0 : parseDuration(text, 'refresh_interval')
}

const MB = 1024 * 1024

/**
 * A batch whose body the cluster would refuse (HTTP 413), or that no buffer can hold, is a usage
 * error before any DDL: the body is estimated from the model's own row writer.
 */
function requireBodyFits (validated, maxBodyMb) {
  const model = MODELS[validated.model]
  const estimate = { ...validated, seed: 0 }
  const rowBytes = Math.max(
    ...model
      .tables(estimate)
      .map(
        (spec) =>
          model.rowWriter(spec, estimate, { workerIndex: 0, workerCount: 1 }, Date.parse(validated.startTime))
            .typicalRowBytes
      )
  )
  const limit = Math.min(maxBodyMb * MB, BUFFER_MAX_BYTES)
  const bodyBytes = validated.batchSize * (rowBytes + 1)
  if (bodyBytes <= limit) return
  const fit = Math.floor(limit / (rowBytes + 1))
  const rows = fit >= 1000 ? Math.floor(fit / 1000) * 1000 : Math.max(1, fit)
  throw new UsageError(
    `--batch_size ${validated.batchSize} makes request bodies of about ${(bodyBytes / MB).toFixed(0)} MB ` +
    `(${Math.round(rowBytes)} bytes a row for --model ${validated.model}), ` +
      `over the ${maxBodyMb} MB the cluster takes (--max_body_mb, its http.max_content_length): use ` +
      `--batch_size ${rows} or less`
  )
}

// Each extra tag is a column of the table: CrateDB refuses a table past mapping.total_fields.limit (1,000 by
// default), and rows that wide would take minutes to validate before the run.
const MAX_EXTRA_TAGS = 900

function extraTagsLength (value) {
  const n = requirePositiveInteger(value, 'extra_tags_length', { allowZero: true })
  if (n > MAX_EXTRA_TAGS) {
    throw new UsageError(
      `--extra_tags_length must be at most ${MAX_EXTRA_TAGS} (got ${n}): every tag is a column, and CrateDB refuses ` +
        'tables of more than mapping.total_fields.limit (1,000 by default)'
    )
  }
  return n
}

function validateOptions (args) {
  const startMs = Date.parse(args.start_time)
  if (!Number.isFinite(startMs)) {
    throw new UsageError(
      `--start_time must be an ISO 8601 time such as 2016-01-01T00:00:00Z (got '${args.start_time}')`
    )
  }
  const model = MODELS[args.model]
  if (args.model === 'devops' && args.table !== undefined) {
    throw new UsageError(
      '--model devops writes nine tables named after their measurements: give their schema with --schema, not --table'
    )
  }
  if (args.model !== 'devops' && args.schema !== 'doc') {
    throw new UsageError('--schema applies to --model devops; give [schema.]table with --table')
  }
  const keyBytes = requirePositiveInteger(args.key_bytes, 'key_bytes')
  if (keyBytes < KV_KEY_MIN_BYTES) {
    throw new UsageError(
      `--key_bytes must be at least ${KV_KEY_MIN_BYTES}, so that every key is unique (got ${keyBytes})`
    )
  }
  const refreshIntervalMs = parseRefreshInterval(args.refresh_interval)
  const validated = {
    model: model.name,
    table: parseTableName(args.table ?? model.defaultTable ?? 'doc.cpu'),
    schema: parseTableName(`${args.schema}.x`, 'schema').schema,
    refreshIntervalMs: refreshIntervalMs === undefined ? (model.defaultRefreshIntervalMs ?? null) : refreshIntervalMs,
    payloadBytes: requirePositiveInteger(args.payload_bytes, 'payload_bytes'),
    keyBytes,
    valueBytes: requirePositiveInteger(args.value_bytes, 'value_bytes'),
    upsert: parseBooleanText(args.upsert, '--upsert'),
    shards: requirePositiveInteger(args.shards, 'shards'),
    replicas: parseReplicas(args.replicas),
    dropTable: args.drop_table === undefined ? 'auto' : parseBooleanText(args.drop_table, '--drop_table'),
    batchSize: requirePositiveInteger(args.batch_size, 'batch_size'),
    maxRows: countLimit(args.max_rows, 'max_rows', args.duration ?? args.stages, 1_000_000),
    scale: requirePositiveInteger(args.scale, 'scale'),
    prefill: prefillRows(args.prefill, args.model ?? 'cpu'),
    extraTagsLength: extraTagsLength(args.extra_tags_length),
    startTime: new Date(startMs).toISOString(),
    intervalMs: parseDuration(args.interval, 'interval')
  }
  requireBodyFits(validated, requirePositiveInteger(args.max_body_mb, 'max_body_mb'))
  return validated
}

module.exports = { options, validateOptions }
