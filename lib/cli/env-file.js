'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { readRegularFile } = require('../base/files')
const { addSecret } = require('../base/secrets')

// .env holds a few connection settings; a larger file, a FIFO or a device is not one (reading it would hang or fill
// memory before the run could say so).
const MAX_ENV_FILE_BYTES = 1024 * 1024

/**
 * Loads .env (or the file CRATE_BENCH_ENV_FILE names) into `env`, never over a variable that is already set, as
 * dotenv does. The password it holds is registered for masking before anything can print it.
 */
function loadEnvFile (env = process.env) {
  const file = env.CRATE_BENCH_ENV_FILE || '.env'
  let exists = false
  try {
    fs.lstatSync(file)
    exists = true
  } catch { /* no .env: the environment and flags alone */ }
  read = { file: path.resolve(file), found: exists, set: [] }
  if (exists) {
    const text = readRegularFile(file, { what: '.env', maxBytes: MAX_ENV_FILE_BYTES })
    const parsed = require('dotenv').parse(text)
    for (const [key, value] of Object.entries(parsed)) {
      if (env[key] !== undefined) continue
      env[key] = value
      read.set.push(key)
    }
  }
  addSecret(env.CRATE_PASSWORD)
}

// What the last loadEnvFile read: a run says which .env it took its settings from, or that there was none (started
// from another folder, the quick start's .env is not the one read, and a node that is not the user's gets the load).
let read = null

/** "  .env:     /home/u/bench/.env (CRATE_HOST, CRATE_PORT)", or that none was found; null before loadEnvFile. */
function envFileLine () {
  if (!read) return null
  if (!read.found) {
    return `  .env:     none (${read.file}): the connection is the flags', the environment's CRATE_*, else the ` +
      'defaults'
  }
  return `  .env:     ${read.file}${read.set.length ? ` (${read.set.join(', ')})` : ' (nothing it holds was not set ' +
    'already)'}`
}

module.exports = { loadEnvFile, envFileLine }
