'use strict'

const fs = require('node:fs')
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
  if (exists) {
    const text = readRegularFile(file, { what: '.env', maxBytes: MAX_ENV_FILE_BYTES })
    const parsed = require('dotenv').parse(text)
    for (const [key, value] of Object.entries(parsed)) if (env[key] === undefined) env[key] = value
  }
  addSecret(env.CRATE_PASSWORD)
}

module.exports = { loadEnvFile }
