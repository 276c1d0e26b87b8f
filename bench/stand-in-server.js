'use strict'

// A stand-in for CrateDB that answers at once, for measuring the client's own cost. It answers
// bulk INSERTs with one {"rowcount":1} per row (counted with a bracket scan, not a JSON parse,
// so the server stays cheap next to the client), SELECTs with one row, everything else with
// rowcount 1. Usage: node bench/stand-in-server.js [port]; prints the port on stdout.

const http = require('node:http')

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
const OK_ANSWER = Buffer.from('{"cols":[],"rows":[[]],"rowcount":1,"duration":0.1}')

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
    } else if (/"stmt":"(DROP|CREATE)/i.test(body.toString('latin1', 0, 40))) {
      rowsReceived = 0
      answer = OK_ANSWER
    } else if (/"stmt":"\s*SELECT/i.test(body.toString('latin1', 0, 40))) {
      answer = SELECT_ANSWER
    } else {
      answer = OK_ANSWER
    }
    res.writeHead(200, { 'content-type': 'application/json; charset=UTF-8', 'content-length': answer.length })
    res.end(answer)
  })
})

server.keepAliveTimeout = 60_000
server.listen(Number(process.argv[2] || 0), '127.0.0.1', () => {
  process.stdout.write(`${server.address().port}\n`)
})

module.exports = { countBulkRows }
