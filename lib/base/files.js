'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { UsageError } = require('./errors')

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
  if (fs.existsSync(file) && !fs.statSync(file).isFile()) {
    throw new UsageError(`--${flag} '${file}' is not a regular file`)
  }
  return path.resolve(String(file))
}

module.exports = { makeDirectories, writableFile }
