'use strict'

const fs = require('node:fs')
const path = require('node:path')
const crypto = require('node:crypto')
const { UsageError, ToolError, EXIT } = require('./errors')
const { visible } = require('./format')
const { grouped } = require('./format')

/**
 * mkdir -p one level at a time: Node 20's recursive mkdir never returns for a path under /proc
 * (seen with --out /proc/x), where a plain mkdir fails at once. Each level is made new (a name that appears meanwhile,
 * a link included, fails), with `mode` whatever the umask when one is given. Returns the folders made, outermost first.
 */
function makeDirectories (dir, { mode } = {}) {
  const missing = []
  let at = path.resolve(dir)
  while (!fs.existsSync(at)) {
    missing.unshift(at)
    const parent = path.dirname(at)
    if (parent === at) break
    at = parent
  }
  for (const level of missing) {
    fs.mkdirSync(level, mode === undefined ? undefined : { mode })
    if (mode !== undefined) fs.chmodSync(level, mode)
  }
  return missing
}

/** A file the run can write at its end: found out before the run, not after it. */
function writableFile (file, flag) {
  const dir = path.dirname(path.resolve(String(file)))
  try {
    fs.accessSync(dir, fs.constants.W_OK)
  } catch {
    throw new UsageError(`--${flag} '${file}': the directory ${dir} does not exist or cannot be written`)
  }
  let link = null
  try {
    link = fs.lstatSync(file)
  } catch { /* does not exist yet: it will be created */ }
  if (link && link.isSymbolicLink() && !fs.existsSync(file)) {
    throw new UsageError(`--${flag} '${file}' is a symbolic link to nothing: name the file itself`)
  }
  if (fs.existsSync(file) && !fs.statSync(file).isFile()) {
    throw new UsageError(`--${flag} '${file}' is not a regular file`)
  }
  return path.resolve(String(file))
}

/**
 * The text of a regular file of at most `maxBytes`: never a device (/dev/zero), a FIFO (which would block for ever) or
 * a directory. What is wrong with it is `fail(why, detail)` thrown: 'missing', 'unreadable' (detail: the error's
 * message), 'not regular' or 'too large' (detail: its size); with `nullIfMissing`, a file not there is null.
 */
function boundedFileText (file, maxBytes, fail, { nullIfMissing = false } = {}) {
  let stat
  try {
    stat = fs.statSync(file)
  } catch (error) {
    if (error.code === 'ENOENT' && nullIfMissing) return null
    throw fail(error.code === 'ENOENT' ? 'missing' : 'unreadable', error.message)
  }
  if (!stat.isFile()) throw fail('not regular')
  if (stat.size > maxBytes) throw fail('too large', stat.size)
  try {
    return fs.readFileSync(file, 'utf8')
  } catch (error) {
    throw fail('unreadable', error.message)
  }
}

/**
 * A file the user names (.env, a query file, a result): `what` names it in the error; a file that cannot be read at
 * all is exit `unreadableExit`, one of the wrong kind or size a usage error.
 */
function readRegularFile (file, { what, maxBytes, unreadableExit = EXIT.USAGE }) {
  const shown = `${what} '${visible(file)}'`
  return boundedFileText(file, maxBytes, (why, detail) => {
    if (why === 'not regular') return new UsageError(`${shown} is not a regular file`)
    if (why === 'too large') {
      return new UsageError(`${shown} is ${grouped(detail)} bytes, more than the ${grouped(maxBytes)} it may have`)
    }
    const message = `${shown} cannot be read: ${why === 'missing' ? 'no such file' : detail}`
    return unreadableExit === EXIT.USAGE ? new UsageError(message) : new ToolError(message, unreadableExit)
  })
}

// A study's own files (grid.json, a capacity search's summary and steps): far larger is no file the tool wrote.
const MAX_STUDY_FILE_BYTES = 64 * 1024 * 1024

/**
 * The text of a study file the tool wrote (a regular file of at most MAX_STUDY_FILE_BYTES), or what is wrong with it
 * as `refuse(why)` throws it: "does not exist", "is not a regular file", "has N bytes, more than …". With
 * `nullIfMissing`, a file that is not there is null.
 */
function readStudyFile (file, refuse, { nullIfMissing = false } = {}) {
  return boundedFileText(file, MAX_STUDY_FILE_BYTES, (why, detail) => {
    if (why === 'missing') return refuse('does not exist')
    if (why === 'unreadable') return refuse(`cannot be read: ${detail}`)
    if (why === 'not regular') return refuse('is not a regular file')
    return refuse(`has ${grouped(detail)} bytes, more than the ${grouped(MAX_STUDY_FILE_BYTES)} a study's file has`)
  }, { nullIfMissing })
}

/** A study file's JSON object (never null, an array or a number), or `refuse(why)` thrown; `kind` names the object. */
function readStudyObject (file, refuse, { kind = 'an object', nullIfMissing = false } = {}) {
  const text = readStudyFile(file, refuse, { nullIfMissing })
  if (text === null) return null
  let value
  try {
    value = JSON.parse(text)
  } catch (error) {
    throw refuse(`is not JSON (${error.message})`)
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw refuse(`does not hold ${kind}`)
  return value
}

/** Whether two paths name one file (through links too): an output must never overwrite an input. */
function sameFile (a, b) {
  const real = (p) => {
    try {
      return fs.realpathSync.native(p)
    } catch {
      return path.resolve(p)
    }
  }
  return real(a) === real(b)
}

/** The SHA-256 of a file's bytes (hex), or null when it cannot be read. */
function fileSha256 (file) {
  try {
    return crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex')
  } catch {
    return null
  }
}

module.exports = { fileSha256, makeDirectories, writableFile, readRegularFile, readStudyFile, readStudyObject,
  sameFile }
