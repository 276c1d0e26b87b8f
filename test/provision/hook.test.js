'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { spawn } = require('node:child_process')
const { runHook, lineSplitter } = require('../../lib/provision/hook')
const { groupRuns } = require('../../lib/provision/hook-watchdog')
const { processRuns } = require('../../lib/base/processes')
const { tempDir } = require('../helpers/temp-files')

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

/** Waits until `gone()` holds, polling; false when it never did within `ms` (a bound on a wait, not a timing). */
async function until (gone, ms = 30_000) {
  const deadline = Date.now() + ms
  while (Date.now() < deadline) {
    if (gone()) return true
    await sleep(100)
  }
  return gone()
}

/** A pid written by a hook into `file`, and its end after the test (a background process the hook left). */
async function leftBehind (t, file) {
  assert.ok(await until(() => fs.existsSync(file) && /^\d+\n$/.test(fs.readFileSync(file, 'utf8'))), `${file}`)
  const pid = Number(fs.readFileSync(file, 'utf8'))
  t.after(() => { try { process.kill(pid, 'SIGKILL') } catch { /* gone */ } })
  return pid
}

const hook = (t, command, options = {}) => {
  const dir = options.dir ?? tempDir(t)
  const lines = []
  return runHook(command, { cwd: dir, log: (line) => lines.push(line), logFile: path.join(dir, 'up.log'),
    timeoutMs: 20_000, graceMs: 500, ...options }).then((result) => ({ ...result, lines, dir }))
}

test('a hook is done when its shell exits: a server it left in the background (holding the output pipe) is ' +
  'neither waited for nor ended', async (t) => {
  const dir = tempDir(t)
  const pidFile = path.join(dir, 'server.pid')
  // The server keeps the hook's stdout: before, the study waited for the whole wait: and then ended the server.
  const result = await hook(t, `sleep 60 & echo $! > ${pidFile}; echo started`, { dir, timeoutMs: 20_000 })
  assert.deepEqual([result.code, result.timedOut, result.failed], [0, false, false])
  assert.deepEqual(result.lines, ['started'])
  const server = await leftBehind(t, pidFile)
  await sleep(700) // beyond the grace: nothing ends it
  assert.ok(processRuns(server), 'the user\'s server still runs')
})

test('a hook past its bound has failed whatever its exit code: SIGTERM, then SIGKILL after the grace, a ' +
  'TERM-proof shell and a child that left the group included', async (t) => {
  // Ignores SIGTERM (and so does its sleep): before, it ran out its 25 s and counted as exit 0.
  const proof = await hook(t, 'trap "" TERM; sleep 25; exit 0', { timeoutMs: 300, graceMs: 300 })
  assert.deepEqual([proof.timedOut, proof.failed, proof.signal], [true, true, 'SIGKILL'])
  // A child that left the group (setsid) keeps the pipe; the hook ends with its shell all the same.
  const dir = tempDir(t)
  const pidFile = path.join(dir, 'away.pid')
  const away = await hook(t, `setsid sh -c 'echo $$ > ${pidFile}; sleep 25' & sleep 25`, { dir, timeoutMs: 300 })
  assert.deepEqual([away.timedOut, away.failed], [true, true])
  await leftBehind(t, pidFile)
  // One that exits 0 late is as failed as one that exits 3 in time.
  const late = await hook(t, 'sleep 25', { timeoutMs: 200 })
  assert.deepEqual([late.timedOut, late.failed, late.signal], [true, true, 'SIGTERM'])
  const three = await hook(t, 'exit 3')
  assert.deepEqual([three.code, three.timedOut, three.failed], [3, false, true])
})

test('a hook\'s output is bounded: each line cut and shown without control characters, the log mode 600 and ' +
  'capped, the rest counted', async (t) => {
  const bytes = 3_000_000
  const result = await hook(t, `printf 'title\\033]0;owned\\007 ok\\n'; head -c ${bytes} /dev/zero | tr '\\0' a`,
    { maxLineChars: 100, maxLogBytes: 50_000 })
  assert.equal(result.failed, false)
  assert.equal(result.outputBytes, bytes + 'title\x1b]0;owned\x07 ok\n'.length)
  assert.equal(result.lines[0], 'title\\u001b]0;owned\\u0007 ok')
  assert.equal(result.lines.length, 2)
  assert.equal(result.lines[1], `${'a'.repeat(100)}… (${bytes - 100} more characters not shown)`)
  const log = path.join(result.dir, 'up.log')
  assert.equal(fs.statSync(log).mode & 0o777, 0o600)
  const text = fs.readFileSync(log, 'utf8')
  assert.ok(text.startsWith('title\x1b]0;owned'), 'the log keeps the bytes as written')
  assert.ok(text.endsWith('\n[crate-bench: output past 50000 bytes not kept]\n'))
  assert.equal(text.length, 50_000 + '\n[crate-bench: output past 50000 bytes not kept]\n'.length)
})

test('a log planted as a link is not followed', async (t) => {
  const dir = tempDir(t)
  const victim = path.join(dir, 'victim')
  fs.writeFileSync(victim, 'mine\n')
  fs.symlinkSync(victim, path.join(dir, 'up.log'))
  await assert.rejects(hook(t, 'echo x', { dir }), /ELOOP/)
  assert.equal(fs.readFileSync(victim, 'utf8'), 'mine\n')
})

test('a line splitter holds no more than its limit of a line however it comes', () => {
  const lines = []
  const splitter = lineSplitter((line) => lines.push(line), 5)
  splitter.push('abc')
  splitter.push('defgh\nij')
  splitter.push('\n\nk')
  splitter.flush()
  assert.deepEqual(lines, ['abcde… (3 more characters not shown)', 'ij', 'k'])
})

test('a hook whose tool is killed outright (SIGKILL) is ended by its watchdog: SIGTERM, then SIGKILL', async (t) => {
  const dir = tempDir(t)
  const pidFile = path.join(dir, 'hook.pid')
  const script = `const { runHook } = require(${JSON.stringify(require.resolve('../../lib/provision/hook'))})
    runHook('trap "" TERM; echo $$ > ${pidFile}; sleep 60', { cwd: ${JSON.stringify(dir)}, log: () => {},
      logFile: ${JSON.stringify(path.join(dir, 'up.log'))}, timeoutMs: 60000, graceMs: 300 })`
  const tool = spawn(process.execPath, ['-e', script], { stdio: 'ignore' })
  t.after(() => { try { tool.kill('SIGKILL') } catch { /* gone */ } })
  const pgid = await leftBehind(t, pidFile)
  assert.ok(groupRuns(pgid))
  tool.kill('SIGKILL')
  assert.ok(await until(() => !groupRuns(pgid)), 'the hook\'s group ended with its tool')
})

test('a group whose members ended but are not yet reaped (zombies) runs no more; one with a live member runs', (t) => {
  const root = tempDir(t)
  const member = (pid, comm, state, pgrp) => {
    fs.mkdirSync(path.join(root, String(pid)))
    fs.writeFileSync(path.join(root, String(pid), 'stat'), `${pid} (${comm}) ${state} 1 ${pgrp} ${pgrp} 0 -1\n`)
  }
  member(500, 'sh', 'Z', 500)
  member(501, 'sleep (x) y', 'Z', 500)
  member(600, 'node', 'S', 600)
  fs.mkdirSync(path.join(root, 'self'))
  assert.equal(groupRuns(500, { procRoot: root }), false)
  assert.equal(groupRuns(600, { procRoot: root }), true)
  member(502, 'server', 'S', 500)
  assert.equal(groupRuns(500, { procRoot: root }), true)
})
