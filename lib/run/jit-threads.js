'use strict'

const fs = require('node:fs')

// The CPU time of a JVM's just-in-time compiler (HotSpot's C1 and C2 compiler threads), told apart from the rest of a
// node's time: a fresh node compiles for minutes under load (a third of a 1-node cluster's CPU here 70 s in), and how
// much of it falls in a measured window moves the node's CPU per row by several percent from one run to the next. It
// is the JVM warming up, not the work a row needs: the cost per row leaves it out, and says how much it left out.

// HotSpot names them "C2 CompilerThread0", "C1 CompilerThread1" …; the kernel keeps 15 characters of a thread's name.
const COMPILER_THREAD = /^C[12] CompilerThre/

/** The ticks of each compiler thread of `pid` (/proc/PID/task/TID/stat): Map(tid → ticks), or null when unreadable. */
function readCompilerTicks (pid, procRoot = '/proc') {
  let tids
  try {
    tids = fs.readdirSync(`${procRoot}/${pid}/task`)
  } catch {
    return null
  }
  const ticks = new Map()
  for (const tid of tids) {
    let stat
    try {
      stat = fs.readFileSync(`${procRoot}/${pid}/task/${tid}/stat`, 'utf8')
    } catch {
      continue // a thread that ended between the listing and the read
    }
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))
    if (!COMPILER_THREAD.test(name)) continue
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    const used = Number(fields[11]) + Number(fields[12])
    if (Number.isFinite(used)) ticks.set(`${pid}/${tid}`, used)
  }
  return ticks
}

/**
 * The compiler ticks spent between two readings (Maps of thread → ticks). A thread first seen in `to` started after
 * `from` and counts whole; a thread gone by `to` loses its last ticks (HotSpot ends idle compiler threads: little).
 */
function compilerTicksBetween (from, to) {
  let sum = 0
  for (const [thread, ticks] of to) sum += Math.max(0, ticks - (from.get(thread) ?? 0))
  return sum
}

module.exports = { readCompilerTicks, compilerTicksBetween, COMPILER_THREAD }
