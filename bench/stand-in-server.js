'use strict'

// A stand-in for CrateDB that answers at once, for measuring the client's own cost, over HTTP and over the
// PostgreSQL wire protocol (the second port it prints). It answers
// bulk INSERTs with one {"rowcount":1} per row (counted with a bracket scan, not a JSON parse,
// so the server stays cheap next to the client), SELECTs with one row, everything else with
// rowcount 1. Usage: node bench/stand-in-server.js [port] [--pg-rows-flushed] [--select-rows=N]; prints the ports. With
// --pg-rows-flushed a batch's answer over the PostgreSQL protocol comes as CrateDB 6.4.3 sends it (capture pgwire/15):
// each row's answer flushed on its own, at the capture's pace, instead of the whole answer in one write; over HTTP
// the same batch is answered in one write after the same time (its last row done), so that both protocols wait for
// the same server and only the way the answer comes differs. With
// --select-rows N a SELECT other than SELECT 1 is answered with N rows of a dashboard's shape (a host, a time, three
// figures), as the queries of queries/cpu-dashboard.yml return up to 100 rows. With --pg-rows-flushed, two variants
// for telling the costs apart: --pg-rows-per-write=N flushes N rows' answers a write (N times slower), and
// --pg-whole-when-done writes a batch's pg answer whole when its last row is done, as HTTP's.

const http = require('node:http')
const { RowFlusher, usPerRow, batchMs } = require('../test/helpers/pg-row-answers')

const ROWS_FLUSHED = process.argv.includes('--pg-rows-flushed')
// Variants of --pg-rows-flushed that tell the costs apart (docs/pg-or-http.md): N rows' answers a write, or the whole
// answer in one write when its last row is done.
const PG_ROWS_PER_WRITE = Number((process.argv.find((a) => a.startsWith('--pg-rows-per-write=')) || '=1').split('=')[1])
const PG_WHOLE = process.argv.includes('--pg-whole-when-done')
const flusher = new RowFlusher()

const resultsCache = new Map()
let rowsReceived = 0

function bulkAnswer (rows) {
  let answer = resultsCache.get(rows)
  if (!answer) {
    answer = Buffer.from(`{"cols":[],"duration":0.1,"results":[${new Array(rows).fill('{"rowcount":1}').join(',')}]}`)
    resultsCache.set(rows, answer)
  }
  return answer
}

/** Number of elements of the top-level "bulk_args" array. */
function countBulkRows (body) {
  const start = body.indexOf('"bulk_args":[')
  if (start < 0) return -1
  let depth = 0
  let rows = 0
  let inString = false
  for (let i = start + 13; i < body.length; i++) {
    const c = body[i]
    if (inString) {
      if (c === 0x5c) i++
      else if (c === 0x22) inString = false
    } else if (c === 0x22) inString = true
    else if (c === 0x5b || c === 0x7b) {
      if (depth === 0) rows++
      depth++
    } else if (c === 0x5d || c === 0x7d) {
      if (depth === 0) break
      depth--
    }
  }
  return rows
}

const SELECT_ANSWER = Buffer.from('{"cols":["1"],"rows":[[1]],"rowcount":1,"duration":0.1}')
const SELECT_ROWS = Number((process.argv.find((a) => a.startsWith('--select-rows=')) || '=0').split('=')[1])
const ROWS_ANSWER = Buffer.from(JSON.stringify({
  cols: ['hostname', 'ts', 'usage_user', 'usage_system', 'usage_idle'],
  rows: Array.from({ length: SELECT_ROWS }, (_, i) => [`host_${i}`, 1_700_000_000_000 + i * 10_000, 12.5 + i % 50,
    3.25 + i % 7, 80.125 - i % 30]),
  rowcount: SELECT_ROWS,
  duration: 0.4
}))
const OK_ANSWER = Buffer.from('{"cols":[],"rows":[[]],"rowcount":1,"duration":0.1}')
const EXISTED_ANSWER = Buffer.from('{"cols":[],"rows":[[]],"rowcount":0,"duration":0.1}')

/** A query of a dashboard's mix: not SELECT 1, not the tool's own look at sys tables or at the data's end. */
function isDashboardQuery (body) {
  const head = body.toString('latin1', 0, 300)
  return !/"stmt":"\s*SELECT 1"/.test(head) && !/\bsys\.|max\(ts\)|crate_bench_/i.test(head)
}

const server = http.createServer((req, res) => {
  const chunks = []
  req.on('data', (c) => chunks.push(c))
  req.on('end', () => {
    const body = Buffer.concat(chunks)
    const rows = countBulkRows(body)
    let answer
    if (rows >= 0) {
      rowsReceived += rows
      answer = bulkAnswer(rows)
    } else if (/"stmt":"SELECT count\(\*\)/i.test(body.toString('latin1', 0, 200))) {
      answer = Buffer.from(`{"cols":["count"],"rows":[[${rowsReceived}]],"rowcount":1,"duration":0.1}`)
    } else if (/"stmt":"CREATE TABLE IF NOT EXISTS .{0,40}crate_bench_leases/i.test(body.toString('latin1', 0, 200))) {
      // The tool's leases table is there already, as on a cluster it used before: a table it found just made beside
      // the run's table would make each run wait for leases to be claimed again (workloads/table-lease.js).
      answer = EXISTED_ANSWER
    } else if (/"stmt":"(DROP|CREATE)/i.test(body.toString('latin1', 0, 40))) {
      rowsReceived = 0
      answer = OK_ANSWER
    } else if (/"stmt":"\s*SELECT/i.test(body.toString('latin1', 0, 40))) {
      answer = SELECT_ROWS > 0 && isDashboardQuery(body) ? ROWS_ANSWER : SELECT_ANSWER
    } else {
      answer = OK_ANSWER
    }
    res.writeHead(200, { 'content-type': 'application/json; charset=UTF-8', 'content-length': answer.length })
    // At the capture's pace a batch takes its rows' time over either protocol (the server executes them either way):
    // over HTTP its answer comes in one write when the last row is done, as the pg answer's last row would.
    if (ROWS_FLUSHED && rows > 0) setTimeout(() => res.end(answer), batchMs(rows))
    else res.end(answer)
  })
})

/**
 * The same stand-in over the PostgreSQL wire protocol (--protocol pg): a session for anyone, and every cycle answered
 * at its Sync as CrateDB answers an all-ok batch: ParseComplete when it parsed, BindComplete and INSERT 0 1 per
 * Execute (SELECT 1 for a query). Answers are cut from one buffer, not built per row.
 */
const PG_READY = pgMessage('Z', Buffer.from('I'))
const PG_WELCOME = Buffer.concat([pgMessage('R', Buffer.alloc(4)), PG_READY])
const PG_PARSED = pgMessage('1', Buffer.alloc(0))
const PG_ROW_OK = Buffer.concat([pgMessage('2', Buffer.alloc(0)), pgMessage('C', Buffer.from('INSERT 0 1\0'))])
const PG_SELECT = Buffer.concat([pgMessage('2', Buffer.alloc(0)), pgMessage('n', Buffer.alloc(0)),
  pgMessage('C', Buffer.from('SELECT 1\0'))])
const pgRowsCache = new Map()

function pgMessage (type, body) {
  const head = Buffer.alloc(5)
  head.write(type, 0, 'latin1')
  head.writeInt32BE(body.length + 4, 1)
  return Buffer.concat([head, body])
}

function pgRowsOk (n) {
  let answer = pgRowsCache.get(n)
  if (!answer) {
    answer = Buffer.concat(new Array(n).fill(PG_ROW_OK))
    pgRowsCache.set(n, answer)
  }
  return answer
}

/** A batch's answer at the capture's pace: each row's on its own (or N rows' a write), or whole when done. */
function flushPaced (socket, parsed, rows) {
  if (PG_WHOLE) {
    const whole = Buffer.concat([...parsed, pgRowsOk(rows), PG_READY])
    return setTimeout(() => socket.write(whole), batchMs(rows))
  }
  const paceUs = usPerRow(rows)
  const pieces = []
  for (let row = 0; row < rows; row += PG_ROWS_PER_WRITE) pieces.push(pgRowsOk(Math.min(PG_ROWS_PER_WRITE, rows - row)))
  if (parsed.length > 0) pieces[0] = Buffer.concat([...parsed, pieces[0]])
  pieces.push(PG_READY)
  flusher.add(socket, pieces, paceUs * PG_ROWS_PER_WRITE)
}

const pgServer = require('node:net').createServer((socket) => {
  socket.setNoDelay(true)
  let pending = Buffer.alloc(0)
  let started = false
  let parsed = false
  let executes = 0
  let inserting = false
  const insertNames = new Set()
  socket.on('error', () => {})
  socket.on('data', (chunk) => {
    pending = pending.length ? Buffer.concat([pending, chunk]) : chunk
    let pos = 0
    for (;;) {
      if (!started) {
        if (pending.length - pos < 8) break
        const length = pending.readInt32BE(pos)
        if (pending.length - pos < length) break
        const code = pending.readInt32BE(pos + 4)
        pos += length
        if (code === 80877103) socket.write('N')
        else {
          started = true
          socket.write(PG_WELCOME)
        }
        continue
      }
      if (pending.length - pos < 5) break
      const type = pending[pos]
      const length = pending.readInt32BE(pos + 1)
      if (pending.length - pos < length + 1) break
      if (type === 0x50) { // Parse: name, text
        parsed = true
        const nameEnd = pending.indexOf(0, pos + 5)
        const name = pending.toString('latin1', pos + 5, nameEnd)
        if (/^INSERT/i.test(pending.toString('latin1', nameEnd + 1, nameEnd + 8))) insertNames.add(name)
      } else if (type === 0x42) { // Bind: portal, statement
        const portalEnd = pending.indexOf(0, pos + 5)
        const name = pending.toString('latin1', portalEnd + 1, pending.indexOf(0, portalEnd + 1))
        inserting = insertNames.has(name)
      } else if (type === 0x45) {
        executes++
      } else if (type === 0x53) { // Sync
        const parts = parsed ? [PG_PARSED] : []
        if (inserting && ROWS_FLUSHED && executes > 0) {
          rowsReceived += executes
          flushPaced(socket, parts, executes)
          parsed = false
          executes = 0
          pos += length + 1
          continue
        }
        if (inserting) {
          rowsReceived += executes
          parts.push(pgRowsOk(executes))
        } else {
          parts.push(PG_SELECT)
        }
        parts.push(PG_READY)
        socket.write(parts.length === 1 ? parts[0] : Buffer.concat(parts))
        parsed = false
        executes = 0
      } else if (type === 0x58) {
        socket.end()
      }
      pos += length + 1
    }
    pending = pos < pending.length ? pending.subarray(pos) : Buffer.alloc(0)
  })
})

server.keepAliveTimeout = 60_000
server.listen(Number(process.argv.slice(2).find((a) => /^\d+$/.test(a)) || 0), '127.0.0.1', () => {
  pgServer.listen(0, '127.0.0.1', () => {
    // The HTTP port, then the PostgreSQL protocol's.
    process.stdout.write(`${server.address().port} ${pgServer.address().port}\n`)
  })
})

module.exports = { countBulkRows }
