'use strict'

// `npm run bench -- real`: the pg and HTTP paths on a real CrateDB node (CRATE_BENCH_URL, CRATE_BENCH_PG_URL), as the
// stand-in cannot show them: the node's own pace, its answers a row or two per TCP read. The tool's client CPU per row
// over HTTP and over pg, alternated, beside a bare pg reader's (bench/bare-pg.js --as-it-comes) on the same node and
// table. No target: on one machine the node's work and the client's share the CPUs, and the figures say what the
// client cost there. The bench's own table (crate_bench_real_<time>) is made by its first run and dropped at the end.

const { RUNS, ROW_BY_ROW } = require('./targets')
const { runTool, runBare, median, round3 } = require('./harness')
const { table } = require('../lib/reports/table')
const { CrateClient } = require('../lib/cluster/http-client')

function nodeOf () {
  const { CRATE_BENCH_URL: httpUrl, CRATE_BENCH_PG_URL: pgUrl } = process.env
  if (!httpUrl || !pgUrl) {
    throw new Error('the real-node bench needs CRATE_BENCH_URL (http://host:4200) and CRATE_BENCH_PG_URL ' +
      '(postgres://crate@host:5432) of one node')
  }
  const http = new URL(httpUrl)
  const pg = new URL(pgUrl)
  if (http.hostname !== pg.hostname) throw new Error('CRATE_BENCH_URL and CRATE_BENCH_PG_URL name different hosts')
  return { url: http.origin, protocol: http.protocol.replace(':', ''), host: http.hostname,
    port: http.port || '4200', pgPort: pg.port || '5432', user: decodeURIComponent(http.username) || 'crate',
    password: decodeURIComponent(http.password) }
}

async function measureRealNode () {
  const node = nodeOf()
  const name = `crate_bench_real_${Date.now()}`
  const { rows, batch, inFlight } = ROW_BY_ROW
  const env = { CRATE_HOST: node.host, CRATE_PORT: node.port, CRATE_PG_PORT: node.pgPort }
  const shape = ['--processes', '1', '--concurrent_requests', inFlight, '--batch_size', batch, '--max_rows', rows,
    '--seed', '1', '--monitor_interval', '0', '--table', name, '--shards', '4', '--no-drop_table'].map(String)
  const runs = { http: [], pg: [], bare: [] }
  const tool = async (protocol) => {
    const result = await runTool('appClusterIngest.js', [...shape, '--protocol', protocol], env)
    if (result.rows_ok !== rows) throw new Error(`the tool stored ${result.rows_ok} of ${rows} rows over ${protocol}`)
    runs[protocol].push({ us: result.client.cpu_us_per_row, perSec: result.rows_per_sec, p99: result.latency_ms.p99 })
  }
  try {
    // The first run creates the table; every later one, the bare reader's too, adds to it (the bare reader's rows
    // unknown to the tool's record of its table: --no-drop_table says to add to it all the same).
    await tool('http')
    for (let i = 0; i < RUNS; i++) {
      if (i > 0) await tool('http')
      await tool('pg')
      const counts = await runBare('bare-pg.js', [node.pgPort, rows, batch, inFlight, '--as-it-comes', node.host,
        `doc.${name}`])
      if (counts.rows_ok !== rows) throw new Error(`the bare pg reader stored ${counts.rows_ok} of ${rows} rows`)
      runs.bare.push({ us: round3((counts.send_cpu_s * 1e6) / rows), build: round3((counts.build_cpu_s * 1e6) / rows) })
    }
  } finally {
    const client = new CrateClient({ hosts: [{ protocol: node.protocol, hostname: node.host, port: Number(node.port) }],
      user: node.user, password: node.password, timeoutMs: 60_000 })
    await client.sql(`DROP TABLE IF EXISTS doc.${name}`).catch((error) => {
      process.stderr.write(`bench: could not drop its table doc.${name}: ${error.message}\n`)
    })
    client.close()
  }
  const of = (list, key) => median(list.map((r) => r[key]))
  const m = {
    node: node.url,
    shape: { rows, batch, in_flight: inFlight, processes: 1 },
    http_cpu_us_per_row: of(runs.http, 'us'),
    pg_cpu_us_per_row: of(runs.pg, 'us'),
    bare_pg_send_us_per_row: of(runs.bare, 'us'),
    bare_pg_build_us_per_row: of(runs.bare, 'build'),
    http_rows_per_sec: of(runs.http, 'perSec'),
    pg_rows_per_sec: of(runs.pg, 'perSec'),
    http_p99_ms: of(runs.http, 'p99'),
    pg_p99_ms: of(runs.pg, 'p99'),
    ranges: Object.fromEntries(Object.entries(runs).map(([k, v]) =>
      [k, [Math.min(...v.map((r) => r.us)), Math.max(...v.map((r) => r.us))]]))
  }
  m.pg_of_http = Math.round((m.pg_cpu_us_per_row / m.http_cpu_us_per_row) * 100) / 100
  m.pg_of_bare_pg = Math.round((m.pg_cpu_us_per_row / m.bare_pg_send_us_per_row) * 100) / 100
  return m
}

function realNodeTableOf (m) {
  const t = table([`a real node (${m.node}): ingest, batch ${m.shape.batch}, ${m.shape.in_flight} in flight, ` +
    `${m.shape.rows.toLocaleString('en-US')} rows, 1 process`, 'client CPU µs/row (median, range)', 'rows/s',
    'p99 ms'])
  const range = (r) => `${r[0]} – ${r[1]}`
  const n = (x) => Math.round(x).toLocaleString('en-US')
  t.push(
    ['this tool over HTTP', `${m.http_cpu_us_per_row} (${range(m.ranges.http)})`, n(m.http_rows_per_sec),
      n(m.http_p99_ms)],
    ['this tool over pg (--protocol pg)', `${m.pg_cpu_us_per_row} (${range(m.ranges.pg)})`, n(m.pg_rows_per_sec),
      n(m.pg_p99_ms)],
    ['a bare pg reader, each answer read as it comes (bench/bare-pg.js --as-it-comes; rows built beforehand: ' +
      `${m.bare_pg_build_us_per_row} µs/row more)`, `${m.bare_pg_send_us_per_row} (${range(m.ranges.bare)})`, '-',
    '-'],
    ['pg / HTTP; pg / the bare pg reader', `${m.pg_of_http}x; ${m.pg_of_bare_pg}x`, '-', '-']
  )
  return t
}

module.exports = { measureRealNode, realNodeTableOf }
