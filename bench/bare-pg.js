'use strict'

// The barest client over the PostgreSQL protocol, as a reference for what a batch's answer costs to receive: bulk
// INSERTs of the same rows, framed before the first request, each answer read once, when the stand-in's pace says its
// last row is due (the socket paused until then), its rows counted from its length. Against a stand-in that flushes
// each row's answer on its own (--pg-rows-flushed) and one that writes it whole when done (--pg-whole-when-done), the
// difference is what receiving the answer a row at a time adds for a client that does nothing else: on loopback the
// kernel's work for each small segment (docs/pg-or-http.md). Against a real node (`--as-it-comes HOST TABLE`), whose
// pace no one knows beforehand, every answer is read as it arrives and walked message by message to its
// ReadyForQuery, each CommandComplete counted: the least a client can do with an answer it must wait for. Usage:
// node bench/bare-pg.js PG_PORT ROWS BATCH IN_FLIGHT [--as-it-comes HOST TABLE]; prints
// { rows, rows_ok, build_cpu_s, send_cpu_s }.

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

/** A real node's answer read as it arrives, message by message: each CommandComplete counted, done at ReadyForQuery. */
function laneAsItComes (host, port, frames, counts) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, host)
    socket.setNoDelay(true)
    socket.on('error', reject)
    socket.setTimeout(ANSWER_TIMEOUT_MS, () => reject(new Error(`no whole answer within ${ANSWER_TIMEOUT_MS} ms`)))
    let started = false
    let pending = Buffer.alloc(0)
    let completed = 0
    const send = () => {
      if (counts.next >= frames.length) {
        socket.end()
        return resolve()
      }
      completed = 0
      socket.write(frames[counts.next++].bytes)
    }
    socket.on('data', (chunk) => {
      pending = pending.length ? Buffer.concat([pending, chunk]) : chunk
      let at = 0
      while (pending.length - at >= 5) {
        const length = pending.readInt32BE(at + 1)
        if (pending.length - at < 1 + length) break
        const type = pending[at]
        if (type === 0x45) {
          return reject(new Error(`the node answered an error: ${pending.subarray(at + 5, at + 1 + length)}`))
        }
        if (type === 0x43) completed++
        if (type === 0x5a) {
          if (started) counts.ok += completed
          started = true
          at += 1 + length
          pending = pending.subarray(at)
          at = 0
          send()
          continue
        }
        at += 1 + length
      }
      pending = pending.subarray(at)
    })
    socket.write(startupMessage())
  })
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
  const [port, rows, batch, inFlight] = process.argv.slice(2, 6).map(Number)
  const [mode, host, table] = process.argv.slice(6)
  const asItComes = mode === '--as-it-comes'
  const cpuAtStart = process.cpuUsage()
  const stmt = insertStatement((i) => `$${i}`, asItComes ? table : undefined)
  const frames = bulkBodies(rows, batch, stmt).map((text) => {
    const body = Buffer.from(text)
    return frameBulk(body, bulkOf(body).rowsAt, 'bare', stmt)
  })
  const built = process.cpuUsage(cpuAtStart)
  const counts = { next: 0, ok: 0 }
  await Promise.all(Array.from({ length: inFlight }, () => asItComes
    ? laneAsItComes(host, port, frames, counts)
    : lane(port, frames, counts)))
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
