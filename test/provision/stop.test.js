'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { spawn } = require('node:child_process')
const { stopNodes } = require('../../lib/provision/stop')
const { writeState } = require('../../lib/provision/state')
const { isFree } = require('../../lib/provision/ports')
const { processStartTime } = require('../../lib/base/processes')
const { tempDir } = require('../helpers/temp-files')
const { freeClusterPort } = require('../helpers/ports')

// A node on its way out loses its command line (its memory goes first) while it still holds its ports: a stop ends
// when its process has, so that the next start on the same ports finds them free.
const EXITING_NODE = `
const server = require('node:net').createServer().listen(Number(process.argv[1]), '127.0.0.1', () => {
  process.on('SIGTERM', () => {
    process.title = 'exiting'
    setTimeout(() => process.exit(0), 1000)
  })
  process.stdout.write('listening')
})`

test('a stop ends only when each node has ended, not when its command line is gone: its ports are free after it',
  async (t) => {
    if (!fs.existsSync('/proc')) return t.skip('no /proc on this machine: a live pid is all that can be known')
    const dir = tempDir(t)
    const nodeDir = path.join(dir, 'node1')
    fs.mkdirSync(nodeDir)
    const port = await freeClusterPort(1)
    const child = spawn(process.execPath, ['-e', EXITING_NODE, String(port), '-Ccluster.name=crate-bench-stop'],
      { cwd: nodeDir, stdio: ['ignore', 'pipe', 'inherit'] })
    t.after(() => child.kill('SIGKILL'))
    await new Promise((resolve) => child.stdout.once('data', resolve))
    writeState(dir, { kind: 'crate-bench cluster', name: 'crate-bench-stop', dir, run_uid: process.getuid(),
      nodes: [{ name: 'n1', pid: child.pid, start_time: processStartTime(child.pid), dir: nodeDir }] })
    const stopped = await stopNodes(dir, { remove: false, env: { CRATE_BENCH_CACHE: tempDir(t) } })
    assert.equal(stopped.stopped, 1)
    assert.equal(await isFree(port), true, 'the node\'s port is free when the stop returns')
  })
