'use strict'

const fs = require('node:fs')
const path = require('node:path')

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

module.exports = { makeDirectories }
