'use strict'

const fs = require('node:fs')
const path = require('node:path')
const crypto = require('node:crypto')
const { UsageError } = require('../base/errors')

// Files and folders as root makes them on a machine others use too: a folder of another user on the way, or one
// others may write to without the sticky bit, is refused (a co-tenant could swap a part of the path for a link and
// have root write where they choose); every file and folder is created new (O_EXCL: an existing name, a planted
// link included, fails instead of being followed), and a file is replaced only by renaming a new one over it.

const uidOf = () => (process.getuid ? process.getuid() : null)

/** Whether others than the owner may write into a folder of `mode` (the group counts: it may hold others). */
const writableByOthers = (mode) => (mode & 0o022) !== 0 && (mode & 0o1000) === 0

/** Why `stat` (of `at`) is no safe part of a path for `uid`, or null. */
function unsafe (stat, at, uid) {
  if (stat.uid !== uid && stat.uid !== 0) return `${at} belongs to another user (uid ${stat.uid})`
  if (stat.isDirectory() && writableByOthers(stat.mode)) {
    return `${at} may be written by others (mode ${(stat.mode & 0o7777).toString(8)}, no sticky bit)`
  }
  return null
}

/**
 * As root (`uid` 0), refuses `target` (the `flag` the user gave) when a part of its path that exists, as written or
 * as its links resolve, belongs to another user or may be written by others without the sticky bit: one line naming
 * the part. Other users are not checked (nothing of theirs can be turned against root).
 */
function checkOwnedPath (target, { flag, uid = uidOf() } = {}) {
  if (uid !== 0) return
  const why = unsafePartOf(target, uid)
  if (why) {
    throw new UsageError(`${flag} ${target}: ${why}; as root the tool works only under folders of root that no one ` +
      'else may write to')
  }
}

/** Why a part of `target`'s path that exists (as written, then as its links resolve) is unsafe for `uid`, or null. */
function unsafePartOf (target, uid) {
  const absolute = path.resolve(String(target))
  const parts = absolute.split(path.sep).filter(Boolean)
  let at = path.sep
  let deepest = at
  for (const part of ['', ...parts]) {
    at = part ? path.join(at, part) : at
    let stat
    try {
      stat = fs.lstatSync(at)
    } catch (error) {
      if (error.code === 'ENOENT') break
      return `cannot look at ${at} (${error.code})`
    }
    const why = unsafe(stat, at, uid)
    if (why) return why
    deepest = at
  }
  // The folders the links on the way lead to, checked as they really are.
  let real = path.sep
  for (const part of fs.realpathSync.native(deepest).split(path.sep).filter(Boolean)) {
    real = path.join(real, part)
    const why = unsafe(fs.statSync(real), real, uid)
    if (why) return why
  }
  return null
}

/**
 * Refuses `file` (a study file that names commands to run: `what`) unless only the user running the tool (or root)
 * could have written it: the file and its folder, as their links resolve, belong to that user or to root and no one
 * else may write to them (a sticky folder counts as writable: anyone may add a script its commands call), and, as
 * root, no folder on the way may be swapped (checkOwnedPath). Otherwise whoever could write there would have their
 * commands run with the tool's user and environment (the password included). One line naming the part.
 */
function checkTrustedSource (file, { what, uid = uidOf() } = {}) {
  if (uid === null) return
  const refuse = (why) => new UsageError(`${file}: ${why}; its ${what} would run as ${uid === 0 ? 'root' : 'you'} ` +
    'with your environment: keep it in a folder only you can write to (not a shared one such as /tmp), or drop them')
  let real
  try {
    real = fs.realpathSync.native(file)
  } catch (error) {
    throw refuse(`cannot be looked at (${error.code})`)
  }
  for (const at of [real, path.dirname(real)]) {
    const stat = fs.statSync(at)
    if (stat.uid !== uid && stat.uid !== 0) throw refuse(`${at} belongs to another user (uid ${stat.uid})`)
    if ((stat.mode & 0o022) !== 0) {
      throw refuse(`${at} may be written by others (mode ${(stat.mode & 0o7777).toString(8)})`)
    }
  }
  const why = uid === 0 ? unsafePartOf(path.dirname(real), uid) : null
  if (why) throw refuse(why)
}

/** A new folder (mode 0755 whatever the umask); an existing name, a link included, fails with EEXIST. */
function makeNewDir (dir, mode = 0o755) {
  fs.mkdirSync(dir, { mode })
  fs.chmodSync(dir, mode)
}

/** `text` as a new file (never one that exists, never through a link). */
function writeNewFile (file, text, mode = 0o644) {
  fs.writeFileSync(file, text, { flag: 'wx', mode })
}

/** `text` replacing `file` whole: a new file of a name no one can guess, renamed over it (never written through). */
function replaceFile (file, text, mode = 0o644) {
  const temporary = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.` +
    `${crypto.randomBytes(4).toString('hex')}`)
  writeNewFile(temporary, text, mode)
  try {
    fs.renameSync(temporary, file)
  } catch (error) {
    fs.rmSync(temporary, { force: true })
    throw error
  }
}

/** Removes `at` when it is there: a link itself (never what it points to), a folder with all it holds. */
function removeMadePath (at) {
  let stat
  try {
    stat = fs.lstatSync(at)
  } catch {
    return
  }
  if (stat.isDirectory()) fs.rmSync(at, { recursive: true, force: true })
  else fs.unlinkSync(at)
}

module.exports = { checkOwnedPath, checkTrustedSource, makeNewDir, writeNewFile, replaceFile, removeMadePath,
  writableByOthers }
