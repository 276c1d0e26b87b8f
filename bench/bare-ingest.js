'use strict'

// The reference for ingest: the design limit of a client that sends the same batches, written as barely as undici
// allows. One process, an undici Pool with the same in-flight count, bulk INSERTs of the same model and batch size,
// their bodies built before the first request (distinct rows, as the tool's, so that the stand-in stores what a
// table would), every answer parsed and its per-row results counted. Usage:
// node bench/bare-ingest.js PORT ROWS BATCH IN_FLIGHT; prints { rows, rows_ok, build_cpu_s, send_cpu_s }. The bench
// measures its whole process (start-up and exit included) from outside, as it measures the tool's process tree.

const { Pool } = require('undici')
const { insertStatement, bulkBodies } = require('./bare-rows')

async function main () {
  const [port, rows, batch, inFlight] = process.argv.slice(2).map(Number)
  const cpuAtStart = process.cpuUsage()
  const bodies = bulkBodies(rows, batch, insertStatement(() => '?'))
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
