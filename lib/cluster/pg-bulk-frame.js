'use strict'

// A bulk request as the HTTP endpoint takes it ({"stmt": "...", "bulk_args": [[...], ...]}, written by a workload)
// framed for the PostgreSQL protocol without parsing it: each row's values are copied byte for byte from the JSON
// into a Bind message (text format: a number, true/false and an object's JSON are their own text; a string loses its
// quotes; null is NULL), followed by an Execute, and the Sync at the end. Parsing 10,000 rows into objects and
// writing them back out cost ~6 µs a row, 16 times the whole HTTP path; this is a copy.

const { serialize } = require('pg-protocol')

const QUOTE = 0x22
const BACKSLASH = 0x5c
const COMMA = 0x2c
const OPEN_ARRAY = 0x5b
const CLOSE_ARRAY = 0x5d
const OPEN_OBJECT = 0x7b
const CLOSE_OBJECT = 0x7d
const EXECUTE = Buffer.from([0x45, 0, 0, 0, 9, 0, 0, 0, 0, 0])
const SYNC = Buffer.from([0x53, 0, 0, 0, 4])
const STMT_KEY = Buffer.from('"stmt"')
const BULK_KEY = Buffer.from('"bulk_args"')

/** The statement of a bulk body, and where its rows start; null when the body is not a bulk request. */
function bulkOf (body) {
  const bulk = valueAfter(body, BULK_KEY)
  const stmt = valueAfter(body, STMT_KEY)
  if (bulk < 0 || stmt < 0 || body[bulk] !== OPEN_ARRAY || body[stmt] !== QUOTE) return null
  const end = stringEnd(body, stmt)
  return { stmt: JSON.parse(body.toString('utf8', stmt, end + 1)), rowsAt: bulk + 1 }
}

/** Where the value of a key starts (past the colon and any space); -1 without the key. */
function valueAfter (body, key) {
  const at = body.indexOf(key)
  if (at < 0) return -1
  const colon = skipSpace(body, at + key.length)
  return body[colon] === 0x3a ? skipSpace(body, colon + 1) : -1
}

/**
 * The Parse of `text` as the statement `name`, then Bind + Execute for every row of the body's bulk_args, then
 * Sync: a batch as lib/data/pg-batch-rows.js writes one. Returns { bytes, rows, parseLength }.
 */
function frameBulk (body, rowsAt, name, text) {
  const statement = Buffer.from(`${name}\0`)
  const parse = serialize.parse({ name, text })
  let out = Buffer.allocUnsafe(Math.max(1024, parse.length + body.length * 2))
  let pos = parse.copy(out, 0)
  let rows = 0
  let at = skipSpace(body, rowsAt)
  while (at < body.length && body[at] !== CLOSE_ARRAY) {
    if (body[at] !== OPEN_ARRAY) throw new Error(`a bulk row is not an array at byte ${at}`)
    const rowEnd = valueEnd(body, at)
    // The row's cells are at most its JSON plus 4 bytes each (there are fewer cells than bytes), and its framing.
    const room = 3 * (rowEnd - at) + statement.length + 32
    if (pos + room + SYNC.length > out.length) {
      const bigger = Buffer.allocUnsafe(Math.max(out.length * 2, pos + room + SYNC.length))
      out.copy(bigger, 0, 0, pos)
      out = bigger
    }
    const start = pos
    out[pos++] = 0x42 // Bind
    pos += 4
    out[pos++] = 0 // the unnamed portal
    pos = copyBytes(statement, 0, statement.length, out, pos)
    pos = out.writeInt16BE(0, pos) // every parameter in text format
    const countAt = pos
    pos += 2
    let cells = 0
    let cell = skipSpace(body, at + 1)
    while (body[cell] !== CLOSE_ARRAY) {
      const end = valueEnd(body, cell)
      pos = writeCell(body, cell, end, out, pos)
      cells++
      cell = skipSpace(body, end)
      if (body[cell] === COMMA) cell = skipSpace(body, cell + 1)
    }
    out.writeInt16BE(cells, countAt)
    pos = out.writeInt16BE(0, pos) // results in text format
    out.writeInt32BE(pos - start - 1, start + 1)
    pos = copyBytes(EXECUTE, 0, EXECUTE.length, out, pos)
    rows++
    at = skipSpace(body, rowEnd)
    if (body[at] === COMMA) at = skipSpace(body, at + 1)
  }
  pos += SYNC.copy(out, pos)
  return { bytes: out.subarray(0, pos), rows, parseLength: parse.length }
}


/** One value as a text-format parameter: its length, then its bytes (NULL: length -1). */
function writeCell (body, start, end, out, pos) {
  const first = body[start]
  if (first === QUOTE) {
    const raw = body.subarray(start + 1, end - 1)
    if (raw.indexOf(BACKSLASH) < 0) {
      pos = out.writeInt32BE(raw.length, pos)
      return copyBytes(body, start + 1, end - 1, out, pos)
    }
    const text = Buffer.from(JSON.parse(body.toString('utf8', start, end)))
    pos = out.writeInt32BE(text.length, pos)
    return pos + text.copy(out, pos)
  }
  if (first === 0x6e) return out.writeInt32BE(-1, pos) // null
  pos = out.writeInt32BE(end - start, pos)
  return copyBytes(body, start, end, out, pos)
}

/** Buffer#copy costs ~60 ns a call whatever the length: most cells (numbers) are a few bytes, copied by hand. */
function copyBytes (from, start, end, to, pos) {
  if (end - start > 24) return pos + from.copy(to, pos, start, end)
  for (let i = start; i < end; i++) to[pos++] = from[i]
  return pos
}

/** Where the JSON value at `start` ends (exclusive). */
function valueEnd (body, start) {
  const first = body[start]
  if (first === QUOTE) return stringEnd(body, start) + 1
  if (first === OPEN_ARRAY || first === OPEN_OBJECT) {
    let depth = 0
    for (let i = start; i < body.length; i++) {
      const c = body[i]
      if (c === QUOTE) i = stringEnd(body, i)
      else if (c === OPEN_ARRAY || c === OPEN_OBJECT) depth++
      else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
        if (--depth === 0) return i + 1
      }
    }
    throw new Error('an unterminated array or object in a bulk row')
  }
  let i = start
  while (i < body.length && body[i] !== COMMA && body[i] !== CLOSE_ARRAY && body[i] !== CLOSE_OBJECT &&
    body[i] > 0x20) i++
  return i
}

/** The index of the quote that closes the string opening at `start`. */
function stringEnd (body, start) {
  for (let i = start + 1; i < body.length; i++) {
    const next = body.indexOf(QUOTE, i)
    if (next < 0) break
    let backslashes = 0
    for (let j = next - 1; j > start && body[j] === BACKSLASH; j--) backslashes++
    if (backslashes % 2 === 0) return next
    i = next
  }
  throw new Error('an unterminated string in a bulk body')
}

function skipSpace (body, i) {
  while (i < body.length && body[i] <= 0x20) i++
  return i
}

module.exports = { bulkOf, frameBulk }
