'use strict'

// A batch's answer over the PostgreSQL protocol as CrateDB 6.4.3 sends it (capture pgwire/15): each row's
// BindComplete + CommandComplete flushed on its own as the row is executed, at the pace the capture shows for a batch
// of that size, the ParseComplete with the first row, the ReadyForQuery last. What a stand-in that answers in one
// write hides: a client that wakes up for every read pays for each. Used by the test double's pgwire front and by
// the bench's stand-in.

const fs = require('node:fs')
const path = require('node:path')
const { performance } = require('node:perf_hooks')

const CAPTURE = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'fixtures', 'pgwire',
  '15-batch-answer-chunking.json'), 'utf8'))

// From the first read to the last, per row: 21 µs for 1,000 rows, 13 µs for 5,000, 4.8 µs for 20,000.
const PACES = CAPTURE.batches.map((b) => ({ rows: b.rows, usPerRow: ((b.last_ms - b.first_ms) * 1000) / b.rows }))
  .sort((a, b) => a.rows - b.rows)

/** The capture's pace for a batch of `rows`: interpolated on the logarithm of the rows, the ends held. */
function usPerRow (rows) {
  if (rows <= PACES[0].rows) return PACES[0].usPerRow
  for (let i = 1; i < PACES.length; i++) {
    const [low, high] = [PACES[i - 1], PACES[i]]
    if (rows <= high.rows) {
      const share = (Math.log(rows) - Math.log(low.rows)) / (Math.log(high.rows) - Math.log(low.rows))
      return low.usPerRow + share * (high.usPerRow - low.usPerRow)
    }
  }
  return PACES[PACES.length - 1].usPerRow
}

/** How long a batch of `rows` takes at the capture's pace: when its last row's answer is due (ms). */
function batchMs (rows) {
  return (rows * usPerRow(rows)) / 1000
}

/**
 * Writes `pieces` (Buffers: one a row's answer, the first with the ParseComplete, the last the ReadyForQuery) to
 * their sockets each at its time, from one loop for every socket of the process. Several due at once on a socket (a
 * loop iteration came late) go out in one write, as Netty writes the flushes pending on a channel in one writev: a
 * write a row for several batches at once costs the stand-in more than the capture's pace allows, and a stand-in that
 * fell behind would make a pg batch last longer than the same batch over HTTP.
 */
class RowFlusher {
  constructor ({ now = () => performance.now() } = {}) {
    this.now = now
    this.queue = []
    this.running = false
    // Writes made, one a piece: what a test counts (the reads a client sees depend on how busy the machine is).
    this.written = 0
  }

  add (socket, pieces, paceUs) {
    this.queue.push({ socket, pieces, next: 0, dueAt: this.now(), paceMs: paceUs / 1000 })
    if (!this.running) {
      this.running = true
      setImmediate(() => this.tick())
    }
  }

  tick () {
    const now = this.now()
    for (const entry of this.queue) {
      const open = !entry.socket.destroyed
      if (open) entry.socket.cork()
      while (entry.next < entry.pieces.length && entry.dueAt <= now) {
        if (!entry.socket.destroyed) {
          entry.socket.write(entry.pieces[entry.next])
          this.written++
        }
        entry.next++
        entry.dueAt += entry.paceMs
      }
      if (open) entry.socket.uncork()
    }
    this.queue = this.queue.filter((e) => e.next < e.pieces.length && !e.socket.destroyed)
    if (this.queue.length > 0) setImmediate(() => this.tick())
    else this.running = false
  }
}

/**
 * A batch's answer messages (as one Buffer each: ParseComplete, then BindComplete and CommandComplete per row,
 * anything else) and its ReadyForQuery as the pieces CrateDB flushes: a row's two messages together.
 */
function rowPieces (messages, ready) {
  const pieces = []
  let current = []
  for (const m of messages) {
    current.push(m)
    // A CommandComplete (or an error) ends a row's answer.
    if (m[0] === 0x43 || m[0] === 0x45) {
      pieces.push(Buffer.concat(current))
      current = []
    }
  }
  if (current.length > 0) pieces.push(Buffer.concat(current))
  pieces.push(ready)
  return pieces
}

module.exports = { usPerRow, batchMs, RowFlusher, rowPieces, PACES }
