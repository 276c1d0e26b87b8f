'use strict'

// The reference for ingest: the design limit of a client that sends the same batches, written as barely as undici
// allows. One process, an undici Pool with the same in-flight count, bulk INSERTs of the same model and batch size,
// their bodies built before the first request (distinct rows, as the tool's, so that the stand-in stores what a
// table would), every answer parsed and its per-row results counted. Usage:
// node bench/bare-ingest.js PORT ROWS BATCH IN_FLIGHT; prints { rows, rows_ok, build_cpu_s, send_cpu_s }. The bench
// measures its whole process (start-up and exit included) from outside, as it measures the tool's process tree.

const { Pool } = require('undici')

const USAGE = ['usage_user', 'usage_system', 'usage_idle', 'usage_nice', 'usage_iowait', 'usage_irq',
  'usage_softirq', 'usage_steal', 'usage_guest', 'usage_guest_nice']
const STMT = `INSERT INTO doc.cpu ("tags", "ts", ${USAGE.map((c) => `"${c}"`).join(', ')}) ` +
  `VALUES (${['?', '?', ...USAGE.map(() => '?')].join(', ')})`
const HOSTS = 4000

function hostTags (h) {
  return {
    hostname: `host_${h}`,
    region: 'eu-central-1',
    datacenter: 'eu-central-1a',
    rack: String(h % 100),
    os: 'Ubuntu16.04LTS',
    arch: 'x64',
    team: 'LON',
    service: String(h % 20),
    service_version: String(h % 2),
    service_environment: 'production'
  }
}

function buildBodies (rows, batch) {
  const tags = Array.from({ length: HOSTS }, (_, h) => hostTags(h))
  const bodies = []
  const start = Date.UTC(2026, 0, 1)
  for (let first = 0; first < rows; first += batch) {
    const args = []
    for (let i = first; i < Math.min(rows, first + batch); i++) {
      const row = [tags[i % HOSTS], start + Math.floor(i / HOSTS) * 10_000]
      for (let u = 0; u < USAGE.length; u++) row.push(Math.floor(Math.random() * 100))
      args.push(row)
    }
    bodies.push(JSON.stringify({ stmt: STMT, bulk_args: args }))
  }
  return bodies
}

async function main () {
  const [port, rows, batch, inFlight] = process.argv.slice(2).map(Number)
  const cpuAtStart = process.cpuUsage()
  const bodies = buildBodies(rows, batch)
  const built = process.cpuUsage(cpuAtStart)
  const pool = new Pool(`http://127.0.0.1:${port}`, { connections: inFlight, pipelining: 1 })
  const headers = { 'content-type': 'application/json' }
  let next = 0
  let ok = 0
  async function lane () {
    while (next < bodies.length) {
      const body = bodies[next++]
      const { body: answer } = await pool.request({ path: '/_sql', method: 'POST', headers, body })
      for (const result of JSON.parse(await answer.text()).results) if (result.rowcount === 1) ok++
    }
  }
  await Promise.all(Array.from({ length: inFlight }, lane))
  const sent = process.cpuUsage(cpuAtStart)
  await pool.close()
  const seconds = (cpu) => Math.round(((cpu.user + cpu.system) / 1e6) * 1000) / 1000
  const send = Math.round((seconds(sent) - seconds(built)) * 1000) / 1000
  process.stdout.write(`${JSON.stringify({ rows, rows_ok: ok, build_cpu_s: seconds(built), send_cpu_s: send })}\n`)
}

main()
