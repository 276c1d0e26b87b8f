'use strict'

// .ci/wait-nodes.js: CI returns only once the CrateDB nodes of its run are gone (issue 67: three were still there
// when .ci/run exited). A /proc of its own (PROC_ROOT): nodes that end, one that does not, nodes of before the run.

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { spawn } = require('node:child_process')
const { tempDir } = require('../helpers/temp-files')

const SCRIPT = path.join(__dirname, '..', '..', '.ci', 'wait-nodes.js')

/** A process entry of the fake /proc: its command line and its start time in ticks. */
function fakeProcess (proc, pid, args, ticks) {
  fs.mkdirSync(path.join(proc, String(pid)))
  fs.writeFileSync(path.join(proc, String(pid), 'cmdline'), `${args.join('\0')}\0`)
  const after = ['S', '1', ...Array.from({ length: 17 }, () => '0'), String(ticks), '0']
  fs.writeFileSync(path.join(proc, String(pid), 'stat'), `${pid} (java) ${after.join(' ')}\n`)
}

const node = (name) => ['/usr/bin/java', '-Xms1g', 'io.crate.bootstrap.CrateDB', `-Ccluster.name=${name}`]

function waitNodes (proc, since, seconds) {
  const child = spawn(process.execPath, [SCRIPT, String(since), String(seconds)],
    { env: { ...process.env, PROC_ROOT: proc }, stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  child.stderr.on('data', (d) => { stderr += d })
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stderr })))
}

test('CI waits for the nodes started since it began, names those left after its bound, and ignores older ones',
  async (t) => {
    const proc = tempDir(t)
    fakeProcess(proc, 100, node('crate-bench-old000'), 50)
    fakeProcess(proc, 200, ['/usr/bin/node', 'test.js', '-Ccluster.name=crate-bench-abc123'], 500)
    assert.deepEqual(await waitNodes(proc, 100, 5), { code: 0, stderr: '' }, 'an older node and a non-JVM ignored')
    fakeProcess(proc, 300, node('crate-bench-abc123'), 500)
    const left = await waitNodes(proc, 100, 1)
    assert.equal(left.code, 1)
    assert.equal(left.stderr, 'CrateDB nodes still running after 1 s: crate-bench-abc123 (pid 300)\n')
    // One that ends while CI waits: CI returns then.
    const waiting = waitNodes(proc, 100, 30)
    setTimeout(() => fs.rmSync(path.join(proc, '300'), { recursive: true }), 300)
    assert.deepEqual(await waiting, { code: 0, stderr: '' })
  })
