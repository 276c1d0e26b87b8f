'use strict'

// npm run bench: the client's CPU cost per row (and per query, once the analytical benchmark
// exists) against a stand-in server that answers at once. Prints a table and a JSON line.

const path = require('node:path')
const { spawn } = require('node:child_process')
const os = require('node:os')
const Table = require('cli-table3')

const ROOT = path.join(__dirname, '..')
const TARGET_CPU_US_PER_ROW = 1.0
const TARGET_RSS_MB = 150
const TARGET_QUERIES_PER_SEC = 5000

function startStandIn () {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(__dirname, 'stand-in-server.js')], { stdio: ['ignore', 'pipe', 'inherit'] })
    child.stdout.once('data', (data) => resolve({ child, port: Number(String(data).trim()) }))
    child.once('error', reject)
  })
}

function runApp (script, args, port) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, script), ...args, '--json'], {
      env: { PATH: process.env.PATH, CRATE_HOST: '127.0.0.1', CRATE_PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe']
    })
    let out = ''
    let err = ''
    child.stdout.on('data', (c) => { out += c })
    child.stderr.on('data', (c) => { err += c })
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`${script} exited ${code}\n${err}`))))
  })
}

async function main () {
  const { child: server, port } = await startStandIn()
  const rows = []
  try {
    for (const [batchSize, maxRows] of [[1000, 1_000_000], [10000, 3_000_000]]) {
      const r = await runApp('appClusterIngest.js', ['--processes', '1', '--concurrent_requests', '20', '--batch_size', String(batchSize), '--max_rows', String(maxRows), '--seed', '1'], port)
      rows.push({
        workload: 'ingest',
        setting: `batch ${batchSize}, 20 in flight, 1 process`,
        units: r.rows_ok,
        per_sec: r.rows_per_sec,
        cpu_us: r.client.cpu_us_per_row,
        rss_mb: r.client.max_rss_mb_per_process,
        target: batchSize === 10000 ? `<= ${TARGET_CPU_US_PER_ROW} µs/row, <= ${TARGET_RSS_MB} MB` : '-',
        met: batchSize === 10000 ? r.client.cpu_us_per_row <= TARGET_CPU_US_PER_ROW && r.client.max_rss_mb_per_process <= TARGET_RSS_MB : null
      })
    }
    const q = await runApp('appClusterAnalytical.js', ['--processes', '1', '--concurrent_requests', '20', '--queries_config', path.join(ROOT, 'queries', 'select1.yml'), '--max_queries', '50000', '--seed', '1'], port)
    rows.push({
      workload: 'analytical',
      setting: 'select1.yml, 20 in flight, 1 process',
      units: q.queries_ok,
      per_sec: q.queries_per_sec,
      cpu_us: q.client.cpu_us_per_query,
      rss_mb: q.client.max_rss_mb_per_process,
      target: `>= ${TARGET_QUERIES_PER_SEC} queries/s`,
      met: q.queries_per_sec >= TARGET_QUERIES_PER_SEC
    })
  } finally {
    server.kill()
  }
  const table = new Table({ head: ['workload', 'setting', 'units ok', 'units/s per process', 'client CPU µs/unit', 'peak RSS MB', 'target', 'met'] })
  for (const r of rows) table.push([r.workload, r.setting, r.units.toLocaleString('en-US'), r.per_sec.toLocaleString('en-US'), r.cpu_us, r.rss_mb, r.target, r.met === null ? '-' : r.met ? 'yes' : 'NO'])
  process.stderr.write(`machine: ${os.cpus()[0].model}, ${os.availableParallelism()} CPUs, node ${process.version}\n`)
  process.stderr.write(`${table.toString()}\n`)
  process.stdout.write(`${JSON.stringify({ machine: { cpu: os.cpus()[0].model, cpus: os.availableParallelism(), node: process.version }, results: rows })}\n`)
  if (rows.some((r) => r.met === false)) process.exitCode = 1
}

main().catch((error) => {
  process.stderr.write(`bench: error: ${error.message}\n`)
  process.exitCode = 1
})
