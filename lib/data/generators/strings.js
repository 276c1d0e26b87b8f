'use strict'

// Random text for payloads and values, cut from one seeded pool: drawing every character anew
// would cost more than the rest of the client per row.
const ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-'
const POOL_BYTES = 1 << 20

class StringPool {
  constructor (random, longest) {
    this.random = random
    const size = Math.max(POOL_BYTES, longest * 4)
    this.pool = Buffer.allocUnsafe(size)
    for (let i = 0; i < size; i++) this.pool[i] = ALPHABET.charCodeAt(random.nextUint32() & 63)
    this.longest = longest
  }

  /** Copies `length` random characters into buffer at pos; returns the position after them. */
  write (buffer, pos, length) {
    const start = this.random.int(this.pool.length - length)
    return pos + this.pool.copy(buffer, pos, start, start + length)
  }

  /** `length` random characters as a string. */
  next (length) {
    const start = this.random.int(this.pool.length - length)
    return this.pool.toString('latin1', start, start + length)
  }
}

/**
 * The key of sequence number n, exactly `bytes` long: a hash prefix spreads neighbouring numbers
 * over the key space (as YCSB's hashed keys do), and n itself keeps every key unique. A read run
 * draws n below the number of rows written and finds its key without any coordination.
 */
function kvKey (n, bytes) {
  let h = (n ^ 0x9e3779b9) >>> 0
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b) >>> 0
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0
  h = (h ^ (h >>> 16)) >>> 0
  const core = `${h.toString(16).padStart(8, '0')}${n.toString(36).padStart(10, '0')}`
  return core.padEnd(bytes, '0')
}

const KV_KEY_MIN_BYTES = 18

module.exports = { StringPool, kvKey, KV_KEY_MIN_BYTES }
