'use strict'

// The PostgreSQL path against the HTTP path on one stand-in that speaks both, and what receiving a batch's answer a
// row at a time adds for the tool beside a bare pg reader.

const path = require('node:path')
const { RUNS, ROW_BY_ROW, TARGET_PG_OF_HTTP, TARGET_PG_ROWS_FLUSHED_OF_HTTP } = require('./targets')
const { ROOT, runApp, withStandIn, runBare, median, inTurn, round3 } = require('./harness')

/**
 * The same ingest and query runs over HTTP and over the PostgreSQL protocol, alternately, on one stand-in that
 * speaks both: the client's CPU per row and per query (the load's, master and workers) of each path.
 */
async function measurePgPath () {
  const ingestArgs = ['--processes', '1', '--concurrent_requests', '20', '--seed', '1', '--monitor_interval', '0',
    '--batch_size', '10000', '--max_rows', '1000000']
  const queryArgs = ['--processes', '1', '--concurrent_requests', '20', '--seed', '1', '--monitor_interval', '0',
    '--queries_config', path.join(ROOT, 'queries', 'select1.yml'), '--max_queries', '50000']
  const runs = { ingest: { http: [], pg: [] }, query: { http: [], pg: [] } }
  for (let i = 0; i < RUNS; i++) {
    for (const protocol of ['http', 'pg']) {
      const flag = ['--protocol', protocol]
      const ingest = await withStandIn((port, pgPort) => runApp('appClusterIngest.js', [...ingestArgs, ...flag], port,
        pgPort))
      runs.ingest[protocol].push(ingest.client.cpu_us_per_row)
      const query = await withStandIn((port, pgPort) => runApp('appClusterAnalytical.js', [...queryArgs, ...flag],
        port, pgPort))
      runs.query[protocol].push(query.client.cpu_us_per_query)
    }
  }
  const m = {
    http_cpu_us_per_row: median(runs.ingest.http),
    pg_cpu_us_per_row: median(runs.ingest.pg),
    http_cpu_us_per_query: median(runs.query.http),
    pg_cpu_us_per_query: median(runs.query.pg)
  }
  m.pg_of_http_per_row = Math.round((m.pg_cpu_us_per_row / m.http_cpu_us_per_row) * 100) / 100
  m.pg_of_http_per_query = Math.round((m.pg_cpu_us_per_query / m.http_cpu_us_per_query) * 100) / 100
  // The shape, against a stand-in that answers at once in one write, and one that takes the capture's time
  // for a batch: over pg each row's answer flushed on its own, or (to tell the costs apart) the whole answer when its
  // last row is done; over HTTP the answer in one write after the same time, as a real server answers it.
  const shape = ['--processes', '1', '--concurrent_requests', ROW_BY_ROW.inFlight, '--seed', '1', '--monitor_interval',
    '0', '--batch_size', ROW_BY_ROW.batch, '--max_rows', ROW_BY_ROW.rows].map(String)
  const answers = [['one_write', {}], ['rows_flushed', { rowsFlushed: true }],
    ['whole_when_done', { rowsFlushed: true, wholeWhenDone: true }]]
  const shaped = Object.fromEntries(answers.map(([answer]) => [answer, { http: [], pg: [] }]))
  for (let i = 0; i < RUNS; i++) {
    for (const [answer, standIn] of answers) {
      // HTTP is answered alike in both paced modes: measured once, in the row-by-row one.
      for (const protocol of answer === 'whole_when_done' ? ['pg'] : ['http', 'pg']) {
        const run = await withStandIn((port, pgPort) => runApp('appClusterIngest.js', [...shape, '--protocol',
          protocol], port, pgPort), standIn)
        shaped[answer][protocol].push(run.client.cpu_us_per_row)
      }
    }
  }
  shaped.whole_when_done.http = shaped.rows_flushed.http
  for (const [answer] of answers) {
    m[`${answer}_http_cpu_us_per_row`] = median(shaped[answer].http)
    m[`${answer}_pg_cpu_us_per_row`] = median(shaped[answer].pg)
    m[`${answer}_pg_of_http`] = Math.round((median(shaped[answer].pg) / median(shaped[answer].http)) * 100) / 100
  }
  Object.assign(m, await measureBarePg(answers))
  // What receiving the answer a row at a time adds for the tool, beside what it adds for the bare reader.
  m.tool_pg_row_by_row_us_per_row = round3(m.rows_flushed_pg_cpu_us_per_row - m.whole_when_done_pg_cpu_us_per_row)
  m.met = m.pg_of_http_per_row <= TARGET_PG_OF_HTTP && m.rows_flushed_pg_of_http <= TARGET_PG_ROWS_FLUSHED_OF_HTTP
  return m
}

/**
 * The bare pg reader (bench/bare-pg.js: each batch's answer read once, when it is due) over the shape, against
 * a stand-in that flushes each row's answer on its own and one that writes it whole when done, in turns: what
 * receiving an answer a row at a time adds for a client that does nothing else, beside what it adds for the tool.
 */
async function measureBarePg (answers) {
  const { rows, batch, inFlight } = ROW_BY_ROW
  const bare = { rows_flushed: [], whole_when_done: [] }
  const modes = answers.filter(([mode]) => mode in bare)
  for (let i = 0; i < RUNS; i++) {
    await inTurn(i, modes.map(([mode, standIn]) => async () => {
      const counts = await withStandIn((port, pgPort) => runBare('bare-pg.js', [pgPort, rows, batch, inFlight]),
        standIn)
      if (counts.rows_ok !== rows) throw new Error(`the bare pg reader stored ${counts.rows_ok} of ${rows} rows`)
      bare[mode].push(round3((counts.send_cpu_s * 1e6) / rows))
    }))
  }
  const figures = {
    bare_pg_rows_flushed_us_per_row: median(bare.rows_flushed),
    bare_pg_whole_when_done_us_per_row: median(bare.whole_when_done)
  }
  figures.bare_pg_row_by_row_us_per_row = round3(figures.bare_pg_rows_flushed_us_per_row -
    figures.bare_pg_whole_when_done_us_per_row)
  return figures
}


module.exports = { measurePgPath }
