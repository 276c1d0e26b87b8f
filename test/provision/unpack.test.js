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

test('a link that leaves the release through another link (sub -> ., then sub/sub/…/../..) is refused on disk, and ' +
  'so is a bin/ that is a link; a cached distribution holding one is refused at its use', async (t) => {
  const dir = tempDir(t)
  const deep = 12
  const escape = `${'sub/'.repeat(deep)}${'../'.repeat(deep)}etc`
  // As text the link stays inside (sub/.. cancels out); on disk sub is the top folder itself.
  assert.equal(refusal({ path: 'crate/lib/etc', type: 'SymbolicLink', linkpath: escape }), null)
  const cases = [
    [[...releaseEntries(), { path: 'crate/sub', type: 'SymbolicLink', linkpath: '.' },
      { path: 'crate/lib/etc', type: 'SymbolicLink', linkpath: `../${escape}` }],
    /it holds lib\/etc, a link that leads outside its top folder \(to \/etc\)/],
    [[...releaseEntries().filter((e) => !e.path.startsWith('crate/bin')),
      { path: 'crate/tools/', type: 'Directory' }, { path: 'crate/tools/crate', mode: 0o755, body: '' },
      { path: 'crate/bin', type: 'SymbolicLink', linkpath: 'tools' }], /its bin is no real folder/],
    [[...releaseEntries(), { path: 'crate/lib/gone', type: 'SymbolicLink', linkpath: 'missing/x' }],
      /lib\/gone, a link to missing\/x that leads nowhere/]
  ]
  for (const [entries, why] of cases) {
    const file = writeTarball(path.join(dir, 'bad.tar.gz'), entries)
    const cache = tempDir(t)
    await assert.rejects(unpack(file, await sha256OfFile(file), cache), (error) => {
      assert.match(error.message, why)
      assert.match(error.message, /: nothing kept$/)
      return true
    })
    assert.deepEqual(fs.readdirSync(path.join(cache, 'dist')), [], 'nothing kept')
  }
  // A distribution an older tool unpacked into the cache with such a link: refused when used.
  const file = writeTarball(path.join(dir, 'good.tar.gz'), releaseEntries())
  const sha = await sha256OfFile(file)
  const cache = tempDir(t)
  const home = await unpack(file, sha, cache)
  fs.symlinkSync('.', path.join(home, 'sub'))
  fs.symlinkSync(escape, path.join(home, 'lib', 'etc'))
  await assert.rejects(unpack(file, sha, cache), /the cached distribution .* is refused: it holds lib\/etc, a link /)
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
