'use strict'

const { UsageError } = require('../base/errors')
const { readStudyObject } = require('../base/files')
const { parseDuration } = require('../base/values')
const { replaceFile } = require('../provision/owned-paths')
const { budgetSeconds } = require('../sweep/budget')

// Where a study stands: DIR/study.json (the study as read, each shape's or fork's state: started, done, failed and
// why), which a resume reads back, and how long what is left will take: from the plan before anything ran, from the
// parts done since.

/**
 * DIR/study.json: the study as parsed, and each shape's state; a folder of another study is refused. Read as every
 * file of a study is (readStudyObject: a regular file of a bounded size, never a link to /dev/zero or a FIFO).
 */
function readProgress (file, study) {
  const saved = readStudyObject(file, (why) => new UsageError(`${file} ${why}: no study this tool wrote`),
    { kind: 'a study', nullIfMissing: true })
  if (!saved) return { study, shapes: {}, forks: {} }
  if (JSON.stringify(withVaryValues(saved.study)) !== JSON.stringify(study)) {
    throw new UsageError(`${file} holds a study of another file or settings: give another --out, or the same file to ` +
      'resume')
  }
  // A comparison's calibration and the runs' length decided after a first fork are resumed as they were.
  return { study, shapes: saved.shapes || {}, forks: saved.forks || {},
    ...(saved.calibration ? { calibration: saved.calibration } : {}),
    ...(saved.run_length ? { run_length: saved.run_length } : {}) }
}

/**
 * A study of an earlier version kept its grid's `vary` as text (batch_size=2000,5000): read as this version writes it
 * ({ name, values }), so that its folder resumes.
 */
function withVaryValues (study) {
  const vary = study && study.grid && study.grid.vary
  if (!Array.isArray(vary) || !vary.every((v) => typeof v === 'string')) return study
  return { ...study, grid: { ...study.grid, vary: vary.map((v) => ({ name: v.split('=')[0],
    values: v.slice(v.indexOf('=') + 1).split(',') })) } }
}

const writeProgress = (file, progress) => replaceFile(file, `${JSON.stringify(progress, null, 1)}\n`)

/** Seconds of a duration of the study file ('0': none). */
const seconds = (text) => (text === '0' ? 0 : parseDuration(text, 'duration') / 1000)

/** About how long a shape takes (its cluster's start, the grid's runs, the mixed search, the sustained run): s. */
function shapePlanS (study) {
  const g = study.grid
  const cells = g.vary.reduce((n, v) => n * v.values.length, 1)
  const runS = seconds(g.duration) + (g.warmup !== null ? seconds(g.warmup) : Math.max(5, seconds(g.duration) / 10)) + 4
  // A race runs until its budget at the most (an hour when it names only a precision); a grid of rounds, each run.
  const gridS = g.precision || g.budget ? budgetSeconds(g.budget) + runS
    : (cells * g.repeat + 1) * runS
  const mixedS = study.mixed ? 10 * (seconds(study.mixed.duration) + (study.mixed.warmup ? seconds(study.mixed.warmup)
    : 10) + 3) : 0
  const sustainedS = study.sustained ? seconds(study.sustained.duration) + 10 : 0
  return 40 + gridS + mixedS + sustainedS
}

module.exports = { readProgress, writeProgress, shapePlanS }
