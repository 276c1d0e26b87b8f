'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { unpackInto, refusal } = require('../../lib/provision/unpack')
const { unpack } = require('../../lib/provision/distribution')
const { tempDir } = require('../helpers/temp-files')
const { writeTarball, releaseEntries } = require('../helpers/tarball')
const { sha256OfFile } = require('../../lib/provision/download')

const modeOf = (file) => fs.lstatSync(file).mode & 0o7777
const uid = process.getuid ? process.getuid() : null

test('an archive\'s setuid, setgid and sticky bits, its owners and its write by others never reach the disk',
  async (t) => {
  const dir = tempDir(t)
  const file = writeTarball(path.join(dir, 'crate.tar.gz'), [...releaseEntries(),
    // A copy of `id`, setuid and root's, as an attacker packs it; a setgid tool, a file all may write, a sticky folder.
    { path: 'crate/bin/id', mode: 0o4755, uid: 0, gid: 0, body: '#!/bin/sh\nid\n' },
    { path: 'crate/bin/tool', mode: 0o2755, uid: 1234, gid: 1234, body: 'x' },
    { path: 'crate/lib/open.txt', mode: 0o666, uid: 4321, body: 'x' },
    { path: 'crate/shared/', type: 'Directory', mode: 0o1777, uid: 4321 }])
  const into = tempDir(t)
  await unpackInto(file, into, { maxBytes: 1024 ** 2 })
  assert.equal(modeOf(path.join(into, 'crate/bin/id')), 0o755)
  assert.equal(modeOf(path.join(into, 'crate/bin/tool')), 0o755)
  assert.equal(modeOf(path.join(into, 'crate/lib/open.txt')), 0o644)
  assert.equal(modeOf(path.join(into, 'crate/shared')), 0o755)
  for (const entry of ['crate/bin/id', 'crate/bin/tool', 'crate/lib/open.txt', 'crate/shared']) {
    assert.equal(fs.lstatSync(path.join(into, entry)).uid, uid, `${entry} belongs to whoever unpacked it`)
  }
})

test('a device, a FIFO or a link out of the archive is refused, and nothing of it kept', async (t) => {
  const dir = tempDir(t)
  const cases = [
    [{ path: 'crate/fifo', type: 'FIFO' }, /crate\/fifo, a FIFO entry/],
    [{ path: 'crate/tty', type: 'CharacterDevice' }, /crate\/tty, a CharacterDevice entry/],
    [{ path: 'crate/disk', type: 'BlockDevice' }, /crate\/disk, a BlockDevice entry/],
    [{ path: 'crate/passwd', type: 'SymbolicLink', linkpath: '/etc/passwd' }, /a link to \/etc\/passwd outside/],
    [{ path: 'crate/lib/up', type: 'SymbolicLink', linkpath: '../../..' }, /a link to \.\.\/\.\.\/\.\. outside/]
  ]
  for (const [entry, why] of cases) {
    const file = writeTarball(path.join(dir, 'bad.tar.gz'), [...releaseEntries(), entry])
    const cache = tempDir(t)
    await assert.rejects(unpack(file, await sha256OfFile(file), cache), (error) => {
      assert.match(error.message, why)
      assert.match(error.message, /is no whole CrateDB tarball .*: nothing kept$/)
      return true
    }, entry.path)
    assert.deepEqual(fs.readdirSync(path.join(cache, 'dist')), [], `nothing of ${entry.path} is kept`)
  }
  // A link that stays inside the top folder (a JDK's legal/ notices) is taken.
  assert.equal(refusal({ path: 'crate/jdk/legal/a/NOTICE', type: 'SymbolicLink', linkpath: '../b/NOTICE' }), null)
})

test('an archive that unpacks past the cap (a gzip bomb) stops there; an abort stops it at once; nothing is kept',
  async (t) => {
    const dir = tempDir(t)
    // 8 MB of zeros packs into a few kB.
    const bomb = writeTarball(path.join(dir, 'bomb.tar.gz'), [...releaseEntries(),
      { path: 'crate/lib/zeros', size: 8 * 1024 ** 2 }])
    assert.ok(fs.statSync(bomb).size < 64 * 1024)
    const cache = tempDir(t)
    const sha = await sha256OfFile(bomb)
    await assert.rejects(unpack(bomb, sha, cache, { maxBytes: 1024 ** 2 }),
      /is no whole CrateDB tarball \(it unpacks to more than 1 MB, the cap of --max_unpacked\): nothing kept$/)
    assert.deepEqual(fs.readdirSync(path.join(cache, 'dist')), [])
    const aborted = new AbortController()
    aborted.abort()
    await assert.rejects(unpack(bomb, sha, cache, { signal: aborted.signal }), (error) => {
      assert.match(error.message, /^interrupted while unpacking .*: nothing kept$/)
      assert.equal(error.exitCode, 4)
      return true
    })
    assert.deepEqual(fs.readdirSync(path.join(cache, 'dist')), [])
    // Under the cap it unpacks whole, into the folder of its SHA-256.
    assert.equal(await unpack(bomb, sha, cache), path.join(cache, 'dist', sha))
    assert.equal(fs.statSync(path.join(cache, 'dist', sha, 'lib', 'zeros')).size, 8 * 1024 ** 2)
  })

test('a tarball whose bytes are not those hashed before (swapped meanwhile) is not unpacked', async (t) => {
  const dir = tempDir(t)
  const file = writeTarball(path.join(dir, 'crate.tar.gz'), releaseEntries())
  const cache = tempDir(t)
  await assert.rejects(unpack(file, 'a'.repeat(64), cache), /it changed while it was unpacked/)
  assert.deepEqual(fs.readdirSync(path.join(cache, 'dist')), [])
})
