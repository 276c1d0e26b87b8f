'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { execFileSync } = require('node:child_process')
const { readNodeFile, lastLogLines, listNodeFolder } = require('../../lib/provision/node-files')
const { Target } = require('../../lib/provision/target')
const { tempDir } = require('../helpers/temp-files')
const { otherUser } = require('../helpers/other-user')

const { root, other, skip: asRootWhy } = otherUser({ who: 'the nodes\' user', tests: 'the node-files tests as root' })

const SECRET = 'root only: the key\n'

/** A cluster folder with node1 (and node1/logs) of the nodes' user, and a root-only file outside it. */
function clusterOf (t) {
  const base = tempDir(t)
  fs.chmodSync(base, 0o755)
  const secret = path.join(tempDir(t), 'secret')
  fs.writeFileSync(secret, SECRET, { mode: 0o600 })
  const dir = path.join(base, 'node1')
  fs.mkdirSync(path.join(dir, 'logs'), { recursive: true })
  const uid = other ? other.uid : process.getuid()
  const gid = other ? other.gid : process.getgid()
  if (root && other) for (const at of [dir, path.join(dir, 'logs')]) fs.chownSync(at, uid, gid)
  const node = { name: 'crate-bench-x-n1', dir, log: path.join(dir, 'out.log') }
  const state = { name: 'crate-bench-x', dir: base, run_uid: uid, nodes: [node] }
  /** A file of the nodes' user (a link or a FIFO made as them where root). */
  const asNodeUser = (at) => {
    if (root && other) fs.lchownSync(at, uid, gid)
    return at
  }
  return { base, secret, node, state, uid, asNodeUser }
}

test('a node\'s log of its own user is read, only its end: the last lines, the tail within the cap', (t) => {
  const { base, node, state, uid, asNodeUser } = clusterOf(t)
  fs.writeFileSync(node.log, Array.from({ length: 40 }, (_, i) => `line ${i + 1}`).join('\n') + '\n')
  asNodeUser(node.log)
  assert.deepEqual(lastLogLines(node, state, 3), ['line 38', 'line 39', 'line 40'])
  assert.equal(readNodeFile(node.log, { base, uid, maxBytes: 8 }), 'line 40\n')
  assert.equal(readNodeFile(path.join(node.dir, 'missing.log'), { base, uid }), null)
})

test('a link, a FIFO, a device or a file of another user where a node\'s log was is never read: said, not printed',
  (t) => {
    const { base, secret, node, state, uid, asNodeUser } = clusterOf(t)
    // The nodes' user replaced out.log with a link to a root-only file, and the CrateDB log with a link to /dev/zero.
    asNodeUser(fs.symlinkSync(secret, node.log) ?? node.log)
    const crateLog = path.join(node.dir, 'logs', `${state.name}.log`)
    asNodeUser(fs.symlinkSync('/dev/zero', crateLog) ?? crateLog)
    const lines = lastLogLines(node, state)
    assert.equal(lines.some((l) => l.includes('root only')), false, lines.join('\n'))
    assert.deepEqual(lines, [`(not read: ${node.log} is a link)`, `(not read: ${crateLog} is a link)`])
    // A FIFO opens without blocking and is refused (no reader hangs on it).
    fs.rmSync(node.log)
    execFileSync('mkfifo', [node.log])
    asNodeUser(node.log)
    const refused = []
    assert.equal(readNodeFile(node.log, { base, uid, refused }), null)
    assert.deepEqual(refused, [`${node.log} is no regular file`])
    // The folder logs/ made a link to a folder that holds a file of that name.
    const elsewhere = tempDir(t)
    fs.writeFileSync(path.join(elsewhere, `${state.name}.log`), SECRET)
    fs.rmSync(path.join(node.dir, 'logs'), { recursive: true })
    asNodeUser(fs.symlinkSync(elsewhere, path.join(node.dir, 'logs')) ?? path.join(node.dir, 'logs'))
    const through = []
    assert.equal(readNodeFile(crateLog, { base, uid, refused: through }), null)
    assert.deepEqual(through, [`${path.join(node.dir, 'logs')} is a link`])
    assert.deepEqual(listNodeFolder(path.join(node.dir, 'logs'), { base }), [], 'a linked folder is not listed')
  })

test('as root, a regular file of another user than the nodes\' (a hard link to root\'s, say) is not read',
  { skip: asRootWhy || false }, (t) => {
    const { base, node, uid } = clusterOf(t)
    fs.writeFileSync(node.log, SECRET, { mode: 0o600 })
    const refused = []
    assert.equal(readNodeFile(node.log, { base, uid, refused }), SECRET, 'root\'s own file (the tool\'s user) is read')
    fs.chownSync(node.log, uid + 1, uid + 1)
    assert.equal(readNodeFile(node.log, { base, uid, refused }), null)
    assert.deepEqual(refused, [`${node.log} belongs to uid ${uid + 1}, not the nodes' user`])
  })

test('a study keeps a dead node\'s logs as new files of its own: a linked log is not copied, and said', (t) => {
  const { secret, node, state, asNodeUser } = clusterOf(t)
  fs.symlinkSync(secret, node.log)
  asNodeUser(node.log)
  const crateLog = path.join(node.dir, 'logs', `${state.name}.log`)
  fs.writeFileSync(crateLog, 'Caused by: java.lang.OutOfMemoryError: Java heap space\n')
  asNodeUser(crateLog)
  node.pid = 2 ** 22 + 7 // no such process: the node is lost
  const target = new Target({ state, stop: async () => {} })
  const into = path.join(tempDir(t), 'lost-nodes')
  const [lost] = target.keepLostNodeLogs(into)
  assert.equal(lost.cause, 'java.lang.OutOfMemoryError: Java heap space')
  assert.deepEqual(fs.readdirSync(lost.kept).sort(), [`${state.name}.log`])
  assert.equal(fs.lstatSync(path.join(lost.kept, `${state.name}.log`)).isFile(), true)
  assert.deepEqual(lost.not_kept, [`${node.log} is a link`])
  assert.equal(JSON.stringify(lost).includes('root only'), false)
  // A later part keeps nothing twice.
  assert.deepEqual(target.keepLostNodeLogs(into).map((l) => l.kept), [lost.kept])
})
