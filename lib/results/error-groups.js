'use strict'

// Failures grouped by cause, bounded: what a run's report lists under its errors.

/**
 * CrateDB error messages carry shard ids, allocation ids and values ("... for values: [11, 99]"),
 * so grouping by the raw text would give every row its own group. Tokens that contain a digit are
 * masked for the grouping key; the first raw message of each group is kept as its sample.
 */
function errorPattern (message) {
  return String(message).replace(/[A-Za-z0-9_\-@.]*\d[A-Za-z0-9_\-@.]*/g, '#')
}

/**
 * Units that did not succeed, grouped by cause. `in_doubt` tells failed units (the server said
 * no, or the request never left) from units whose answer was lost (they may be in the table).
 */
// Distinct error groups kept; every further kind of error is counted in one group per outcome, so that a server
// that answers with a new message each time cannot grow the workers' deltas or the master's merge without bound.
const MAX_ERROR_GROUPS = 1000
const OVERFLOW_MESSAGE = 'other errors: more kinds than a run keeps apart'

class ErrorGroups {
  constructor ({ maxGroups = MAX_ERROR_GROUPS } = {}) {
    this.groups = new Map()
    this.maxGroups = maxGroups
  }

  add (
    { code = null, status = null, message = '', inDoubt = false, in_doubt: inDoubtFlag = inDoubt },
    count = 1,
    sample = message
  ) {
    const pattern = errorPattern(message)
    const key = pattern === OVERFLOW_MESSAGE
      ? `overflow\u0000${inDoubtFlag}`
      : `${code}\u0000${status}\u0000${inDoubtFlag}\u0000${pattern}`
    const group = this.groups.get(key)
    if (group) {
      group.count += count
    } else if (this.groups.size < this.maxGroups || key.startsWith('overflow')) {
      this.groups.set(key, { code, status, in_doubt: inDoubtFlag, message: pattern, sample, count })
    } else {
      this.add({ message: OVERFLOW_MESSAGE, inDoubt: inDoubtFlag }, count, OVERFLOW_MESSAGE)
    }
  }

  merge (list) {
    for (const g of list) this.add(g, g.count, g.sample)
  }

  get size () {
    return this.groups.size
  }

  /** Largest groups first. */
  toJSON () {
    return [...this.groups.values()].sort((a, b) => b.count - a.count).map((g) => ({ ...g }))
  }

  clear () {
    this.groups.clear()
  }
}

module.exports = { errorPattern, ErrorGroups, MAX_ERROR_GROUPS }
