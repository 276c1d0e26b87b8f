'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { UsageError, ToolError, EXIT } = require('./errors')
const { visible } = require('./format')
const { grouped } = require('./format')

/**
 * mkdir -p one level at a time: Node 20's recursive mkdir never returns for a path under /proc
 * (seen with --out /proc/x), where a plain mkdir fails at once.
 */
function makeDirectories (dir) {
  const missing = []
  let at = path.resolve(dir)
  while (!fs.existsSync(at)) {
    missing.unshift(at)
    const parent = path.dirname(at)
    if (parent === at) break
    at = parent
  }
  for (const level of missing) fs.mkdirSync(level)
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
 * The text of a regular file of at most `maxBytes`: never a device (/dev/zero), a FIFO (which would block for
 * ever) or a directory. `what` names the file in the error; a file that cannot be read at all is exit
 * `unreadableExit`, one of the wrong kind or size a usage error.
 */
function readRegularFile (file, { what, maxBytes, unreadableExit = EXIT.USAGE }) {
  const shown = `${what} '${visible(file)}'`
  const unreadable = (why) => {
    const message = `${shown} cannot be read: ${why}`
    if (unreadableExit === EXIT.USAGE) return new UsageError(message)
    return new ToolError(message, unreadableExit)
  }
  let stat
  try {
    stat = fs.statSync(file)
  } catch (error) {
    throw unreadable(error.code === 'ENOENT' ? 'no such file' : error.message)
  }
  if (!stat.isFile()) throw new UsageError(`${shown} is not a regular file`)
  if (stat.size > maxBytes) {
    throw new UsageError(`${shown} is ${grouped(stat.size)} bytes, more than the ` +
      `${grouped(maxBytes)} it may have`)
  }
  try {
    return fs.readFileSync(file, 'utf8')
  } catch (error) {
    throw unreadable(error.message)
  }
}

// A study's own files (grid.json, a capacity search's summary and steps): far larger is no file the tool wrote.
const MAX_STUDY_FILE_BYTES = 64 * 1024 * 1024

/**
 * The text of a study file the tool wrote (a regular file of at most MAX_STUDY_FILE_BYTES), or what is wrong with it
 * as `refuse(why)` throws it: "does not exist", "is not a regular file", "has N bytes, more than …". With `missing`,
 * a file that is not there returns it instead.
 */
function readStudyFile (file, refuse, { missing } = {}) {
  let stat
  try {
    stat = fs.statSync(file)
  } catch (error) {
    if (missing !== undefined && error.code === 'ENOENT') return missing
    throw refuse(error.code === 'ENOENT' ? 'does not exist' : `cannot be read: ${error.message}`)
  }
  if (!stat.isFile()) throw refuse('is not a regular file')
  if (stat.size > MAX_STUDY_FILE_BYTES) {
    throw refuse(`has ${grouped(stat.size)} bytes, more than the ${grouped(MAX_STUDY_FILE_BYTES)} a study's file has`)
  }
  return fs.readFileSync(file, 'utf8')
}

/** A study file's JSON object (never null, an array or a number), or `refuse(why)` thrown; `kind` names the object. */
function readStudyObject (file, refuse, { kind = 'an object', ...options } = {}) {
  const text = readStudyFile(file, refuse, options)
  if ('missing' in options && text === options.missing) return text
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
      return fs.realpathSync(p)
    } catch {
      return path.resolve(p)
    }
  }
  return real(a) === real(b)
}

module.exports = {
  makeDirectories, writableFile, readRegularFile, readStudyFile, readStudyObject, sameFile, MAX_STUDY_FILE_BYTES
}
