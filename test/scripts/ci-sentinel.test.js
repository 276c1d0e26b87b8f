'use strict'

// .ci/sentinel: CI's script killed outright (SIGKILL, no trap) leaves neither its tests running nor the servers'
// folder in /tmp (issue 57). A stand-in script (a sleep), a stand-in test tree (a process group of two sleeps) and a
// folder a stand-in node names on its command line.

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawn, spawnSync } = require('node:child_process')
const { processRuns } = require('../../lib/base/processes')

const SENTINEL = path.join(__dirname, '..', '..', '.ci', 'sentinel')
const has = (command) => spawnSync('sh', ['-c', `command -v ${command}`]).status === 0
const skip = ['setsid', 'pgrep', 'bash'].find((c) => !has(c))
if (skip) console.log(`# .ci/sentinel's test skips: no ${skip} on this machine`)

/** Polls `done` every 100 ms; a guard against a hang, not a timing assertion. */
async function eventually (done, what) {
  for (let i = 0; i < 300; i++) {
    if (done()) return
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  assert.fail(`not within 30 s: ${what}`)
}

test('once the script is killed outright, the sentinel ends the tests\' group, waits for the nodes, removes their ' +
  'folder', { skip: Boolean(skip) }, async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ci-sentinel-'))
  fs.mkdirSync(path.join(dir, 'cache'))
  const script = spawn('sleep', ['300'], { stdio: 'ignore' })
  // The tests: a process group of their own (as `setsid npm test`), two processes in it.
  const tests = spawn('sh', ['-c', 'sleep 300 & sleep 300; wait'], { stdio: 'ignore', detached: true })
  // A node that names the folder on its command line, as CrateDB's path.data does; it ends a moment after the script.
  const node = spawn('sh', ['-c', `sleep 1.5; : ${dir}`], { stdio: 'ignore' })
  t.after(() => {
    for (const p of [script, node]) p.kill('SIGKILL')
    try {
      process.kill(-tests.pid, 'SIGKILL')
    } catch {
      // Ended by the sentinel, as it should.
    }
    fs.rmSync(dir, { recursive: true, force: true })
  })
  const sentinel = spawn('setsid', [SENTINEL, String(script.pid), String(tests.pid), dir], { stdio: 'ignore' })
  const ended = new Promise((resolve) => sentinel.on('exit', resolve))
  await new Promise((resolve) => setTimeout(resolve, 300))
  assert.ok(fs.existsSync(dir), 'nothing removed while the script runs')
  assert.ok(processRuns(tests.pid))
  script.kill('SIGKILL')
  await eventually(() => !processRuns(tests.pid), 'the tests\' group ended')
  await ended
  assert.equal(fs.existsSync(dir), false, 'the folder removed')
  assert.equal(processRuns(node.pid) && node.exitCode === null, false, 'removed only after the node that named it')
})

test('started before the tests (\'-\'), the sentinel removes the folder of a script killed while the cache ' +
  'fills, and ends the tests whose group the script wrote into it later', { skip: Boolean(skip) }, async (t) => {
  for (const withTests of [false, true]) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ci-sentinel-'))
    fs.mkdirSync(path.join(dir, 'cache'))
    const script = spawn('sleep', ['300'], { stdio: 'ignore' })
    const tests = withTests ? spawn('sh', ['-c', 'sleep 300 & sleep 300; wait'], { stdio: 'ignore', detached: true })
      : null
    t.after(() => {
      script.kill('SIGKILL')
      try {
        if (tests) process.kill(-tests.pid, 'SIGKILL')
      } catch {
        // Ended by the sentinel, as it should.
      }
      fs.rmSync(dir, { recursive: true, force: true })
    })
    const sentinel = spawn('setsid', [SENTINEL, String(script.pid), '-', dir], { stdio: 'ignore' })
    const ended = new Promise((resolve) => sentinel.on('exit', resolve))
    if (tests) fs.writeFileSync(path.join(dir, '.tests-pgid'), `${tests.pid}\n`)
    await new Promise((resolve) => setTimeout(resolve, 300))
    assert.ok(fs.existsSync(dir), 'nothing removed while the script runs')
    script.kill('SIGKILL')
    if (tests) await eventually(() => !processRuns(tests.pid), 'the tests\' group ended')
    await ended
    assert.equal(fs.existsSync(dir), false, `the folder removed (${withTests ? 'with' : 'before'} the tests)`)
  }
})
