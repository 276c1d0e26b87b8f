'use strict'

const crypto = require('node:crypto')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { UsageError } = require('../../base/errors')
const { readStudyObject } = require('../../base/files')
const { toolProcessRuns } = require('../../base/processes')

// One study per folder: a lock while a grid runs in it, and a grid.json read as a result is (a regular file of a
// bounded size holding an object), whose runs are those a grid of these settings can have made.

const LOCK = 'grid.lock'

// A lock is a line of JSON: anything longer was not written by this tool.
const MAX_LOCK_BYTES = 4096

/**
 * Takes DIR's lock for this process: { pid, host, started_at }. A lock of a living study on this machine refuses the
 * study; one of a process that is gone is taken over (`said` gets the line) by renaming it aside, so that of two
 * that find it stale at once exactly one takes it; one of another machine (a shared folder) cannot be judged and
 * refuses. A lock that is no regular file (a link, a FIFO, a folder) is never read: refused. Returns the release.
 */
function takeLock (dir, { said = () => {}, now = Date.now, alive = toolProcessRuns, name = LOCK, what = 'grid' } = {}) {
  const file = path.join(dir, name)
  const mine = JSON.stringify({ pid: process.pid, host: os.hostname(), started_at: new Date(now()).toISOString() })
  for (let attempt = 0; attempt < 20; attempt++) {
    try {
      createWhole(file, `${mine}\n`)
      return () => {
        try {
          if (fs.readFileSync(file, 'utf8').trim() === mine) fs.unlinkSync(file)
        } catch { /* already gone */ }
      }
    } catch (error) {
      if (error.code !== 'EEXIST') throw new UsageError(`--out '${dir}': cannot write its lock (${error.message})`)
    }
    const heldText = readLockText(file, dir)
    if (heldText === null) continue
    const held = parseLock(heldText)
    const since = held.started_at ? `, started ${held.started_at}` : ''
    if (held.host && held.host !== os.hostname()) {
      throw new UsageError(`--out '${dir}' is locked by a ${what} on ${held.host} (pid ${held.pid}${since}): one ` +
        `study a folder; if that ${what} is gone, delete ${file}`)
    }
    if (Number.isSafeInteger(held.pid) && held.pid > 0 && alive(held.pid)) {
      throw new UsageError(`--out '${dir}' is in use by another ${what} (pid ${held.pid}${since}): one study a ` +
        'folder; wait for it, stop it, or give another --out')
    }
    // One taker at a time (an exclusive file beside the lock): it removes the lock only if it is still the stale one
    // it read, so that of several that found it stale exactly one takes it.
    if (!withTakeover(file, () => {
      let current = null
      try {
        current = fs.readFileSync(file, 'utf8')
      } catch { /* gone: the next attempt creates it */ }
      if (current === heldText) fs.rmSync(file, { force: true })
    })) continue
    said(`a stale lock of pid ${held.pid ?? '?'}${since} taken over: that ${what} is no longer running`)
  }
  throw new UsageError(`--out '${dir}': another ${what} took its lock at the same moment`)
}

/**
 * Creates FILE holding TEXT, or fails with EEXIST, never seen without its text: a file created exclusively is empty
 * until its write, and another taker that reads it then (a loaded machine can hold the writer there for long) would
 * judge that empty lock stale and remove it: two studies in one folder. So the text goes into a file of this process
 * first, linked to FILE (a link is made whole or not at all, and never over an existing name); where the folder's
 * file system has no links, FILE is written exclusively as before.
 */
function createWhole (file, text) {
  const own = `${file}.${process.pid}.${crypto.randomBytes(6).toString('hex')}.new`
  fs.writeFileSync(own, text, { flag: 'wx' })
  try {
    fs.linkSync(own, file)
  } catch (error) {
    if (!NO_LINKS.has(error.code)) throw error
    fs.writeFileSync(file, text, { flag: 'wx' })
  } finally {
    fs.rmSync(own, { force: true })
  }
}

// What link() answers on a file system without hard links (FAT, some shared folders).
const NO_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS'])

// A takeover file older than this belongs to a taker that died in the middle: it is removed.
const TAKEOVER_STALE_MS = 5000

/** Runs `fn` holding FILE.takeover (exclusively); false (after a short wait) when another taker holds it. */
function withTakeover (file, fn) {
  const takeover = `${file}.takeover`
  try {
    fs.writeFileSync(takeover, String(process.pid), { flag: 'wx' })
  } catch {
    try {
      if (Date.now() - fs.statSync(takeover).mtimeMs > TAKEOVER_STALE_MS) fs.rmSync(takeover, { force: true })
    } catch { /* gone meanwhile */ }
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20)
    return false
  }
  try {
    fn()
    return true
  } finally {
    fs.rmSync(takeover, { force: true })
  }
}

/** The lock's text, or null when it went meanwhile; a lock that is no small regular file is refused. */
function readLockText (file, dir) {
  let stat
  try {
    stat = fs.lstatSync(file)
  } catch {
    return null
  }
  if (!stat.isFile() || stat.size > MAX_LOCK_BYTES) {
    throw new UsageError(`--out '${dir}': ${path.basename(file)} is not a lock this tool wrote (${stat.isSymbolicLink()
      ? 'a link' : stat.isFile() ? `${stat.size} bytes` : 'not a regular file'}): remove it if no study runs there`)
  }
  try {
    return fs.readFileSync(file, 'utf8')
  } catch {
    return null
  }
}

function parseLock (text) {
  try {
    const held = JSON.parse(text)
    return held && typeof held === 'object' ? held : {}
  } catch {
    return {}
  }
}

/**
 * DIR/grid.json as this tool wrote it, or null when there is none. A FIFO, a directory, a file past
 * MAX_STUDY_FILE_BYTES (a grid.json of 10,000 runs is about 20 MB), text that is not JSON, JSON that is not an
 * object, or runs that no grid of `repeat` rounds makes (a round outside 1…repeat, a round twice in a cell) refuse the
 * folder in one line.
 */
function readGridFile (file, { repeat }) {
  const refuse = (why) => new UsageError(`${file} ${why}: give another --out`)
  const saved = readStudyObject(file, refuse, { nullIfMissing: true, kind: 'a grid (an object)' })
  if (saved === null) return null
  if (saved.cells !== undefined && !Array.isArray(saved.cells)) throw refuse('has cells that are not a list')
  for (const cell of saved.cells || []) {
    if (cell === null || typeof cell !== 'object' || typeof cell.id !== 'string') {
      throw refuse('has a cell without an id')
    }
    const rounds = new Set()
    for (const run of cell.runs || []) {
      const r = run && run.round
      if (!Number.isSafeInteger(r) || r < 1 || r > repeat) {
        throw refuse(`holds a run of round ${JSON.stringify(r)} in cell ${cell.id}, outside --repeat ${repeat}`)
      }
      if (rounds.has(r)) throw refuse(`holds round ${r} of cell ${cell.id} twice`)
      rounds.add(r)
    }
  }
  return saved
}

/** "http://db1:4200 over http": the study's cluster in words. */
const clusterText = (c) => `${(c.hosts || []).join(', ')} over ${c.protocol}`

/**
 * The cluster a run measured against the study's: another host list or protocol than the study began with, or
 * another number of nodes than its first run found, is another study. Returns the reason, or null.
 */
function otherCluster (study, now) {
  if (!study) return null
  if (study.hosts && now.hosts && (JSON.stringify(study.hosts) !== JSON.stringify(now.hosts) ||
    study.protocol !== now.protocol)) {
    return `this study measured ${clusterText(study)}; the options now point at ${clusterText(now)}`
  }
  if (typeof study.nodes === 'number' && typeof now.nodes === 'number' && study.nodes !== now.nodes) {
    return `this study began on ${study.nodes} node${study.nodes === 1 ? '' : 's'}; this run found ${now.nodes}`
  }
  return null
}

module.exports = { takeLock, readGridFile, otherCluster, LOCK }
