'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { spawn } = require('node:child_process')
const { recordChild, endPreviousChildren, CHILDREN_FILE } = require('../../lib/study/children')
const { processEnded, processStartTime } = require('../../lib/base/processes')
const { tempDir } = require('../helpers/temp-files')

// A process that ignores SIGTERM, returned once it does (a loaded machine may take a second to start it).
async function stubborn () {
  const child = spawn(process.execPath, ['-e', 'process.on("SIGTERM", () => {}); setInterval(() => {}, 1000); ' +
    'process.stdout.write("ready\\n")'], { stdio: ['ignore', 'pipe', 'ignore'] })
  await new Promise((resolve, reject) => {
    child.stdout.once('data', resolve)
    child.once('exit', () => reject(new Error('the stubborn child ended before it was ready')))
  })
  child.stdout.resume()
  return child
}

test('a resumed study waits for what the earlier one left running, then ends it (SIGTERM, then SIGKILL); a pid ' +
  'reused by another program is never signalled', async (t) => {
  if (!fs.existsSync('/proc')) return t.skip('no /proc: a start time cannot be told')
  const out = tempDir(t)
  const orphan = await stubborn()
  const stranger = await stubborn()
  t.after(() => {
    orphan.kill('SIGKILL')
    stranger.kill('SIGKILL')
  })
  const orphanStart = processStartTime(orphan.pid)
  recordChild(out, orphan, 'the 1-node shape\'s grid')
  const forget = recordChild(out, stranger, 'a run')
  // The stranger's pid, recorded with another start time: a process that reused a child's pid.
  const saved = JSON.parse(fs.readFileSync(path.join(out, CHILDREN_FILE), 'utf8'))
  saved.children.find((c) => c.pid === stranger.pid).start_time = '1'
  fs.writeFileSync(path.join(out, CHILDREN_FILE), JSON.stringify(saved))
  const said = []
  await endPreviousChildren(out, { log: (line) => said.push(line), waitMs: 200, termWaitMs: 300 })
  // Ended (a zombie until this process reaps it counts as ended: an init that reaps no orphans keeps them so).
  assert.equal(processEnded(orphan.pid, orphanStart), true)
  await new Promise((resolve) => (orphan.signalCode ? resolve() : orphan.once('exit', resolve)))
  assert.equal(orphan.signalCode, 'SIGKILL', 'it ignored SIGTERM: killed')
  assert.equal(stranger.exitCode === null && stranger.signalCode === null, true, 'the stranger still runs')
  assert.deepEqual(said, [`waiting for what the earlier study left running to end: the 1-node shape's grid (pid ` +
    `${orphan.pid})`, 'what the earlier study left running has ended'])
  assert.deepEqual(JSON.parse(fs.readFileSync(path.join(out, CHILDREN_FILE), 'utf8')).children, [])
  forget()
})
