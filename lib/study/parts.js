'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { EXIT } = require('../base/errors')
const { readStudyObject } = require('../base/files')
const { fmt } = require('../base/format')
const { recordChild } = require('./children')
const { lostNodeLines } = require('../reports/provisioned')

// What every part of a study does around its work: its lines on the terminal and in its own log, the processes it
// starts recorded while they run (children.js), the live rate of a run in progress, and, after it, whether every node
// of the cluster still runs (a node that died is named with its last log lines, its logs kept).

// A run's progress line (lib/run/progress.js) shown on the terminal at most this often.
const LIVE_EVERY_MS = 15_000

/** A stream that writes to `terminal` and appends to the log `file`. */
function teeTo (terminal, file) {
  fs.mkdirSync(path.dirname(file), { recursive: true })
  return {
    write (text) {
      terminal.write(text)
      fs.appendFileSync(file, text)
      return true
    }
  }
}

// A run's --progress line (lib/run/progress.js: "  12s/30s  rows ok 1,000  rows/s …"), never a row of its report's
// tables ("│ rows/s │ 21,352.31 │"), which says rows/s too.
const PROGRESS_LINE = /^\s*(warm-up )?[0-9]+s(\/[0-9]+s| +[0-9]+%)? {2}(rows|queries) ok /

/**
 * `run` (runBenchmark's shape) for the study's runs of a cluster it started: each run given the record of what was
 * started (`recordFile`), recorded in the study's folder while it runs, its progress lines shown every LIVE_EVERY_MS
 * on `stderr` led by `what`.
 */
function studyRunOf (run, { out, recordFile, stderr, now = Date.now }) {
  return async (options) => {
    let forget = () => {}
    let shownAt = -Infinity
    const what = options.what ?? path.basename(options.resultFile, '.json')
    const onLine = (line) => {
      if (!PROGRESS_LINE.test(line) || now() - shownAt < LIVE_EVERY_MS) return
      shownAt = now()
      stderr.write(`  ${what}: ${line.trim()}\n`)
    }
    try {
      // A target (a cluster the study did not start) has no record to give: its runs read it from sys.nodes.
      return await run({ ...options, args: [...options.args, ...(recordFile ? ['--started_by_study', recordFile] : []),
        '--progress'],
        onSpawn: (child) => { forget = recordChild(out, child, what) }, onLine })
    } finally {
      forget()
    }
  }
}

/**
 * The nodes of `target` that died during `part`: named with their last log lines on `log`, their logs kept under
 * `into`. Returns the why of a part whose figures are another cluster's ("n1 died during the grid"), or null.
 */
function lostDuring (target, part, { into, log, of }) {
  const lost = target.keepLostNodeLogs(into)
  for (const node of lost) for (const line of lostNodeLines(node, of)) log(line)
  return lost.length ? `${lost.map((n) => n.node).join(', ')} died during the ${part}` : null
}

/** Whether a part's exit code is a measurement (figures, failures being data), not a part that could not run. */
const measured = (code, accepted = [EXIT.OK]) => accepted.includes(code)

/** "23,456 rows/s, p99 80 ms" of a run's result, or its exit. */
function runLine (result, code) {
  if (!result || !result.workload) return `exit ${code}`
  const unit = result.workload === 'ingest' ? 'rows' : 'queries'
  return `${fmt(result[`${unit}_per_sec`])} ${unit}/s, p99 ${fmt(result.latency_ms ? result.latency_ms.p99 : null)} ` +
    `ms${result.partial ? ', PARTIAL' : ''} (exit ${code})`
}

/**
 * The JSON object a part wrote (its result, its cluster's record), or null when it left none or none to read (a part
 * killed while writing): the study's line for it then says what is missing.
 */
function partResult (file) {
  try {
    return readStudyObject(file, (why) => new Error(why), { nullIfMissing: true })
  } catch {
    return null
  }
}

module.exports = { PROGRESS_LINE, teeTo, studyRunOf, lostDuring, measured, runLine, partResult }
