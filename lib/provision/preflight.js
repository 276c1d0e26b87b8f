'use strict'

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawnSync } = require('node:child_process')
const { UsageError, FatalError } = require('../base/errors')
const { isLoopbackClass } = require('./network')

// What is checked before a node starts, each failure one line: the heap (a size CrateDB takes), memory for every
// node's heap, free disk under the cluster's folder, and, as root, the user the nodes run as (CrateDB refuses root)
// and whether that user reaches the distribution and the folder.

const UNITS = { k: 1024, m: 1024 ** 2, g: 1024 ** 3 }

/** A heap's text as CrateDB's CRATE_HEAP_SIZE takes it ("1g", "512m"): { text, bytes }, or `flag` named in one line. */
function heapSize (text, flag = '--heap') {
  const m = /^([1-9][0-9]*)([kmg])$/i.exec(String(text))
  if (!m) throw new UsageError(`${flag} must be a size such as 512m or 2g (got '${text}')`)
  return { text: `${m[1]}${m[2].toLowerCase()}`, bytes: Number(m[1]) * UNITS[m[2].toLowerCase()] }
}

/** The heap of a node started here: a size, and at least the 256m a node needs. */
function parseHeap (text) {
  const heap = heapSize(text)
  if (heap.bytes < 256 * UNITS.m) throw new UsageError(`--heap ${text} is below the 256m a CrateDB node needs to start`)
  return heap
}

const gb = (bytes) => `${(bytes / UNITS.g).toFixed(1)} GB`

/** Memory the machine can give now: MemAvailable where /proc says it, else what the OS calls free. */
function availableMemory ({ procRoot = '/proc' } = {}) {
  try {
    const m = /^MemAvailable:\s+([0-9]+) kB/m.exec(fs.readFileSync(`${procRoot}/meminfo`, 'utf8'))
    if (m) return Number(m[1]) * 1024
  } catch {
    // No /proc (macOS): what the OS calls free.
  }
  return os.freemem()
}

// Beyond its heap a node needs memory of its own (direct buffers, metaspace, threads): a quarter more, at least.
const OFF_HEAP_SHARE = 0.25

function checkMemory (nodes, heap, { available = availableMemory() } = {}) {
  const needed = nodes * heap.bytes * (1 + OFF_HEAP_SHARE)
  if (needed > available) {
    throw new UsageError(`${nodes} node${nodes === 1 ? '' : 's'} × ${heap.text} heap need about ${gb(needed)} of ` +
      `memory (the heap and a quarter more); ${gb(available)} is available: fewer nodes or a smaller --heap`)
  }
}

// Each node's data, logs and GC logs to start and take a benchmark's tables: below this the start is refused.
const DISK_PER_NODE = UNITS.g
// CrateDB's low disk watermark: above it no new shard goes to the node.
const WATERMARK_USED_SHARE = 0.85

/** Free disk under `dir` for `nodes` nodes; a warning line when the disk is past CrateDB's low watermark, else null. */
function checkDisk (dir, nodes, { statfs = fs.statfsSync } = {}) {
  let existing = dir
  while (!fs.existsSync(existing) && path.dirname(existing) !== existing) existing = path.dirname(existing)
  const s = statfs(existing)
  const free = s.bavail * s.bsize
  if (free < nodes * DISK_PER_NODE) {
    throw new UsageError(`${existing} has ${gb(free)} free; ${nodes} node${nodes === 1 ? '' : 's'} need at least ` +
      `${gb(nodes * DISK_PER_NODE)}: give --dir on a larger disk`)
  }
  const used = 1 - s.bavail / s.blocks
  return used > WATERMARK_USED_SHARE ? `warning: the disk of ${existing} is ${Math.round(used * 100)}% full, ` +
    `past CrateDB's low watermark (85%): its nodes will not take new shards` : null
}

/** A user of /etc/passwd: { name, uid, gid, home } or null. */
function userOf (name, { passwd = '/etc/passwd' } = {}) {
  let text = ''
  try {
    text = fs.readFileSync(passwd, 'utf8')
  } catch {
    return null
  }
  for (const line of text.split('\n')) {
    const [user, , uid, gid, , home] = line.split(':')
    if (user === name) return { name, uid: Number(uid), gid: Number(gid), home }
  }
  return null
}

/**
 * Whom the nodes run as: null when this process is not root (they run as its user); as root, `runAs` (CrateDB
 * refuses to run as root), which must exist and not be root itself.
 */
function nodeUser (runAs = 'crate', { uid = process.getuid ? process.getuid() : null, passwd } = {}) {
  if (uid !== 0) return null
  const user = userOf(runAs, { passwd })
  if (!user) {
    throw new UsageError(`CrateDB refuses to run as root, and the user ${runAs} the nodes would run as does not ` +
      `exist: create it (useradd --system --no-create-home --shell /usr/sbin/nologin ${runAs}) or give --run_as USER`)
  }
  if (user.uid === 0) throw new UsageError(`--run_as ${runAs} is root: CrateDB refuses to run as root`)
  return user
}

/**
 * Whether `user` reaches what its nodes read and write: the distribution (`home`) and the cluster's folder (`dir`).
 * Asked as that user, so that every folder's mode on the way counts (a cache under /root, mode 700, does not do).
 */
function checkReach (user, { home, dir, run = spawnSync }) {
  if (!user) return
  const answer = run('/bin/sh', ['-c', 'test -r "$1/bin/crate" && test -x "$1/bin" && test -r "$1/lib" || exit 3; ' +
    'test -x "$2" || exit 4', 'sh', home, dir], { uid: user.uid, gid: user.gid, timeout: 10_000 })
  if (answer.status === 3) {
    throw new FatalError(`the nodes run as ${user.name}, who cannot read the distribution at ${home}: put the cache ` +
      `where ${user.name} can read it (CRATE_BENCH_CACHE, e.g. /var/cache/crate-bench)`)
  }
  if (answer.status === 4) {
    throw new FatalError(`the nodes run as ${user.name}, who cannot reach ${dir}: give --dir where ` +
      `${user.name} can (every folder above it open to others)`)
  }
  if (answer.status !== 0) {
    throw new FatalError(`cannot check what ${user.name} may read: ${answer.error ? answer.error.message
      : `exit ${answer.status}`}`)
  }
}

// A node bound beyond loopback runs CrateDB's production bootstrap checks, and exits (code 78) when the machine falls
// short: these two are the ones a test machine or a fresh VM misses.
const LISTEN_MIN_OPEN_FILES = 65_536
const LISTEN_MIN_MAP_COUNT = 262_144

/** A number /proc tells (`file`, its `pick` of the text), or null where it cannot be read. */
function procNumber (file, pick) {
  try {
    const value = Number(pick(fs.readFileSync(file, 'utf8')))
    return Number.isFinite(value) ? value : null
  } catch {
    return null
  }
}

/**
 * With --listen, what CrateDB's bootstrap checks would refuse, before anything starts: the open-files limit the nodes
 * inherit (this process's) and vm.max_map_count. One line naming what to raise, or nothing where /proc cannot tell.
 */
function checkListenLimits (listen, { procRoot = '/proc' } = {}) {
  // CrateDB runs its production checks only on a node bound beyond the loopback class.
  if (!listen || isLoopbackClass(listen)) return
  const openFiles = procNumber(path.join(procRoot, 'self', 'limits'), (text) => {
    const line = text.split('\n').find((l) => l.startsWith('Max open files'))
    return line ? line.trim().split(/\s+/)[3] : NaN
  })
  if (openFiles !== null && openFiles < LISTEN_MIN_OPEN_FILES) {
    throw new UsageError(`--listen: a node others reach runs CrateDB's production checks, and its open-files limit ` +
      `would be ${openFiles}, below the ${LISTEN_MIN_OPEN_FILES} they need: raise it for the start (ulimit -n ` +
      `${LISTEN_MIN_OPEN_FILES}, prlimit --nofile=${LISTEN_MIN_OPEN_FILES}, or LimitNOFILE= of its service)`)
  }
  const maps = procNumber(path.join(procRoot, 'sys', 'vm', 'max_map_count'), (text) => text.trim())
  if (maps !== null && maps < LISTEN_MIN_MAP_COUNT) {
    throw new UsageError(`--listen: a node others reach runs CrateDB's production checks, and vm.max_map_count is ` +
      `${maps}, below the ${LISTEN_MIN_MAP_COUNT} they need: sysctl -w vm.max_map_count=${LISTEN_MIN_MAP_COUNT} ` +
      '(the tool changes no setting of the machine)')
  }
}

module.exports = { heapSize, parseHeap, checkMemory, checkDisk, nodeUser, checkReach, userOf, availableMemory,
  checkListenLimits, LISTEN_MIN_OPEN_FILES, LISTEN_MIN_MAP_COUNT }
