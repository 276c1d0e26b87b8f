'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { checkOwnedPath, writeNewFile, replaceFile, removeMadePath } = require('../../lib/provision/owned-paths')
const { tempDir } = require('../helpers/temp-files')
const { otherUser } = require('../helpers/other-user')

const { other, skip: asRootWhy } = otherUser({ who: 'a co-tenant', tests: 'the owned-path tests as root' })

test('as root, a folder on the way that another user owns, or that others may write to without the sticky bit, or ' +
  'a link of another user\'s, is refused in one line; root\'s own folders and a sticky /tmp are not',
{ skip: asRootWhy || false }, (t) => {
  const base = tempDir(t)
  fs.chmodSync(base, 0o755)
  const flag = '--dir'
  // A co-tenant's folder (the one a link was planted in, in the attack).
  const theirs = path.join(base, 'theirs')
  fs.mkdirSync(theirs)
  fs.chownSync(theirs, other.uid, other.gid)
  assert.throws(() => checkOwnedPath(path.join(theirs, 'cluster'), { flag }),
    new RegExp(`^UsageError: --dir ${theirs}/cluster: ${theirs} belongs to another user \\(uid ${other.uid}\\); as ` +
      'root the tool works only under folders of root that no one else may write to$'))
  // A folder all may write to, without the sticky bit.
  const open = path.join(base, 'open')
  fs.mkdirSync(open)
  fs.chmodSync(open, 0o777)
  assert.throws(() => checkOwnedPath(path.join(open, 'c'), { flag }),
    /open may be written by others \(mode 777, no sticky/)
  // The same with the sticky bit (as /tmp): others cannot replace what root makes there.
  const sticky = path.join(base, 'sticky')
  fs.mkdirSync(sticky)
  fs.chmodSync(sticky, 0o1777)
  assert.doesNotThrow(() => checkOwnedPath(path.join(sticky, 'c'), { flag }))
  // A link a co-tenant planted in a sticky folder, to a folder of root's: the link is theirs.
  const mine = path.join(base, 'mine')
  fs.mkdirSync(mine)
  const planted = path.join(sticky, 'planted')
  fs.symlinkSync(mine, planted)
  fs.lchownSync(planted, other.uid, other.gid)
  assert.throws(() => checkOwnedPath(path.join(planted, 'c'), { flag }), /planted belongs to another user/)
  // A link of root's that leads into a co-tenant's folder: where it leads counts.
  const lead = path.join(base, 'lead')
  fs.symlinkSync(theirs, lead)
  assert.throws(() => checkOwnedPath(path.join(lead, 'c'), { flag }), /theirs belongs to another user/)
  assert.doesNotThrow(() => checkOwnedPath(path.join(mine, 'a', 'b'), { flag }))
  assert.doesNotThrow(() => checkOwnedPath('/tmp', { flag }))
})

test('another user than root is not held to the co-tenant checks', (t) => {
  const open = tempDir(t)
  fs.chmodSync(open, 0o777)
  assert.doesNotThrow(() => checkOwnedPath(path.join(open, 'c'), { flag: '--dir', uid: 1000 }))
})

test('files are made new, never through a link planted at their name; a file is replaced by renaming over it', (t) => {
  const dir = tempDir(t)
  const secret = path.join(dir, 'secret')
  fs.writeFileSync(secret, 'root only', { mode: 0o600 })
  const planted = path.join(dir, 'cluster.json')
  fs.symlinkSync(secret, planted)
  assert.throws(() => writeNewFile(planted, 'overwritten?'), /EEXIST/)
  assert.equal(fs.readFileSync(secret, 'utf8'), 'root only')
  // replaceFile puts a new file in the link's place: the link is gone, what it pointed to untouched.
  replaceFile(planted, '{}\n')
  assert.equal(fs.lstatSync(planted).isFile(), true)
  assert.equal(fs.readFileSync(secret, 'utf8'), 'root only')
  assert.deepEqual(fs.readdirSync(dir).sort(), ['cluster.json', 'secret'], 'no temporary file left')
  // Removing a made path that has become a link removes the link only.
  const made = path.join(dir, 'node1')
  fs.symlinkSync(dir, made)
  removeMadePath(made)
  assert.equal(fs.existsSync(made), false)
  assert.equal(fs.readFileSync(secret, 'utf8'), 'root only')
})
