'use strict'

const fs = require('node:fs')
const path = require('node:path')

/** Whether process `pid` runs now (one this user may not signal runs too). */
function processRuns (pid) {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return error.code === 'EPERM'
  }
}

/**
 * When process `pid` started, in clock ticks since boot (/proc/PID/stat's 22nd field): the same for a process from
 * its fork to its end, exec included, and another for a process that reuses its pid. Null where /proc says nothing.
 */
function processStartTime (pid, { procRoot = '/proc' } = {}) {
  const fields = statFields(pid, procRoot)
  return fields && /^[0-9]+$/.test(fields[19]) ? fields[19] : null
}

/**
 * /proc/PID/stat's fields after the command's name (which may hold spaces and parentheses): [0] is its state (field
 * 3), [2] its process group (field 5), [19] its start time (field 22). Null where it cannot be read.
 */
function statFields (pid, procRoot = '/proc') {
  try {
    const stat = fs.readFileSync(`${procRoot}/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  } catch {
    return null
  }
}

/**
 * Whether process `pid`, started at `startTime` (processStartTime), has ended: gone, its pid another process's, or a
 * zombie whose every thread has exited. Not before: a process on its way out loses its command line (its memory)
 * before it closes its files, and its first thread turns zombie before the others: one that no longer looks like
 * itself may still hold its ports.
 */
function processEnded (pid, startTime, { procRoot = '/proc' } = {}) {
  if (!processRuns(pid)) return true
  const fields = statFields(pid, procRoot)
  // Gone meanwhile; or no /proc (macOS), where running is all that can be known.
  if (!fields) return fs.existsSync(procRoot)
  if (fields[19] !== startTime) return true
  if (fields[0] !== 'Z' && fields[0] !== 'X') return false
  // A zombie leader whose other threads still exit: their files (shared by all) are not closed yet.
  try {
    return !/^Threads:\s+([2-9]|[1-9][0-9]+)\s*$/m.test(fs.readFileSync(`${procRoot}/${pid}/status`, 'utf8'))
  } catch {
    return true
  }
}

/** What /proc tells of process `pid`: { startTime, uid, cwd, args }, each null where it cannot be read. */
function processInfo (pid, { procRoot = '/proc' } = {}) {
  const read = (fn) => {
    try {
      return fn()
    } catch {
      return null
    }
  }
  const status = read(() => fs.readFileSync(`${procRoot}/${pid}/status`, 'utf8'))
  const uid = status && /^Uid:\s+([0-9]+)/m.exec(status)
  return {
    startTime: processStartTime(pid, { procRoot }),
    uid: uid ? Number(uid[1]) : null,
    cwd: read(() => fs.readlinkSync(`${procRoot}/${pid}/cwd`)),
    args: read(() => fs.readFileSync(`${procRoot}/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean))
  }
}

// The tool's own entry scripts: a process running one of them is a run or a study of this tool.
const TOOL_SCRIPTS = new Set(['crate-bench.js', 'crate-bench', 'appClusterIngest.js', 'appClusterAnalytical.js'])

/**
 * Whether `pid` is a process of this tool that still runs: alive and, where /proc shows its command line, a program
 * running one of the tool's entry scripts (a pid reused by another program holds nothing, nor does a CrateDB node
 * whose cluster's name merely contains "crate-bench").
 */
function toolProcessRuns (pid, { procRoot = '/proc' } = {}) {
  if (!processRuns(pid)) return false
  let args
  try {
    args = fs.readFileSync(`${procRoot}/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean)
  } catch {
    // No /proc (macOS): alive is all that can be known.
    return !fs.existsSync(procRoot)
  }
  // An argument that is one of the tool's scripts (after the interpreter and its options).
  return args.slice(1).some((a) => TOOL_SCRIPTS.has(path.basename(a)))
}

module.exports = { processRuns, processStartTime, processEnded, processInfo, toolProcessRuns, statFields }
