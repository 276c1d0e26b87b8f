'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { readCompilerTicks, compilerTicksBetween } = require('../../lib/run/jit-threads')
const { tempDir } = require('../helpers/temp-files')

/** A /proc of one process whose threads are named and timed as the test says: { tid: [name, utime, stime] }. */
function fakeProc (root, pid, threads) {
  for (const [tid, [name, utime, stime]] of Object.entries(threads)) {
    const dir = path.join(root, String(pid), 'task', tid)
    fs.mkdirSync(dir, { recursive: true })
    // The kernel's format: pid (comm) state ppid … utime is field 14, stime 15 (1-based).
    const rest = ['S', 1, 1, 1, 0, -1, 4194560, 0, 0, 0, 0, utime, stime, 0, 0, 20, 0, 60, 0, 1234].join(' ')
    fs.writeFileSync(path.join(dir, 'stat'), `${tid} (${name}) ${rest}\n`)
  }
}

test('a HotSpot node\'s C1 and C2 compiler threads, by their names as the kernel keeps them (15 characters)', (t) => {
  const root = tempDir(t)
  fakeProc(root, 700, {
    701: ['java', 5, 1],
    702: ['C2 CompilerThre', 400, 20],
    703: ['C1 CompilerThre', 90, 10],
    704: ['cratedb[crate-b', 900, 100],
    // A name with a space and a parenthesis: the comm field ends at the last ')'.
    705: ['GC Thread#0) x', 50, 0]
  })
  assert.deepEqual(readCompilerTicks(700, root), new Map([['700/702', 420], ['700/703', 100]]))
  assert.equal(readCompilerTicks(701, root), null, 'no such process')
})

test('the ticks between two readings: a new thread counts whole, an ended one is left out', () => {
  const from = new Map([['1/2', 100], ['1/3', 50]])
  const to = new Map([['1/2', 130], ['1/4', 7]])
  assert.equal(compilerTicksBetween(from, to), 37)
})

test('this machine\'s /proc: a Node.js process has no JIT compiler thread of HotSpot\'s', (t) => {
  if (!fs.existsSync(`/proc/${process.pid}/task`)) return t.skip('no /proc on this system')
  assert.deepEqual(readCompilerTicks(process.pid), new Map())
})
