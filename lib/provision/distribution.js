'use strict'

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const crypto = require('node:crypto')
const { UsageError, FatalError, EXIT } = require('../base/errors')
const { makeDirectories } = require('../base/files')
const { downloadUrl, parseVersion } = require('./platform')
const { download, hashing, sha256OfFile, temporaryName, reclaimTemporaries } = require('./download')
const { unpackInto, linksLeaving } = require('./unpack')
const { checkOwnedPath } = require('./owned-paths')

// A CrateDB distribution on this machine: a release downloaded once into a cache, or a tarball given, each unpacked
// once into a folder named by the tarball's SHA-256 and used read-only from then on, by every cluster started from it.
// A download goes to a temporary file, is hashed on the way (and checked against --sha256), unpacked into a temporary
// folder and only then renamed into place: a broken or half-finished download is never used, and never kept. A
// download taken from the cache is hashed again each time it is used: the file, not the text beside it, is checked.

// CrateDB unpacks to about 330 MB with its JDK: far more is no release (a gzip bomb stops here).
const DEFAULT_MAX_UNPACKED_BYTES = 2 * 1024 ** 3

/**
 * The cache: CRATE_BENCH_CACHE, else, as root, /var/cache/crate-bench (the nodes run as another user, who must read
 * the distribution: root's home is closed to them), else crate-bench under the user's cache folder.
 */
function cacheDirOf (env = process.env, { uid = process.getuid ? process.getuid() : null } = {}) {
  if (env.CRATE_BENCH_CACHE) return path.resolve(env.CRATE_BENCH_CACHE)
  if (uid === 0 && process.platform !== 'darwin') return ROOT_CACHE
  const home = os.homedir()
  const base = env.XDG_CACHE_HOME || (process.platform === 'darwin' ? path.join(home, 'Library', 'Caches')
    : path.join(home, '.cache'))
  return path.join(base, 'crate-bench')
}

const ROOT_CACHE = '/var/cache/crate-bench'

const SHA256 = /^[0-9a-f]{64}$/

function checkSha256 (text) {
  if (text === undefined || text === null) return null
  const sha = String(text).toLowerCase()
  if (!SHA256.test(sha)) throw new UsageError(`--sha256 must be 64 hexadecimal digits (got '${text}')`)
  return sha
}

/** A folder of the cache, made when missing (0755: the nodes' user reads the distribution); checked as root. */
function cacheFolder (dir) {
  checkOwnedPath(dir, { flag: 'the cache (CRATE_BENCH_CACHE)' })
  makeDirectories(dir, { mode: 0o755 })
  return dir
}

/**
 * The unpacked distribution of tarball `file` (SHA-256 `sha256`): <cache>/dist/<sha256>, unpacked once, from bytes
 * hashed as they are unpacked (a file swapped since it was hashed is refused). The tarball holds one top folder (its
 * name does not matter) with bin/crate; anything else, or a tarball that does not unpack whole, leaves nothing behind.
 */
async function unpack (file, sha256, cacheDir, { log = () => {}, signal = null,
  maxBytes = DEFAULT_MAX_UNPACKED_BYTES } = {}) {
  const distDir = cacheFolder(path.join(cacheDir, 'dist'))
  const home = path.join(distDir, sha256)
  if (fs.existsSync(path.join(home, 'bin', 'crate'))) {
    // Checked at every use: a cache an older version of the tool filled may hold what is refused now.
    const why = linksLeaving(home)
    if (why) throw new FatalError(`the cached distribution ${home} is refused: ${why}; remove it and start again`)
    return home
  }
  reclaimTemporaries(distDir)
  const scratch = temporaryName(distDir, 'unpack')
  // Closed to others while it fills; opened (0755) once whole and checked.
  fs.mkdirSync(scratch, { mode: 0o700 })
  const h = hashing()
  try {
    await unpackInto(file, scratch, { maxBytes, signal, hash: h.stream })
    if (h.digest() !== sha256) throw new Error(`it changed while it was unpacked (SHA-256 ${sha256} before)`)
    const top = fs.readdirSync(scratch)
    if (top.length !== 1 || !fs.lstatSync(path.join(scratch, top[0])).isDirectory()) {
      throw new Error(`it holds ${top.length} entries at its top, not the one folder of a CrateDB release`)
    }
    const why = linksLeaving(path.join(scratch, top[0]))
    if (why) throw new Error(why)
    fs.chmodSync(path.join(scratch, top[0]), 0o755)
    try {
      fs.renameSync(path.join(scratch, top[0]), home)
    } catch (error) {
      // Another start unpacked the same tarball meanwhile: its copy is as good.
      if (!fs.existsSync(path.join(home, 'bin', 'crate'))) throw error
    }
    log(`unpacked into ${home}`)
    return home
  } catch (error) {
    if (signal && signal.aborted) {
      throw Object.assign(new Error(`interrupted while unpacking ${file}: nothing kept`), { exitCode: EXIT.PARTIAL })
    }
    throw new FatalError(`${file} is no whole CrateDB tarball (${error.message}): nothing kept`)
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true })
  }
}

/**
 * The distribution to start: `version` (downloaded from CrateDB's release URL, or CRATE_BENCH_DOWNLOAD_URL's, once)
 * or `tarball` (a path, or an http(s) URL downloaded once). Returns { home, sha256, version, source }: `home` the
 * unpacked folder (read-only, shared), `version` as its jars say.
 */
async function resolveDistribution ({ version, tarball, sha256, env = process.env, fetchImpl, log = () => {},
  signal = null, maxDownloadBytes, downloadTimeoutMs, downloadMinRate, maxUnpackedBytes } = {}) {
  const expected = checkSha256(sha256)
  if ((version === undefined || version === null) === (tarball === undefined || tarball === null)) {
    throw new UsageError('give the distribution to start: --version X.Y.Z or --tarball PATH|URL (one of them)')
  }
  const cacheDir = cacheDirOf(env)
  const fetching = { expected, fetchImpl, log, signal, maxBytes: maxDownloadBytes, timeoutMs: downloadTimeoutMs,
    minRate: downloadMinRate }
  let file
  let digest
  let source
  if (version !== undefined && version !== null) {
    parseVersion(version)
    const url = downloadUrl(String(version), { env })
    source = { version: String(version), url }
    ;({ file, sha256: digest } = await cached(url, path.join(cacheDir, 'downloads'), `crate-${version}-` +
      `${path.basename(new URL(url).pathname)}`, fetching))
  } else if (/^https?:\/\//.test(String(tarball))) {
    const name = `${crypto.createHash('sha256').update(String(tarball)).digest('hex').slice(0, 12)}-` +
      `${path.basename(new URL(tarball).pathname) || 'crate.tar.gz'}`
    source = { url: String(tarball) }
    ;({ file, sha256: digest } = await cached(String(tarball), path.join(cacheDir, 'downloads'), name, fetching))
  } else {
    file = path.resolve(String(tarball))
    let stat
    try {
      stat = fs.statSync(file)
    } catch {
      throw new UsageError(`--tarball ${tarball}: no such file`)
    }
    if (!stat.isFile()) throw new UsageError(`--tarball ${tarball}: not a file`)
    source = { tarball: file }
    digest = await sha256OfFile(file)
    if (expected && digest !== expected) {
      throw new FatalError(`${file} has SHA-256 ${digest}, not the ${expected} given`)
    }
  }
  let home
  try {
    home = await unpack(file, digest, cacheDir, { log, signal, maxBytes: maxUnpackedBytes })
  } catch (error) {
    // A download that does not unpack is no distribution: the next start downloads it again.
    if (!source.tarball && error.exitCode !== EXIT.PARTIAL) forget(file)
    throw error
  }
  return { home, sha256: digest, version: versionOf(home), source, cache: cacheDir }
}

const forget = (file) => {
  fs.rmSync(file, { force: true })
  fs.rmSync(`${file}.sha256`, { force: true })
}

/**
 * A download in the cache, whole (its SHA-256 recorded beside it when it was downloaded, and its bytes hashed again
 * now), or downloaded now. A cached file whose bytes no longer have the recorded SHA-256 is dropped and downloaded
 * again; one that has it, but not the `expected` one, is refused.
 */
async function cached (url, dir, name, options) {
  cacheFolder(dir)
  reclaimTemporaries(dir)
  const file = path.join(dir, name)
  let recorded = null
  try {
    recorded = fs.readFileSync(`${file}.sha256`, 'utf8').trim()
    if (!SHA256.test(recorded) || !fs.lstatSync(file).isFile()) recorded = null
  } catch {
    recorded = null
  }
  if (recorded) {
    const digest = await sha256OfFile(file)
    if (digest !== recorded) {
      options.log(`${file} (cached) has SHA-256 ${digest}, not the ${recorded} it was downloaded with: dropped, ` +
        'downloading again')
      forget(file)
    } else if (options.expected && digest !== options.expected) {
      throw new FatalError(`${file} (cached) has SHA-256 ${digest}, not the ${options.expected} given`)
    } else {
      return { file, sha256: digest }
    }
  }
  return download(url, dir, name, options)
}

/** The CrateDB version of an unpacked distribution, from its jars' names; null where they name none. */
function versionOf (home) {
  let names = []
  try {
    names = fs.readdirSync(path.join(home, 'lib'))
  } catch {
    return null
  }
  for (const name of names) {
    const m = /^crate(?:-server|-app)?-([0-9]+\.[0-9]+\.[0-9]+)\.jar$/.exec(name)
    if (m) return m[1]
  }
  return null
}

module.exports = { resolveDistribution, cacheDirOf, unpack, versionOf, checkSha256, ROOT_CACHE,
  DEFAULT_MAX_UNPACKED_BYTES }
