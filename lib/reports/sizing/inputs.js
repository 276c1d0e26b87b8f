'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { UsageError } = require('../../base/errors')
const { readResult } = require('../result-file')
const { readStudyFile, readStudyObject } = require('../../base/files')
const { pointOf, gridEvidence, mixedEvidence } = require('./index')

// What sizing reads from files: a result, a grid's folder, a mixed capacity search's folder, each as the points it
// stands for (index.js pointOf, gridEvidence, mixedEvidence). crate-bench sizing reads the files it is given; a study
// the ones its shapes left.

/** The points of `files` (results, grid folders, capacity folders); the same file given twice counts once. */
function pointsOfFiles (files) {
  // The same file given twice (or a grid's folder and its grid.json) is one result.
  const seen = new Set()
  const points = []
  for (const file of files) {
    const key = path.resolve(isCapacity(file) ? file : isGrid(file) ? gridFileOf(file) : file)
    if (seen.has(key)) continue
    seen.add(key)
    if (isCapacity(file)) {
      points.push(capacityPoint(file))
      continue
    }
    if (isGrid(file)) {
      points.push(gridPoint(file))
      continue
    }
    const point = pointOf(readResult(file), path.basename(file))
    if (!point) throw new UsageError(`${file} is not a result of crate-bench`)
    points.push(point)
  }
  return points
}

/** A find-capacity folder: capacity.summary.json beside capacity.jsonl (each step's result). */
function isCapacity (input) {
  try {
    return fs.statSync(input).isDirectory() && fs.statSync(path.join(input, 'capacity.summary.json')).isFile()
  } catch {
    return false
  }
}

/**
 * A mixed capacity search's folder: the capacity in rows/s beside its query rate and SLO, the cluster's shape read
 * from a step's result. Only --workload mixed searches size a mixed load; the others are refused here.
 */
function capacityPoint (dir) {
  const read = (name) => {
    const file = path.join(dir, name)
    return readStudyFile(file, (why) => new Error(`${file} ${why}`))
  }
  let summary
  let steps
  try {
    summary = JSON.parse(read('capacity.summary.json'))
    steps = read('capacity.jsonl').trim().split('\n').filter(Boolean).map((line) => JSON.parse(line))
  } catch (error) {
    throw new UsageError(`${dir} is no find-capacity folder: ${error.message}`)
  }
  if (!summary || summary.workload !== 'mixed') {
    const workload = summary && summary.workload ? summary.workload : 'ingest'
    throw new UsageError(`${dir}: a capacity of --workload ${workload} is not a sizing input (a grid or a run is); ` +
      'give find-capacity --workload mixed folders for a mixed capacity')
  }
  const problem = capacityProblem(summary)
  if (problem) throw new UsageError(`${dir} is no find-capacity folder this tool wrote: ${problem}`)
  const step = steps.find((s) => s && s.result && s.result.environment) || null
  const point = step ? mixedEvidence(summary, step.result, `${dir} (mixed capacity)`) : null
  if (!point) throw new UsageError(`${dir}: no step of the search says what cluster it ran on`)
  return point
}

/** Why a capacity summary holds figures no search makes (a negative capacity, rate or SLO), or null. */
function capacityProblem (summary) {
  const positive = (v) => typeof v === 'number' && Number.isFinite(v) && v > 0
  if (summary.capacity !== null && !positive(summary.capacity)) {
    return `its capacity is ${JSON.stringify(summary.capacity)}, not a rate above 0 (or null)`
  }
  if (!positive(summary.query_rate)) return `its query_rate is ${JSON.stringify(summary.query_rate)}, not above 0`
  if (!summary.slo || !positive(summary.slo.p99_ms)) {
    return `its slo.p99_ms is ${JSON.stringify(summary.slo && summary.slo.p99_ms)}, not above 0`
  }
  const range = summary.capacity_range
  if (range && [range.low, range.high].some((v) => v !== null && !positive(v))) {
    return `its capacity_range ${JSON.stringify(range)} is not of rates above 0`
  }
  return null
}

const gridFileOf = (input) => (input.endsWith('grid.json') ? input : path.join(input, 'grid.json'))

function isGrid (input) {
  try {
    return fs.statSync(input).isDirectory() || path.basename(input) === 'grid.json'
  } catch {
    return false
  }
}

/**
 * A grid (crate-bench sweep grid's folder or its grid.json): its best cell and its recommended one, each as the run
 * that stands for the cell (the median of its repeats). grid.json is read as a result is (a regular file of a bounded
 * size holding an object); a result file it names must lie in its runs/ folder.
 */
function gridPoint (input) {
  const file = gridFileOf(input)
  const notGrid = (why) => new UsageError(`${input} is no grid folder (crate-bench sweep grid --out): ${file} ${why}`)
  const grid = readStudyObject(file, notGrid, { kind: 'a grid' })
  const runs = path.resolve(path.dirname(file), 'runs')
  const readRun = (relative) => {
    const target = path.resolve(path.dirname(file), String(relative))
    // Its real path too: a link inside runs/ to a file elsewhere (/etc/passwd) is no run of the grid.
    const real = (p) => {
      try {
        return fs.realpathSync.native(p)
      } catch {
        return p
      }
    }
    if (!target.startsWith(`${runs}${path.sep}`) || !real(target).startsWith(`${real(runs)}${path.sep}`)) {
      throw new UsageError(`${file} names ${JSON.stringify(relative)} as a run's result: not in its runs/ folder`)
    }
    return readResult(target)
  }
  const point = gridEvidence(grid, input, readRun)
  if (!point) throw new UsageError(`${file}: the grid has no cell without failures to size with`)
  return point
}

module.exports = { pointsOfFiles, isGrid, isCapacity }
