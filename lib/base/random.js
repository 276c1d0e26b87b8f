'use strict'

// Small, fast, seedable PRNG (sfc32). Math.random cannot be seeded, and runs must be reproducible.
class Random {
  constructor (...seedParts) {
    let h = 0x9e3779b9
    const words = []
    for (const part of seedParts) {
      const text = String(part)
      for (let i = 0; i < text.length; i++) {
        h = Math.imul(h ^ text.charCodeAt(i), 0x85ebca6b)
        h ^= h >>> 13
      }
      h = Math.imul(h ^ 0x2f, 0xc2b2ae35)
      words.push(h >>> 0)
    }
    this.a = mix(h, 1)
    this.b = mix(h, 2)
    this.c = mix(h, 3)
    this.d = 1
    // Discard the first outputs: sfc32 needs a few rounds to spread a weak seed.
    for (let i = 0; i < 15; i++) this.nextUint32()
  }

  nextUint32 () {
    const t = (((this.a + this.b) | 0) + this.d) | 0
    this.d = (this.d + 1) | 0
    this.a = this.b ^ (this.b >>> 9)
    this.b = (this.c + (this.c << 3)) | 0
    this.c = (this.c << 21) | (this.c >>> 11)
    this.c = (this.c + t) | 0
    return t >>> 0
  }

  /** A float in [0, 1). */
  next () {
    return this.nextUint32() / 4294967296
  }

  /** An integer in [0, n). */
  int (n) {
    return Math.floor(this.next() * n)
  }

  /** An integer in [min, max], both included. */
  intBetween (min, max) {
    return min + this.int(max - min + 1)
  }

  pick (array) {
    return array[this.int(array.length)]
  }
}

function mix (h, salt) {
  let x = (h ^ Math.imul(salt, 0x27d4eb2d)) | 0
  x = Math.imul(x ^ (x >>> 16), 0x7feb352d)
  x = Math.imul(x ^ (x >>> 15), 0x846ca68b)
  return (x ^ (x >>> 16)) | 0
}

module.exports = { Random }
