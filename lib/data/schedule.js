'use strict'

/**
 * Smooth weighted round-robin: a deterministic order in which, after any n picks, each entry
 * has been picked within one of ratio x n times. Sampling would only match the ratios on average;
 * a benchmark's mix should match them in every run, short ones too.
 */
class WeightedSchedule {
  constructor (ratios, offset = 0) {
    this.ratios = ratios
    this.current = ratios.map(() => 0)
    // Workers start at different points of the cycle so that short runs do not all open alike.
    for (let i = 0; i < offset; i++) this.next()
  }

  next () {
    let best = 0
    for (let i = 0; i < this.ratios.length; i++) {
      this.current[i] += this.ratios[i]
      if (this.current[i] > this.current[best]) best = i
    }
    this.current[best] -= 1
    return best
  }
}

module.exports = { WeightedSchedule }
