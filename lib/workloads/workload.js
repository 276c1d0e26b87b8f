'use strict'

/**
 * @typedef {object} Workload A benchmark as a plug-in of the run (lib/workloads/ingest.js, analytical.js). The
 * master's pipeline calls it at each stage; each worker loads it by name (functions cannot cross the IPC channel)
 * and asks it for a RequestSource.
 *
 * What it declares:
 * @property {string} name 'ingest' or 'analytical': the result's workload, the name a worker loads it by
 * @property {string} script the entry script, for --help and errors
 * @property {'rows'|'queries'} unit what one answer counts: rows_ok, queries_ok, rows/s …
 * @property {string} okLabel the report's line for the units acknowledged
 * @property {string} usage @property {Array} examples @property {string} epilogue --help
 * @property {object} options its flags (yargs), beside the common ones of lib/cli/options.js
 * @property {(args: object, common: object) => object} validateOptions its flags checked: exit 2 on bad input
 * @property {(options: object) => string} describeLoad the header's workload line
 * @property {(options: object) => number} countLimit units per process (--max_rows, --max_queries), or
 *   Number.MAX_SAFE_INTEGER when only --duration ends the run
 * @property {string[]} [workerNodeFlags] V8 flags of its worker processes (measured: see each workload)
 * @property {number} [defaultProcesses] its --processes when not given (the number of CPUs otherwise)
 * @property {string[]} [describeExclude] options left out of the result's options (too large, derived)
 * @property {(options: object) => string[]} [labelsOf] what a --threshold may name (queries, tables)
 * @property {(options: object) => object[]} [writtenTables] the tables it writes (never the results table)
 * @property {(input: { client, options, prepared, generatorCount }) => Promise<Map<number, number>|null>}
 *   [countFleetRows] the rows each generator of a fleet wrote since the run's start, counted in the table by their
 *   keys (null: the rows cannot tell)
 * @property {(options: object) => ({ workload: Workload, options: object }|null)} [companion] a workload to run
 *   next to it (the ingest beside a query mix, --ingest_rate)
 *
 * What it does around the load (master):
 * @property {(c: { client, options, log, sqlOrFail }) => Promise<object>} prepare its DDL, once; returns what its
 *   workers and finish need (the tables, the rows' start time), which a fleet's steward hands to the others
 * @property {(c: { client, options, prepared, totals, lostWorkers, log, shouldCount }) => Promise<object>} finish
 *   restores what prepare changed and counts its tables; returns what it adds to the result (the reconciliation)
 *
 * What it sends (worker):
 * @property {(options: object, worker: { workerIndex: number, workerCount: number, bulkEncoding?: string },
 *   prepared: object) => RequestSource} createSource the requests of one worker; bulkEncoding is the transport's
 *   (lib/cluster/transport.js), for bulk bodies (lib/data/bulk-body.js)
 *
 * What it adds to the result and the report:
 * @property {(result: object, totals: object, options: object) => object} [extendResult] its own fields
 * @property {(result: object, fmt: Function) => Array} [summaryLines] lines of the report's summary table
 * @property {(result: object, fmt: Function) => string[]} [warningLines] warnings below the summary
 * @property {(result: object, table: Function, fmt: Function) => string|null} [detailTable] a table of its own
 */

/**
 * @typedef {object} RequestSource What a worker's engine sends (lib/run/engine.js), and how an answer settles into
 * per-unit outcomes, in one call.
 * @property {number} unitsPerRequest rows in a batch, 1 for a query
 * @property {() => ({ body: string|Buffer, units: number, label: string|null }|null)} next the next request, null
 *   when nothing is left
 * @property {(request: object, answer: object) => ({ ok: number, failed: number, inDoubt?: number,
 *   requestFailed: boolean, failures: object[], serverMillis: number|null })} account a 2xx answer, settled into
 *   units acknowledged and failed (grouped by error); what it cannot read fails as a malformed answer
 * @property {(text: string) => object} [parse] the answer's text to what account reads (default JSON.parse)
 * @property {(request: object) => void} [release] the request's buffer handed back
 */

// The members every workload has, and those it may have: test/workloads/workload.test.js holds both workloads to
// them, so an interface change is a change of this file.
const REQUIRED = ['name', 'script', 'unit', 'okLabel', 'usage', 'examples', 'epilogue', 'options', 'validateOptions',
  'describeLoad', 'countLimit', 'prepare', 'finish', 'createSource']
const OPTIONAL = ['workerNodeFlags', 'defaultProcesses', 'describeExclude', 'labelsOf', 'writtenTables', 'companion',
  'countFleetRows', 'extendResult', 'summaryLines', 'warningLines', 'detailTable']
const SOURCE_REQUIRED = ['unitsPerRequest', 'next', 'account']
const SOURCE_OPTIONAL = ['parse', 'release']

/** What a module lacks or has beyond the Workload interface; empty when it is one. */
function workloadProblems (workload, { required = REQUIRED, optional = OPTIONAL } = {}) {
  const missing = required.filter((m) => workload[m] === undefined).map((m) => `missing ${m}`)
  const known = new Set([...required, ...optional])
  const extra = Object.keys(workload).filter((m) => !known.has(m)).map((m) => `not in the interface: ${m}`)
  return [...missing, ...extra]
}

/** The units one request of a workload carries: a batch of --batch_size rows, or one query. */
function unitsPerRequestOf (workload, options) {
  return workload.unit === 'rows' ? options.batchSize || 1 : 1
}

module.exports = { REQUIRED, OPTIONAL, SOURCE_REQUIRED, SOURCE_OPTIONAL, workloadProblems, unitsPerRequestOf }
