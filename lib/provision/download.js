'use strict'

const fs = require('node:fs')
const path = require('node:path')
const crypto = require('node:crypto')
const { pipeline } = require('node:stream/promises')
const { Readable, Transform } = require('node:stream')
const { FatalError, EXIT } = require('../base/errors')
const { processRuns } = require('../base/processes')
const { formatMs } = require('../base/values')
const { replaceFile } = require('./owned-paths')

// A download into the cache: to a new temporary file, hashed on the way, and only then renamed into place. It ends
// at a size cap (an endless answer fills no disk), when no byte came for its timeout (a stalled server holds nothing
// for ever), and at once on Ctrl-C or SIGTERM; whatever way it ends early, nothing of it is kept. A temporary file or
// folder left by a tool killed outright (SIGKILL runs no cleanup) carries its pid in its name: the next start removes
// those whose tool is gone.

const DEFAULT_MAX_DOWNLOAD_BYTES = 1024 ** 3
const DEFAULT_DOWNLOAD_TIMEOUT_MS = 30_000
// A trickle (a byte a second) is no stall and never ends: a download must average this much over every minute. A 75 MB
// release takes at most 12.5 minutes at 100 kB/s.
const DEFAULT_MIN_RATE_BYTES = 100 * 1024
const RATE_WINDOW_MS = 60_000

const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MB`
const kb = (bytes) => `${Math.round(bytes / 1024)} kB`

/** A name for a temporary file or folder in `dir`, marked with this process's pid (see reclaimTemporaries). */
const temporaryName = (dir, prefix) => path.join(dir,
  `.${prefix}-${process.pid}-${crypto.randomBytes(4).toString('hex')}`)

const TEMPORARY = /^\.(.+)-([0-9]+)-[0-9a-f]{8}$/

/** Removes the temporary files and folders in `dir` whose tool no longer runs; returns their names. */
function reclaimTemporaries (dir, { runs = processRuns } = {}) {
  let names = []
  try {
    names = fs.readdirSync(dir)
  } catch {
    return []
  }
  const gone = names.filter((name) => {
    const m = TEMPORARY.exec(name)
    return m && Number(m[2]) !== process.pid && !runs(Number(m[2]))
  })
  for (const name of gone) fs.rmSync(path.join(dir, name), { recursive: true, force: true })
  return gone
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

/**
 * Bytes passed through with a watch on them: past `maxBytes`, or `idleMs` without one, the download is aborted
 * through `controller` with the reason said.
 */
function watched ({ maxBytes, idleMs, minRate, rateWindowMs, controller, url }) {
  let bytes = 0
  let timer = null
  const arm = () => {
    clearTimeout(timer)
    timer = setTimeout(() => controller.abort(new FatalError(`the download of ${url} stalled: no byte for ` +
      `${formatMs(idleMs)} (--download_timeout)`)), idleMs)
  }
  arm()
  // Every window: at least minRate a second over it, else the download ends (a trickle never stalls).
  let windowStart = 0
  const rate = minRate > 0 ? setInterval(() => {
    const got = bytes - windowStart
    windowStart = bytes
    if (got < minRate * rateWindowMs / 1000) {
      controller.abort(new FatalError(`the download of ${url} is too slow: ${got} bytes in the last ` +
        `${formatMs(rateWindowMs)}, under ${kb(minRate)}/s (--download_min_rate)`))
    }
  }, rateWindowMs) : null
  const stop = () => {
    clearTimeout(timer)
    clearInterval(rate)
  }
  return new Transform({
    transform (chunk, _encoding, done) {
      bytes += chunk.length
      if (bytes > maxBytes) {
        return done(new FatalError(`the download of ${url} passed the cap of ${mb(maxBytes)} (--max_download)`))
      }
      arm()
      done(null, chunk)
    },
    flush (done) {
      stop()
      done()
    },
    destroy (error, done) {
      stop()
      done(error)
    }
  })
}

/** The reason an aborted download ended: the cap or the stall said, an interruption as one. */
function abortReason (signal, url) {
  if (signal.reason instanceof FatalError) return signal.reason
  return Object.assign(new Error(`interrupted while downloading ${url}: nothing kept`), { exitCode: EXIT.PARTIAL })
}

/**
 * Downloads `url` into `dir` as `name`. A status other than 200, a body shorter than its Content-Length, the cap,
 * a stall, a SHA-256 other than `expected`, or `signal` leaves nothing behind. Returns { file, sha256 }.
 */
async function download (url, dir, name, { expected = null, fetchImpl = globalThis.fetch, log = () => {},
  signal = null, maxBytes = DEFAULT_MAX_DOWNLOAD_BYTES, timeoutMs = DEFAULT_DOWNLOAD_TIMEOUT_MS,
  minRate = DEFAULT_MIN_RATE_BYTES, rateWindowMs = RATE_WINDOW_MS } = {}) {
  const part = temporaryName(dir, `${name}.part`)
  const h = hashing()
  const controller = new AbortController()
  const onAbort = () => controller.abort(signal.reason)
  if (signal) {
    if (signal.aborted) onAbort()
    signal.addEventListener('abort', onAbort)
  }
  log(`downloading ${url}`)
  // Armed from the request on (a server that never answers stalls too); destroyed however the download ends, so that
  // its timer never holds an interrupted process for the stall timeout.
  const watch = watched({ maxBytes, idleMs: timeoutMs, minRate, rateWindowMs, controller, url })
  try {
    let source
    let length = 0
    if (url.startsWith('file:')) {
      source = fs.createReadStream(new URL(url))
    } else {
      const answer = await fetchImpl(url, { redirect: 'follow', signal: controller.signal })
      if (answer.status !== 200) {
        throw new FatalError(`cannot download ${url}: HTTP ${answer.status}${answer.status === 404
          ? ' (no such release for this platform?)' : ''}`)
      }
      length = Number(answer.headers.get('content-length'))
      if (length > maxBytes) {
        throw new FatalError(`${url} is ${mb(length)}, more than the cap of ${mb(maxBytes)} (--max_download)`)
      }
      source = Readable.fromWeb(answer.body)
    }
    await pipeline(source, watch, h.stream, fs.createWriteStream(part, { flags: 'wx', mode: 0o644 }),
      { signal: controller.signal })
    if (length > 0 && h.bytes() !== length) {
      throw new FatalError(`the download of ${url} ended after ${h.bytes()} of ${length} bytes: nothing kept`)
    }
  } catch (error) {
    fs.rmSync(part, { force: true })
    if (controller.signal.aborted) throw abortReason(controller.signal, url)
    if (error.exitCode !== undefined) throw error
    throw new FatalError(`cannot download ${url}: ${error.cause ? error.cause.message : error.message}`)
  } finally {
    if (signal) signal.removeEventListener('abort', onAbort)
    watch.destroy()
    controller.abort()
  }
  const sha256 = h.digest()
  if (expected && sha256 !== expected) {
    fs.rmSync(part, { force: true })
    throw new FatalError(`the download of ${url} has SHA-256 ${sha256}, not the ${expected} given: nothing kept`)
  }
  const file = path.join(dir, name)
  fs.renameSync(part, file)
  replaceFile(`${file}.sha256`, `${sha256}\n`)
  log(`downloaded ${mb(h.bytes())}, SHA-256 ${sha256}`)
  return { file, sha256 }
}

module.exports = { download, hashing, sha256OfFile, temporaryName, reclaimTemporaries, DEFAULT_MAX_DOWNLOAD_BYTES,
  DEFAULT_DOWNLOAD_TIMEOUT_MS, DEFAULT_MIN_RATE_BYTES }
