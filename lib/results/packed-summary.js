'use strict'

const { round } = require('../base/format')

// A closed interval's figures packed into one Float64Array: eight numbers for each group and each of its labels, in
// slots the timeline assigns once (a label's slot is the same in every interval). A second of a query mix of nine
// labels and an ingest beside it then costs under a kilobyte instead of the ~3 KB its objects took: the first hour of
// a run keeps every second (lib/results/resolution.js), and what it keeps is the run's shape times 3,600.

const FIELDS = ['ok', 'failed', 'in_doubt', 'per_sec', 'p50_ms', 'p90_ms', 'p99_ms', 'max_ms']
const WIDTH = FIELDS.length
const OK = 0
const PER_SEC = 3
// A slot an interval does not have (its `ok` NaN); a percentile of no answers (NaN) reads as null.
const ABSENT = NaN

class SummarySlots {
  constructor () {
    this.index = new Map()
    this.keys = []
  }

  slotOf (group, label = null) {
    const key = label === null ? `${group}\u0000` : `${group}\u0000${label}`
    let slot = this.index.get(key)
    if (slot === undefined) {
      slot = this.keys.length
      this.index.set(key, slot)
      this.keys.push({ group, label })
    }
    return slot
  }

  /** { group: { ok, …, max_ms, labels: { label: { ok, … } } } } packed. */
  pack (summary) {
    const entries = []
    for (const [group, g] of Object.entries(summary)) {
      entries.push([this.slotOf(group), g])
      for (const [label, l] of Object.entries(g.labels || {})) entries.push([this.slotOf(group, label), l])
    }
    const packed = new Float64Array(this.keys.length * WIDTH).fill(ABSENT)
    for (const [slot, figures] of entries) {
      for (let f = 0; f < WIDTH; f++) {
        const value = figures[FIELDS[f]]
        packed[slot * WIDTH + f] = typeof value === 'number' ? value : ABSENT
      }
    }
    return packed
  }

  /** The summary object again: groups in the order they were first seen, each with its labels. */
  unpack (packed) {
    const summary = {}
    const slots = packed.length / WIDTH
    for (let slot = 0; slot < slots; slot++) {
      if (Number.isNaN(packed[slot * WIDTH + OK])) continue
      const { group, label } = this.keys[slot]
      const figures = {}
      for (let f = 0; f < WIDTH; f++) {
        const value = packed[slot * WIDTH + f]
        figures[FIELDS[f]] = Number.isNaN(value) ? null : value
      }
      if (label === null) summary[group] = { ...figures, labels: summary[group] ? summary[group].labels : {} }
      else {
        if (!summary[group]) summary[group] = { labels: {} }
        summary[group].labels[label] = figures
      }
    }
    return summary
  }

  /** One figure of a group (or a label), or null. */
  figure (packed, group, field, label = null) {
    const key = label === null ? `${group}\u0000` : `${group}\u0000${label}`
    const slot = this.index.get(key)
    if (slot === undefined || (slot + 1) * WIDTH > packed.length) return null
    const value = packed[slot * WIDTH + FIELDS.indexOf(field)]
    return Number.isNaN(value) ? null : value
  }

  /**
   * Counts that came after the interval closed, added to a group and its labels (a new one included): returns the
   * packed figures, a longer array when a slot is new to it.
   */
  addLate (packed, group, answered, seconds) {
    const slots = [this.slotOf(group), ...answered.map(([label]) => this.slotOf(group, label))]
    let out = packed
    if (this.keys.length * WIDTH > packed.length) {
      out = new Float64Array(this.keys.length * WIDTH).fill(ABSENT)
      out.set(packed)
    }
    const add = (slot, d) => {
      const at = slot * WIDTH
      if (Number.isNaN(out[at + OK])) out.fill(0, at, at + PER_SEC + 1)
      out[at] += d.ok
      out[at + 1] += d.failed
      out[at + 2] += d.inDoubt || 0
      out[at + PER_SEC] = round(out[at] / seconds)
    }
    answered.forEach(([, d], k) => {
      add(slots[0], d)
      add(slots[k + 1], d)
    })
    return out
  }
}

module.exports = { SummarySlots, FIELDS }
