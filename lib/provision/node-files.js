'use strict'

const fs = require('node:fs')
const path = require('node:path')

// What the tool reads from a node's folder, which belongs to the nodes' user: any process of that user (the
// distribution's own bin/crate, a plugin, a compromised node) can put a link, a FIFO or a device where a log was.
// As root, reading through it would print or copy for that user what they could not read alone (a root-only file)
// or hang on /dev/zero. So every folder on the way below the cluster's folder must be a real folder (no link), the
// file is opened without following a link and without blocking (a FIFO opens at once), and only a regular file
// owned by the nodes' user (or by the tool's own user) is read, and only its last `maxBytes`.

/** What is read of a log for its last lines. */
const TAIL_BYTES = 256 * 1024
/** What a study keeps of one log of a node that died: its end. */
const KEPT_BYTES = 8 * 1024 * 1024

const OPEN_FLAGS = fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0)

const ownUid = () => (process.getuid ? process.getuid() : null)

/**
 * Why `file` may not be read for the nodes of `uid` below `base` (the cluster's folder), or null: a part of its path
 * below `base` that is a link or no folder.
 */
function unsafeWay (file, base) {
  const relative = path.relative(base, path.dirname(file))
  if (relative.startsWith('..') || path.isAbsolute(relative)) return `${file} is not under ${base}`
  let at = base
  for (const part of relative.split(path.sep).filter(Boolean)) {
    at = path.join(at, part)
    let stat
    try {
      stat = fs.lstatSync(at)
    } catch {
      return `${at} is missing`
    }
    if (!stat.isDirectory()) return `${at} is ${stat.isSymbolicLink() ? 'a link' : 'no folder'}`
  }
  return null
}

/**
 * The last `maxBytes` of `file` (a node's log under the cluster's folder `base`) as text, or null with `why` set on
 * `refused` when it is not a regular file of the nodes' user `uid` reached through real folders (or missing).
 */
function readNodeFile (file, { base, uid, maxBytes = TAIL_BYTES, refused = [] }) {
  const way = unsafeWay(file, base)
  if (way) {
    if (!/is missing$/.test(way)) refused.push(way)
    return null
  }
  let fd
  try {
    fd = fs.openSync(file, OPEN_FLAGS)
  } catch (error) {
    if (error.code === 'ELOOP') refused.push(`${file} is a link`)
    else if (error.code !== 'ENOENT') refused.push(`${file} cannot be opened (${error.code})`)
    return null
  }
  try {
    const stat = fs.fstatSync(fd)
    if (!stat.isFile()) {
      refused.push(`${file} is no regular file`)
      return null
    }
    if (stat.uid !== uid && stat.uid !== ownUid()) {
      refused.push(`${file} belongs to uid ${stat.uid}, not the nodes' user`)
      return null
    }
    const length = Math.min(stat.size, maxBytes)
    const buffer = Buffer.alloc(length)
    let read = 0
    while (read < length) {
      const n = fs.readSync(fd, buffer, read, length - read, stat.size - length + read)
      if (n === 0) break
      read += n
    }
    return buffer.subarray(0, read).toString('utf8')
  } finally {
    fs.closeSync(fd)
  }
}

/** The names in folder `dir` (below `base`, reached through real folders only; itself no link), or []. */
function listNodeFolder (dir, { base }) {
  if (unsafeWay(path.join(dir, 'entry'), base) !== null) return []
  try {
    return fs.readdirSync(dir)
  } catch {
    return []
  }
}

/** The node's files its logs are read from: its output, and CrateDB's own log. */
const logFilesOf = (node, clusterName) => [node.log, path.join(node.dir, 'logs', `${clusterName}.log`)]

/**
 * The last `count` lines of a node's output and of its CrateDB log, each read as readNodeFile allows; a file refused
 * is said in a line of its own instead of its lines.
 */
function lastLogLines (node, state, count = 15) {
  const lines = []
  const base = path.dirname(node.dir)
  for (const file of logFilesOf(node, state.name)) {
    const refused = []
    const text = readNodeFile(file, { base, uid: state.run_uid, refused })
    if (text !== null) lines.push(...text.trimEnd().split('\n').slice(-count))
    for (const why of refused) lines.push(`(not read: ${why})`)
  }
  return lines.slice(-count)
}

module.exports = { readNodeFile, listNodeFolder, lastLogLines, logFilesOf, unsafeWay, TAIL_BYTES, KEPT_BYTES }
