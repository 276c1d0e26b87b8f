'use strict'

const path = require('node:path')
const { processRuns, processStartTime, processEnded } = require('../base/processes')
const { readStudyObject } = require('../base/files')
const { replaceFile } = require('../provision/owned-paths')

// The processes a study started: its benchmark runs (a grid's cell, a capacity search's step, a sustained run, a
// fork's run), its only child processes (the grid and the search run in the study's own process). Each is recorded in
// the study's folder while it runs (DIR/children.json: pid, start time, what). A study killed outright cannot end
// them; they end on their own when they see it gone (lib/cli/interrupts.js), within seconds, their workers with them;
// the clusters it started end with their watchdogs. A resumed
// study first waits for them, then ends what is left, so that none of them loads the cluster it starts on the same
// ports. Only a process whose start time is the one recorded is ever signalled: a pid reused by another program is
// not the study's.

const FILE = 'children.json'
const WAIT_MS = 30_000
const TERM_WAIT_MS = 10_000
const POLL_MS = 200

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

function read (out) {
  try {
    const saved = readStudyObject(path.join(out, FILE), () => new Error('unreadable'), { nullIfMissing: true })
    return saved && Array.isArray(saved.children) ? saved.children : []
  } catch {
    return []
  }
}

const write = (out, children) => replaceFile(path.join(out, FILE), `${JSON.stringify({ children }, null, 1)}\n`)

/** Records `child` (a spawned process) as the study's while it runs; returns the function that forgets it. */
function recordChild (out, child, what) {
  const entry = { pid: child.pid, start_time: processStartTime(child.pid), what }
  write(out, [...read(out).filter((c) => c.pid !== child.pid), entry])
  return () => write(out, read(out).filter((c) => c.pid !== entry.pid))
}

/**
 * Whether a recorded child still runs: its pid alive with the start time recorded (where /proc tells it). A zombie has
 * ended (a machine whose first process reaps no orphans keeps them: a container without an init).
 */
const stillRuns = (child) => Number.isSafeInteger(child.pid) && child.pid > 1 && (child.start_time === null
  ? processRuns(child.pid) : !processEnded(child.pid, child.start_time))

async function waitGone (children, ms) {
  const deadline = Date.now() + ms
  for (;;) {
    const left = children.filter(stillRuns)
    if (left.length === 0 || Date.now() >= deadline) return left
    await sleep(POLL_MS)
  }
}

/**
 * Before a resumed study starts anything: the children an earlier study of DIR left running waited for (they end on
 * their own), then sent SIGTERM, then SIGKILL. `log` says what it waits for and what it ended.
 */
async function endPreviousChildren (out, { log = () => {}, waitMs = WAIT_MS, termWaitMs = TERM_WAIT_MS } = {}) {
  const running = read(out).filter(stillRuns)
  if (running.length === 0) return write(out, [])
  log(`waiting for what the earlier study left running to end: ${running.map((c) => `${c.what} (pid ${c.pid})`)
    .join(', ')}`)
  let left = await waitGone(running, waitMs)
  for (const child of left) signal(child.pid, 'SIGTERM')
  left = await waitGone(left, termWaitMs)
  for (const child of left) signal(child.pid, 'SIGKILL')
  left = await waitGone(left, termWaitMs)
  if (left.length) {
    throw new Error(`${left.map((c) => `${c.what} (pid ${c.pid})`).join(', ')} of the earlier study still run`)
  }
  log('what the earlier study left running has ended')
  write(out, [])
}

function signal (pid, name) {
  try {
    process.kill(pid, name)
  } catch {
    // Gone meanwhile.
  }
}

module.exports = { recordChild, endPreviousChildren, CHILDREN_FILE: FILE }
