'use strict'

const { MODELS } = require('../data/models')
const { insertSql } = require('../data/schema')
const { BulkBodyPool } = require('../data/bulk-body')
const { parseBulkAnswer, accountBulkAnswer } = require('./bulk-answer')
const { UsageError } = require('../base/errors')

// --prefill ROWS: before the measured load, the table filled to ROWS rows at full speed, with the same model and
// seed scheme, in time before the run's own rows (the run's rows continue after them, so that nothing of the run
// repeats a prefilled row and a fleet's count by key, which starts at the run's start, never counts them). Counted
// apart: never in the run's figures; acknowledged row by row as the run's rows are.

// Requests in flight while filling: enough to keep a node busy, few enough not to queue at the client.
const IN_FLIGHT = 4
// A prefill past this is a typo, not a table: checked before anything is written.
const MAX_PREFILL_ROWS = 10_000_000_000
// Models whose rows a prefill can write ahead of a run's: one table, rows placed by time.
const PREFILLABLE = new Set(['cpu', 'loadtest'])

/** The rows to write so that the table holds `target`: none when it holds that many already. */
function rowsToWrite (target, already) {
  return Math.max(0, target - already)
}

/**
 * Writes `rows` rows of the model into its table from `startMs` on (one generator, one worker: the run's own
 * workers start where the prefill ended), `IN_FLIGHT` bulk requests at a time over the master's client. Resolves
 * with { rows, rows_ok, rows_failed, rows_in_doubt, seconds, end_ms } (end_ms: the time after its last row).
 */
async function prefillTable ({ client, options, startMs, rows, now = Date.now, stopped = () => false }) {
  const model = MODELS[options.model || 'cpu']
  const [spec] = model.tables(options)
  const rowWriter = model.rowWriter(spec, options, { workerIndex: 0, workerCount: 1 }, startMs)
  const bodies = new BulkBodyPool({ stmt: insertSql(spec.table, spec.insertColumns) + (spec.insertSuffix || ''),
    rowWriter, initialBytesPerRow: rowWriter.typicalRowBytes, columns: spec.insertColumns.length })
  const started = now()
  const counts = { rows, rows_ok: 0, rows_failed: 0, rows_in_doubt: 0 }
  let left = rows
  // Ctrl-C, SIGTERM or the end of the study that started the run: no new request; those in flight are answered.
  const lane = async () => {
    while (left > 0 && !stopped()) {
      const size = Math.min(options.batchSize, left)
      left -= size
      const { body, buffer } = bodies.take(size)
      try {
        const outcome = accountBulkAnswer(size, await client.post(body, { parse: parseBulkAnswer }))
        counts.rows_ok += outcome.ok
        counts.rows_failed += outcome.failed
        counts.rows_in_doubt += outcome.inDoubt || 0
      } catch (error) {
        // A request that never left failed whole; one whose answer was lost (sent) may have been written.
        if (error && error.sent === true) counts.rows_in_doubt += size
        else counts.rows_failed += size
      } finally {
        bodies.release(buffer)
      }
    }
  }
  await Promise.all(Array.from({ length: IN_FLIGHT }, lane))
  const steps = Math.ceil(rows / options.scale)
  return { ...counts, stopped: left > 0, rows_not_sent: left, seconds: Math.round(now() - started) / 1000,
    end_ms: startMs + steps * options.intervalMs }
}

/** --prefill: a whole number of rows (0: none), for a model whose rows a prefill can write ahead of the run's. */
function prefillRows (text, model, flag = '--prefill') {
  if (text === undefined) return 0
  if (!/^(0|[1-9][0-9]*)$/.test(String(text).trim()) || !Number.isSafeInteger(Number(text))) {
    throw new UsageError(`${flag} must be a whole number of rows (got '${text}')`)
  }
  if (Number(text) > 0 && !PREFILLABLE.has(model)) {
    throw new UsageError(`${flag} takes the models ${[...PREFILLABLE].join(' and ')}: --model ${model} has ` +
      'rows that a prefill cannot write ahead of the run\'s')
  }
  if (Number(text) > MAX_PREFILL_ROWS) {
    throw new UsageError(`${flag} ${text} is more than the ${MAX_PREFILL_ROWS.toLocaleString('en-US')} rows a ` +
      'prefill may write (about a terabyte of cpu rows): fill a table that large with a run of its own')
  }
  return Number(text)
}

/**
 * --prefill: the table filled to the rows asked before the load, from `startTime` on; the run's own rows start after
 * them. Returns { prefill, startTime } (prefill null when nothing was written).
 */
async function prefillStage ({ client, options, startTime, log, stopped = () => false }) {
  const [{ table }] = MODELS[options.model || 'cpu'].tables(options)
  await client.sql(`REFRESH TABLE ${table.sql}`)
  const already = (await client.sql(`SELECT count(*) FROM ${table.sql}`)).rows[0][0]
  const rows = rowsToWrite(options.prefill, already)
  if (rows === 0) {
    log(`--prefill ${options.prefill}: ${table.display} holds ${already} rows already; nothing to fill`)
    return { prefill: { rows: 0, table_rows_before: already }, startTime }
  }
  log(`prefilling ${table.display} with ${rows} rows (to ${options.prefill}) before the load; not counted in its ` +
    'figures')
  const filled = await prefillTable({ client, options, startMs: Date.parse(startTime), rows, stopped })
  await client.sql(`REFRESH TABLE ${table.sql}`)
  const { end_ms: endMs, ...prefill } = filled
  if (prefill.stopped) log(`the prefill was stopped: ${prefill.rows_not_sent} of its ${rows} rows never sent`)
  log(`prefilled ${table.display}: ${prefill.rows_ok} rows in ${prefill.seconds} s` +
    `${prefill.rows_failed || prefill.rows_in_doubt ? ` (${prefill.rows_failed} failed, ${prefill.rows_in_doubt} in ` +
      'doubt: the table holds fewer than asked)' : ''}`)
  return { prefill: { ...prefill, table_rows_before: already }, startTime: new Date(endMs).toISOString() }
}

module.exports = { prefillTable, prefillStage, prefillRows, rowsToWrite, PREFILLABLE, MAX_PREFILL_ROWS }
