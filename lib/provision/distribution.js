'use strict'

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const crypto = require('node:crypto')
const { pipeline } = require('node:stream/promises')
const { Readable, Transform } = require('node:stream')
const { UsageError, FatalError } = require('../base/errors')
const { downloadUrl, parseVersion } = require('./platform')

// A CrateDB distribution on this machine: a release downloaded once into a cache, or a tarball given, each unpacked
// once into a folder named by the tarball's SHA-256 and used read-only from then on, by every cluster started from it.
// A download goes to a temporary file, is hashed on the way (and checked against --sha256), unpacked into a temporary
// folder and only then renamed into place: a broken or half-finished download is never used, and never kept.

/** The cache: CRATE_BENCH_CACHE, else crate-bench under the user's cache folder. */
function cacheDirOf (env = process.env) {
  if (env.CRATE_BENCH_CACHE) return path.resolve(env.CRATE_BENCH_CACHE)
  const home = os.homedir()
  const base = env.XDG_CACHE_HOME || (process.platform === 'darwin' ? path.join(home, 'Library', 'Caches')
    : path.join(home, '.cache'))
  return path.join(base, 'crate-bench')
}

const SHA256 = /^[0-9a-f]{64}$/

function checkSha256 (text) {
  if (text === undefined || text === null) return null
  const sha = String(text).toLowerCase()
  if (!SHA256.test(sha)) throw new UsageError(`--sha256 must be 64 hexadecimal digits (got '${text}')`)
  return sha
}

/** Passes bytes through and hashes them: a file is hashed as it is written, never read twice. */
function hashing () {
  const hash = crypto.createHash('sha256')
  let bytes = 0
  const stream = new Transform({
    transform (chunk, _encoding, done) {
      hash.update(chunk)
      bytes += chunk.length
      done(null, chunk)
    }
  })
  return { stream, digest: () => hash.digest('hex'), bytes: () => bytes }
}

async function sha256OfFile (file) {
  const h = hashing()
  await pipeline(fs.createReadStream(file), h.stream, new Transform({ transform: (c, e, done) => done() }))
  return h.digest()
}

const temporaryName = (dir, prefix) => path.join(dir,
  `.${prefix}-${process.pid}-${crypto.randomBytes(4).toString('hex')}`)

const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MB`

/**
 * Downloads `url` into `dir` as `name`: into a temporary file first, hashed on the way; a status other than 200, a
 * body shorter than its Content-Length or a SHA-256 other than `expected` leaves nothing behind. Returns
 * { file, sha256 }.
 */
async function download (url, dir, name, { expected = null, fetchImpl = globalThis.fetch, log = () => {} } = {}) {
  fs.mkdirSync(dir, { recursive: true })
  const part = temporaryName(dir, `${name}.part`)
  const h = hashing()
  log(`downloading ${url}`)
  try {
    if (url.startsWith('file:')) {
      await pipeline(fs.createReadStream(new URL(url)), h.stream, fs.createWriteStream(part, { mode: 0o644 }))
    } else {
      const answer = await fetchImpl(url, { redirect: 'follow' })
      if (answer.status !== 200) {
        throw new FatalError(`cannot download ${url}: HTTP ${answer.status}${answer.status === 404
          ? ' (no such release for this platform?)' : ''}`)
      }
      const length = Number(answer.headers.get('content-length'))
      await pipeline(Readable.fromWeb(answer.body), h.stream, fs.createWriteStream(part, { mode: 0o644 }))
      if (length > 0 && h.bytes() !== length) {
        throw new FatalError(`the download of ${url} ended after ${h.bytes()} of ${length} bytes: nothing kept`)
      }
    }
  } catch (error) {
    fs.rmSync(part, { force: true })
    if (error.exitCode !== undefined) throw error
    throw new FatalError(`cannot download ${url}: ${error.cause ? error.cause.message : error.message}`)
  }
  const sha256 = h.digest()
  if (expected && sha256 !== expected) {
    fs.rmSync(part, { force: true })
    throw new FatalError(`the download of ${url} has SHA-256 ${sha256}, not the ${expected} given: nothing kept`)
  }
  const file = path.join(dir, name)
  fs.renameSync(part, file)
  fs.writeFileSync(`${file}.sha256`, `${sha256}\n`)
  log(`downloaded ${mb(h.bytes())}, SHA-256 ${sha256}`)
  return { file, sha256 }
}

/**
 * The unpacked distribution of tarball `file` (SHA-256 `sha256`): <cache>/dist/<sha256>, unpacked once. The tarball
 * holds one top folder (its name does not matter) with bin/crate; anything else, or a tarball that does not unpack
 * whole, leaves nothing behind.
 */
async function unpack (file, sha256, cacheDir, { log = () => {} } = {}) {
  const distDir = path.join(cacheDir, 'dist')
  const home = path.join(distDir, sha256)
  if (fs.existsSync(path.join(home, 'bin', 'crate'))) return home
  fs.mkdirSync(distDir, { recursive: true })
  const scratch = temporaryName(distDir, 'unpack')
  fs.mkdirSync(scratch)
  try {
    const tar = require('tar')
    await tar.x({ file, cwd: scratch, strict: true, preservePaths: false, noChmod: false })
    const top = fs.readdirSync(scratch)
    if (top.length !== 1 || !fs.statSync(path.join(scratch, top[0])).isDirectory()) {
      throw new Error(`it holds ${top.length} entries at its top, not the one folder of a CrateDB release`)
    }
    if (!fs.existsSync(path.join(scratch, top[0], 'bin', 'crate'))) throw new Error('it has no bin/crate')
    fs.chmodSync(scratch, 0o755)
    try {
      fs.renameSync(path.join(scratch, top[0]), home)
    } catch (error) {
      // Another start unpacked the same tarball meanwhile: its copy is as good.
      if (!fs.existsSync(path.join(home, 'bin', 'crate'))) throw error
    }
    log(`unpacked into ${home}`)
    return home
  } catch (error) {
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
async function resolveDistribution ({ version, tarball, sha256, env = process.env, fetchImpl, log = () => {} }) {
  const expected = checkSha256(sha256)
  if ((version === undefined || version === null) === (tarball === undefined || tarball === null)) {
    throw new UsageError('give the distribution to start: --version X.Y.Z or --tarball PATH|URL (one of them)')
  }
  const cacheDir = cacheDirOf(env)
  let file
  let digest
  let source
  if (version !== undefined && version !== null) {
    parseVersion(version)
    const url = downloadUrl(String(version), { env })
    source = { version: String(version), url }
    ;({ file, sha256: digest } = await cached(url, path.join(cacheDir, 'downloads'), `crate-${version}-` +
      `${path.basename(new URL(url).pathname)}`, { expected, fetchImpl, log }))
  } else if (/^https?:\/\//.test(String(tarball))) {
    const name = `${crypto.createHash('sha256').update(String(tarball)).digest('hex').slice(0, 12)}-` +
      `${path.basename(new URL(tarball).pathname) || 'crate.tar.gz'}`
    source = { url: String(tarball) }
    ;({ file, sha256: digest } = await cached(String(tarball), path.join(cacheDir, 'downloads'), name,
      { expected, fetchImpl, log }))
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
    home = await unpack(file, digest, cacheDir, { log })
  } catch (error) {
    // A download that does not unpack is no distribution: the next start downloads it again.
    if (!source.tarball) fs.rmSync(file, { force: true })
    if (!source.tarball) fs.rmSync(`${file}.sha256`, { force: true })
    throw error
  }
  return { home, sha256: digest, version: versionOf(home), source, cache: cacheDir }
}

/** A download in the cache, whole (its SHA-256 recorded beside it), or downloaded now. */
async function cached (url, dir, name, options) {
  const file = path.join(dir, name)
  try {
    const recorded = fs.readFileSync(`${file}.sha256`, 'utf8').trim()
    if (SHA256.test(recorded) && fs.statSync(file).isFile()) {
      if (options.expected && recorded !== options.expected) {
        throw new FatalError(`${file} (cached) has SHA-256 ${recorded}, not the ${options.expected} given`)
      }
      return { file, sha256: recorded }
    }
  } catch (error) {
    if (error.exitCode !== undefined) throw error
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

module.exports = { resolveDistribution, cacheDirOf, download, unpack, versionOf, sha256OfFile, checkSha256 }
