'use strict'

const { UsageError } = require('../../base/errors')

// The grid's cells and the order they run in, without a clock or a process: every cell is one combination of the
// varied settings; repeats go in rounds over the whole grid, so that a cluster that drifts through the study spreads
// its drift over every cell instead of favouring the first.

// What a grid may vary, and how each value is checked: the benchmark's own flags, as the sweeps step them.
const WHOLE = { test: (v) => /^[1-9][0-9]*$/.test(v), text: 'whole numbers of at least 1' }
const DIMENSIONS = {
  batch_size: WHOLE,
  concurrent_requests: WHOLE,
  processes: WHOLE,
  shards: WHOLE,
  replicas: { test: (v) => /^[0-9]+(-([0-9]+|all))?$/.test(v) && replicaBounds(v) !== null,
    text: 'replica counts (0, 1, 0-1, 1-all; a range\'s upper bound not below its lower)',
    canonical: canonicalReplicas },
  rate: { test: (v) => /^[0-9]+(\.[0-9]+)?$/.test(v) && Number(v) > 0, text: 'positive numbers' }
}

/** A replicas value's bounds: [lower, upper] (upper Infinity for all), null for a range whose upper is below. */
function replicaBounds (v) {
  const [lower, upper = lower] = String(v).split('-')
  const bounds = [Number(lower), upper === 'all' ? Infinity : Number(upper)]
  return bounds[1] < bounds[0] ? null : bounds
}

/** One text per replica range, as CrateDB reads it: 0-01 is 0-1, 1-1 is 1. */
function canonicalReplicas (v) {
  const [lower, upper] = replicaBounds(v)
  if (upper === lower) return lower
  return `${lower}-${upper === Infinity ? 'all' : upper}`
}

const numberOrText = (v) => (/^[0-9]+(\.[0-9]+)?$/.test(v) ? Number(v) : v)

/** `--vary NAME=V1,V2,…` given two or more times: the dimensions, in the order given. */
function parseVary (texts) {
  if (texts.length < 2) {
    throw new UsageError('a grid needs --vary NAME=V1,V2,… at least twice (one dimension is a sweep: crate-bench ' +
      'sweep batch-size and the others)')
  }
  const dimensions = []
  for (const given of texts) {
    // A dimension as a value ({ name, values }: a study file's mapping), or as the flag's text NAME=V1,V2,….
    const text = given && typeof given === 'object' ? `${given.name}=${[].concat(given.values).join(',')}` : given
    const m = /^([a-z_]+)=(.+)$/.exec(String(text).trim())
    if (!m) throw new UsageError(`--vary must be NAME=V1,V2,… (got '${text}')`)
    const [, name, list] = m
    const kind = DIMENSIONS[name]
    if (!kind) throw new UsageError(`--vary ${name}: a grid varies ${Object.keys(DIMENSIONS).join(', ')}`)
    if (dimensions.some((d) => d.name === name)) throw new UsageError(`--vary ${name} is given twice`)
    const values = list.split(',').map((v) => v.trim()).filter(Boolean)
    const bad = values.find((v) => !kind.test(v))
    if (bad !== undefined) throw new UsageError(`--vary ${name}: '${bad}' is not a value; give ${kind.text}`)
    // Compared as the benchmark reads them: 1000 and 1000.0 are one value given twice, as are replicas 0-1 and 0-01.
    const read = kind.canonical || numberOrText
    const seen = new Map()
    for (const v of values) {
      const key = String(read(v))
      if (seen.has(key)) {
        const given = seen.get(key) === v ? v : `${seen.get(key)} and ${v}`
        throw new UsageError(`--vary ${name} names a value twice (${given})`)
      }
      seen.set(key, v)
    }
    if (values.length === 0) throw new UsageError(`--vary ${name} has no values`)
    dimensions.push({ name, values: values.map(read) })
  }
  return dimensions
}

/** A cell's name in files and logs: batch_size-500_concurrent_requests-8. */
const cellId = (settings) => Object.entries(settings).map(([k, v]) => `${k}-${v}`).join('_')

/** Every combination, the first dimension the slowest to change (as the grid's table reads, row by row). */
function cellsOf (dimensions) {
  let combos = [{}]
  for (const d of dimensions) combos = combos.flatMap((c) => d.values.map((v) => ({ ...c, [d.name]: v })))
  return combos.map((settings) => ({ id: cellId(settings), settings }))
}

/** The runs in the order they go: round 1 over every cell, then round 2, … */
function schedule (cells, repeat) {
  const runs = []
  for (let round = 1; round <= repeat; round++) for (const cell of cells) runs.push({ cell, round })
  return runs
}

/** The runs of `schedule` not yet done; `done` holds `${cell id}#${round}` of every run recorded. */
function runsLeft (cells, repeat, done) {
  return schedule(cells, repeat).filter((r) => !done.has(`${r.cell.id}#${r.round}`))
}

module.exports = { DIMENSIONS, parseVary, cellsOf, cellId, schedule, runsLeft }
