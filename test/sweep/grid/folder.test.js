'use strict'

// Issue 57 (item 6): the lock of a study's folder, read with guards, taken over by exactly one, never by a pid reused.

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawn, execFileSync } = require('node:child_process')
const { takeLock } = require('../../../lib/sweep/grid/folder')
const { tempDir } = require('../../helpers/temp-files')

const FOLDER = path.join(__dirname, '..', '..', '..', 'lib', 'sweep', 'grid', 'folder.js')
const stale = (pid) => `${JSON.stringify({ pid, host: os.hostname(), started_at: '2026-11-27T10:00:00.000Z' })}\n`

test('a lock that is no regular file is refused at once, never read: a link to /dev/zero, a FIFO, a folder', (t) => {
  for (const make of [(f) => fs.symlinkSync('/dev/zero', f), (f) => execFileSync('mkfifo', [f]),
    (f) => fs.mkdirSync(f)]) {
    const dir = tempDir(t)
    make(path.join(dir, 'grid.lock'))
    assert.throws(() => takeLock(dir), /grid\.lock is not a lock this tool wrote \((a link|not a regular file)\): /)
  }
  const dir = tempDir(t)
  fs.writeFileSync(path.join(dir, 'grid.lock'), 'x'.repeat(10_000))
  assert.throws(() => takeLock(dir), /is not a lock this tool wrote \(10000 bytes\)/)
})

test('a lock of a pid that lives but is no study of this tool (pid 1, reused) is stale: taken over', (t) => {
  const dir = tempDir(t)
  fs.writeFileSync(path.join(dir, 'grid.lock'), stale(1))
  const said = []
  const release = takeLock(dir, { said: (line) => said.push(line) })
  assert.match(said[0], /a stale lock of pid 1, started 2026-11-27T10:00:00\.000Z taken over/)
  assert.equal(JSON.parse(fs.readFileSync(path.join(dir, 'grid.lock'), 'utf8')).pid, process.pid)
  release()
  assert.equal(fs.existsSync(path.join(dir, 'grid.lock')), false)
})

// A winner holds the lock until every taker of the trial has said its outcome: a taker that came after the winner was
// gone would take its stale lock rightly (CI under load: six processes started more than 4 s apart).
test('six takers of one stale lock at once: exactly one wins', async (t) => {
  if (!fs.existsSync('/proc')) return t.skip('no /proc: a live pid is all that can be known here')
  for (let trial = 0; trial < 3; trial++) {
    const dir = tempDir(t)
    fs.writeFileSync(path.join(dir, 'grid.lock'), stale(2 ** 22 + 7))
    const script = `const { takeLock } = require(${JSON.stringify(FOLDER)})
      try { takeLock(${JSON.stringify(dir)}); console.log('won'); setInterval(() => {}, 1000) }
      catch (error) { console.log('refused') }`
    const children = []
    const outcomes = await Promise.all(Array.from({ length: 6 }, () => new Promise((resolve) => {
      // A study of this tool as /proc shows one: a node process running one of the tool's scripts.
      const child = spawn(process.execPath, ['-e', script, 'bin/crate-bench.js'], { stdio: ['ignore', 'pipe',
        'inherit'] })
      children.push(child)
      let out = ''
      child.stdout.on('data', (d) => {
        out += d
        if (out.includes('\n')) resolve(out.trim())
      })
      child.on('exit', () => resolve(out.trim()))
    })))
    for (const child of children) child.kill('SIGKILL')
    assert.equal(outcomes.filter((o) => o === 'won').length, 1, `trial ${trial + 1}: ${outcomes.join(', ')}`)
  }
})

test('a lock appears whole or not at all: its line is written before its name exists (a taker that read an empty ' +
  'lock would take it for stale), no file of the making is left, and without links it is written exclusively',
(t) => {
  const dir = tempDir(t)
  const lock = path.join(dir, 'grid.lock')
  const link = fs.linkSync
  t.after(() => { fs.linkSync = link })
  const seen = []
  fs.linkSync = (from, to) => {
    seen.push({ lockBefore: fs.existsSync(to), text: fs.readFileSync(from, 'utf8') })
    return link(from, to)
  }
  const release = takeLock(dir)
  assert.equal(seen.length, 1)
  assert.equal(seen[0].lockBefore, false)
  assert.equal(JSON.parse(seen[0].text).pid, process.pid, 'the whole line, before the lock has its name')
  assert.deepEqual(fs.readdirSync(dir), ['grid.lock'])
  release()
  // A file system without hard links (link() says EPERM): the lock written exclusively, as before; still one taker.
  fs.linkSync = () => { throw Object.assign(new Error('EPERM: operation not permitted'), { code: 'EPERM' }) }
  const again = takeLock(dir)
  assert.equal(JSON.parse(fs.readFileSync(lock, 'utf8')).pid, process.pid)
  assert.deepEqual(fs.readdirSync(dir), ['grid.lock'])
  assert.throws(() => takeLock(dir, { alive: () => true }), /is in use by another grid \(pid \d+/)
  again()
  assert.deepEqual(fs.readdirSync(dir), [])
})
