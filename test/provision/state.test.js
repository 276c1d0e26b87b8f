'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { spawn } = require('node:child_process')
const { writeState, readState, register, registered, unregister, isNodeOf } = require('../../lib/provision/state')
const { tempDir } = require('../helpers/temp-files')
const { processStartTime } = require('../../lib/base/processes')

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

test('a node is the very process its start launched: its pid, start time, user, working folder and cluster name; ' +
  'a reused pid, a copied or forged record is never taken for one', async (t) => {
  if (!fs.existsSync('/proc')) return t.skip('no /proc on this machine: a live pid is all that can be known')
  const clusterDir = tempDir(t)
  const dir = path.join(clusterDir, 'node1')
  fs.mkdirSync(dir)
  const launch = () => spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)', '--',
    '-Ccluster.name=crate-bench-x'], { stdio: 'ignore', cwd: dir })
  const child = launch()
  // Start times are in clock ticks (10 ms): the twin starts in a later one.
  await new Promise((resolve) => setTimeout(resolve, 50))
  const twin = launch()
  t.after(() => {
    child.kill('SIGKILL')
    twin.kill('SIGKILL')
  })
  await new Promise((resolve) => setTimeout(resolve, 200))
  const uid = process.getuid()
  const node = { pid: child.pid, start_time: processStartTime(child.pid), dir }
  const state = { name: 'crate-bench-x', run_uid: uid, dir: clusterDir }
  assert.match(node.start_time, /^[0-9]+$/)
  assert.equal(isNodeOf(node, state), true)
  assert.equal(isNodeOf(node, { ...state, name: 'crate-bench-y' }), false, 'another cluster\'s name')
  assert.equal(isNodeOf({ ...node, pid: process.pid }, state), false, 'a process that is no node (a pid reused)')
  assert.equal(isNodeOf({ ...node, pid: 1 }, state), false, 'pid 1 is never ours')
  // A record naming another process of the same name and folder (a copy of another start's record): its start time
  // differs from the one recorded.
  assert.equal(isNodeOf({ ...node, pid: twin.pid }, state), false, 'the start time recorded is another process\'s')
  assert.equal(isNodeOf({ ...node, start_time: undefined }, state), false, 'a record without a start time (forged)')
  assert.equal(isNodeOf(node, { ...state, run_uid: uid + 1 }), false, 'another user\'s process')
  assert.equal(isNodeOf({ ...node, dir: tempDir(t) }, state), false, 'another working folder')
  // A record in another folder naming this node as its own (a forged cluster.json): the node is not under it.
  assert.equal(isNodeOf(node, { ...state, dir: tempDir(t) }), false, 'a node outside the record\'s folder')
  // A forged record in another folder whose node1 is a link to this node's folder: its process runs there, but the
  // forged folder's node1 is a link, not a node of its own.
  const forged = tempDir(t)
  fs.symlinkSync(dir, path.join(forged, 'node1'))
  assert.equal(isNodeOf({ ...node, dir: path.join(forged, 'node1') }, { ...state, dir: forged }), false,
    'a node1 that is a link to another folder\'s node')
  child.kill('SIGKILL')
  await new Promise((resolve) => child.once('exit', resolve))
  assert.equal(isNodeOf(node, state), false, 'gone')
})
