'use strict'

// The reference for the query path: the barest loop undici allows, with the same in-flight count against the same
// stand-in. Usage: node bench/bare-undici.js PORT QUERIES IN_FLIGHT [STATEMENT] [RATE]; prints
// { queries, seconds, queries_per_sec, cpu_us_per_query } (CPU over the loop, as the tool's). With RATE, the queries
// go out on a fixed schedule of RATE a second (each at its time, or at once when late), as --rate sends them.

const { Pool } = require('undici')

async function main () {
  const [port, queries, inFlight] = process.argv.slice(2, 5).map(Number)
  const rate = Number(process.argv[6]) || 0
  const pool = new Pool(`http://127.0.0.1:${port}`, { connections: inFlight, pipelining: 1 })
  const body = JSON.stringify({ stmt: process.argv[5] || 'SELECT 1' })
  const headers = { 'content-type': 'application/json' }
  let next = 0
  const cpuAtStart = process.cpuUsage()
  const startedAt = process.hrtime.bigint()
  const startMs = performance.now()
  async function lane () {
    while (next < queries) {
      const due = startMs + (next++ * 1000) / (rate || Infinity)
      const wait = due - performance.now()
      if (rate && wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
      const { body: answer } = await pool.request({ path: '/_sql', method: 'POST', headers, body })
      JSON.parse(await answer.text())
    }
  }
  await Promise.all(Array.from({ length: inFlight }, lane))
  const seconds = Number(process.hrtime.bigint() - startedAt) / 1e9
  const cpu = process.cpuUsage(cpuAtStart)
  await pool.close()
  process.stdout.write(
    `${JSON.stringify({
      queries,
      seconds,
      queries_per_sec: Math.round(queries / seconds),
      cpu_us_per_query: Math.round((cpu.user + cpu.system) / queries)
    })}\n`
  )
}

main()
