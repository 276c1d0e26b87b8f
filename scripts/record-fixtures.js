#!/usr/bin/env node
'use strict'

// Records the captured HTTP exchanges of test/fixtures again from a real CrateDB (CRATE_TEST_URL, default
// http://localhost:4200): each request of the contract's list replayed in order, its answer written back into its
// file with durations as "<float ms>". Then `npm test` shows what the double must learn of the new version.
// Usage: npm run fixtures:record [-- --out DIR] (CRATE_TEST_URL=http://host:4200); DIR (default test/fixtures) gets
// the recorded files. Only doc.fixture_* tables are touched.

const fs = require('node:fs')
const path = require('node:path')
const { REPLAYED_IN_ORDER, replay, withoutDuration } = require('../test/helpers/contract')

async function main () {
  const url = new URL(process.env.CRATE_TEST_URL || 'http://localhost:4200')
  const base = `${url.protocol}//${url.host}`
  const headers = url.username ? { authorization: `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:` +
    `${decodeURIComponent(url.password)}`).toString('base64')}` } : {}
  const from = path.join(__dirname, '..', 'test', 'fixtures')
  const at = process.argv.indexOf('--out')
  const dir = at >= 0 ? process.argv[at + 1] : from
  const changed = []
  for (const name of REPLAYED_IN_ORDER) {
    const capture = JSON.parse(fs.readFileSync(path.join(from, `${name}.json`), 'utf8'))
    const got = await replay(base, capture, { headers })
    const response = { status: got.status, contentType: got.contentType, body: withoutDuration(got.body) }
    if (canonical(response) !== canonical(capture.response)) changed.push(name)
    fs.writeFileSync(path.join(dir, `${name}.json`), `${JSON.stringify({ ...capture, response }, null, 2)}\n`)
  }
  process.stderr.write(`recorded ${REPLAYED_IN_ORDER.length} exchanges from ${base} into ${dir}: ${changed.length} ` +
    `changed${changed.length ? ` (${changed.join(', ')})` : ''}\n`)
}

/** JSON with its keys sorted: two answers that differ only in key order are the same answer. */
function canonical (value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`
  if (value && typeof value === 'object') {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(',')}}`
  }
  return JSON.stringify(value)
}

main().catch((error) => {
  process.stderr.write(`record-fixtures: error: ${error.message}\n`)
  process.exit(3)
})
