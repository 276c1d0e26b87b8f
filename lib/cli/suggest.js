'use strict'

// "did you mean": the declared option nearest to one typed wrong, so that `--batchsize` points at `--batch_size`.

/** Letters only, lower case: `--batch-size`, `--batchSize` and `--batchsize` all mean `batch_size`. */
const plain = (name) => name.toLowerCase().replace(/[-_]/g, '')

/** Levenshtein distance, two rows at a time. */
function editDistance (a, b) {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1))
    }
    previous = current
  }
  return previous[b.length]
}

/**
 * The known option a mistyped `typed` most likely meant, or null: the same letters, or one or two edits away (one
 * for names of up to four letters, where two edits reach unrelated names).
 */
function nearestOption (typed, known) {
  const wanted = plain(typed)
  let best = null
  let bestDistance = Infinity
  for (const name of known) {
    if (name.length <= 1) continue
    const distance = plain(name) === wanted ? 0 : editDistance(wanted, plain(name))
    if (distance < bestDistance) {
      best = name
      bestDistance = distance
    }
  }
  const allowed = wanted.length <= 4 ? 1 : 2
  return bestDistance <= allowed ? best : null
}

/** The message of an unknown option: its name as typed, the nearest known one, and where to look. */
function unknownOptionMessage (typed, known, { afterDash = false } = {}) {
  const flag = `${typed.length === 1 ? '-' : '--'}${typed}`
  const nearest = nearestOption(typed, known)
  const where = afterDash ? 'benchmark options go after \'--\'; see --help' : 'see --help'
  return `unknown option ${flag} (${nearest ? `did you mean --${nearest}? ` : ''}${where})`
}

module.exports = { nearestOption, unknownOptionMessage, editDistance }
