'use strict'

// The barest client over the PostgreSQL protocol, as a reference for what a batch's answer costs to receive: bulk
// INSERTs of the same rows, framed before the first request, each answer read once, when the stand-in's pace says its
// last row is due (the socket paused until then), its rows counted from its length. Against a stand-in that flushes
// each row's answer on its own (--pg-rows-flushed) and one that writes it whole when done (--pg-whole-when-done), the
// difference is what receiving the answer a row at a time adds for a client that does nothing else: on loopback the
// kernel's work for each small segment (docs/pg-or-http.md). Usage: node bench/bare-pg.js PG_PORT ROWS BATCH
// IN_FLIGHT; prints { rows, rows_ok, build_cpu_s, send_cpu_s }.

const net = require('node:net')
const { bulkOf, frameBulk } = require('../lib/cluster/pg-bulk-frame')
const { batchMs } = require('../test/helpers/pg-row-answers')
const { insertStatement, bulkBodies } = require('./bare-rows')

// An all-ok batch's answer: ParseComplete (5 bytes), per row BindComplete (5) + CommandComplete 'INSERT 0 1' (16),
// ReadyForQuery (6). The stand-in answers every row so; a longer answer holds an ErrorResponse.
const ROW_ANSWER_BYTES = 21
const FRAME_BYTES = 5 + 6
// Past the last row's time: the stand-in's flushing loop may run a little late.
const READ_MARGIN_MS = 3
const ANSWER_TIMEOUT_MS = 10_000

function startupMessage () {
  const params = Buffer.from('user\0crate\0database\0doc\0\0')
  const message = Buffer.alloc(8 + params.length)
  message.writeInt32BE(message.length, 0)
  message.writeInt32BE(196608, 4) // protocol 3.0
  params.copy(message, 8)
  return message
}

function lane (port, frames, counts) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1')
    socket.setNoDelay(true)
    socket.on('error', reject)
    // An answer shorter than an all-ok one would leave the lane waiting: give up instead.
    socket.setTimeout(ANSWER_TIMEOUT_MS, () => reject(new Error(`no whole answer within ${ANSWER_TIMEOUT_MS} ms`)))
    let started = false
    let batch = null
    let answered = 0
    const send = () => {
      if (counts.next >= frames.length) {
        socket.end()
        return resolve()
      }
      batch = frames[counts.next++]
      answered = 0
      socket.write(batch.bytes)
      socket.pause()
      setTimeout(() => socket.resume(), batchMs(batch.rows) + READ_MARGIN_MS)
    }
    socket.on('data', (chunk) => {
      if (!started) {
        // AuthenticationOk + ReadyForQuery: the stand-in's session for anyone.
        started = true
        return send()
      }
      answered += chunk.length
      const expected = FRAME_BYTES + batch.rows * ROW_ANSWER_BYTES
      if (answered >= expected) {
        // Longer than an all-ok answer: a row was answered with an error.
        if (answered === expected) counts.ok += batch.rows
        send()
      }
    })
    socket.write(startupMessage())
  })
}

async function main () {
  const [port, rows, batch, inFlight] = process.argv.slice(2).map(Number)
  const cpuAtStart = process.cpuUsage()
  const stmt = insertStatement((i) => `$${i}`)
  const frames = bulkBodies(rows, batch, stmt).map((text) => {
    const body = Buffer.from(text)
    return frameBulk(body, bulkOf(body).rowsAt, 'bare', stmt)
  })
  const built = process.cpuUsage(cpuAtStart)
  const counts = { next: 0, ok: 0 }
  await Promise.all(Array.from({ length: inFlight }, () => lane(port, frames, counts)))
  const sent = process.cpuUsage(cpuAtStart)
  const seconds = (cpu) => Math.round(((cpu.user + cpu.system) / 1e6) * 1000) / 1000
  const send = Math.round((seconds(sent) - seconds(built)) * 1000) / 1000
  const figures = { rows, rows_ok: counts.ok, build_cpu_s: seconds(built), send_cpu_s: send }
  process.stdout.write(`${JSON.stringify(figures)}\n`)
}

main().catch((error) => {
  process.stderr.write(`bare-pg.js: ${error.message}\n`)
  process.exit(1)
})
