'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { spawn } = require('node:child_process')
const { writeState, readState, register, registered, unregister, isNodeOf } = require('../../lib/provision/state')
const { tempDir } = require('../helpers/temp-files')

test('cluster.json written whole and read back; anything else in its place refused in one line', (t) => {
  const dir = tempDir(t)
  assert.equal(readState(dir, { nullIfMissing: true }), null)
  assert.throws(() => readState(dir), /cluster\.json does not exist: no cluster this tool started/)
  const state = { kind: 'crate-bench cluster', name: 'crate-bench-abc', dir, nodes: [{ name: 'n1', pid: 1 }] }
  writeState(dir, state)
  assert.deepEqual(readState(dir), state)
  assert.deepEqual(fs.readdirSync(dir), ['cluster.json'], 'no temporary file left')
  fs.writeFileSync(path.join(dir, 'cluster.json'), JSON.stringify({ kind: 'something else', nodes: [] }))
  assert.throws(() => readState(dir), /is no cluster this tool started/)
  fs.writeFileSync(path.join(dir, 'cluster.json'), '[1, 2]')
  assert.throws(() => readState(dir), /does not hold a cluster/)
})

test('the registry lists every cluster started, by name and folder, until it leaves it', (t) => {
  const env = { CRATE_BENCH_CACHE: tempDir(t) }
  register({ name: 'crate-bench-a', dir: '/x/a' }, env)
  register({ name: 'crate-bench-b', dir: '/x/b' }, env)
  fs.writeFileSync(path.join(env.CRATE_BENCH_CACHE, 'clusters', 'half.json'), '{"name":')
  assert.deepEqual(registered(env).map((e) => e.name).sort(), ['crate-bench-a', 'crate-bench-b'])
  unregister('crate-bench-a', env)
  assert.deepEqual(registered(env), [{ name: 'crate-bench-b', dir: '/x/b' }])
})

test('a pid is a node of a cluster only when it runs and was started with that cluster\'s name', async (t) => {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)', '--', '-Ccluster.name=crate-bench-x'],
    { stdio: 'ignore' })
  t.after(() => child.kill('SIGKILL'))
  await new Promise((resolve) => setTimeout(resolve, 200))
  if (!fs.existsSync('/proc')) return t.skip('no /proc on this machine: a live pid is all that can be known')
  assert.equal(isNodeOf(child.pid, 'crate-bench-x'), true)
  assert.equal(isNodeOf(child.pid, 'crate-bench-y'), false, 'another cluster\'s name')
  assert.equal(isNodeOf(process.pid, 'crate-bench-x'), false, 'a process that is no node (a pid reused)')
  assert.equal(isNodeOf(1, 'crate-bench-x'), false, 'pid 1 is never ours')
  child.kill('SIGKILL')
  await new Promise((resolve) => child.once('exit', resolve))
  assert.equal(isNodeOf(child.pid, 'crate-bench-x'), false, 'gone')
})
