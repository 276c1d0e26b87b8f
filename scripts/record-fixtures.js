#!/usr/bin/env node
'use strict'

// Records the captured HTTP exchanges of test/fixtures again from a real CrateDB (CRATE_TEST_URL, default
// http://localhost:4200): each request of the contract's list replayed in order, its answer written back into its
// file with durations as "<float ms>". With CRATE_TEST_PG_URL the pgwire captures too (test/fixtures/pgwire): the
// client bytes of the pgwire contract sent again, each answer's messages and bytes written back. Then `npm test`
// shows what the double must learn of the new version. Usage: npm run fixtures:record [-- --out DIR]
// (CRATE_TEST_URL=http://host:4200 CRATE_TEST_PG_URL=postgres://crate@host:5432); DIR (default test/fixtures) gets
// the recorded files, DIR/pgwire the pgwire ones. Only doc.fixture_* tables are touched.

const fs = require('node:fs')
const path = require('node:path')
const { REPLAYED_IN_ORDER, replay, withoutDuration } = require('../test/helpers/contract')
const { replayPg, capture, essential, reframe, ROWS_NOT_COMPARED } = require('../test/helpers/pg-contract')

// The pgwire captures' table, and the name it has on the node while they are recorded.
const PG_TABLE = 'doc.pg_cpu'
const PG_OWN = 'doc.fixture_pg_cpu'

/** One line and exit 2: bad input to the script. */
function fail (message) {
  process.stderr.write(`fixtures:record: error: ${message}\n`)
  process.exit(2)
}

async function main () {
  const url = new URL(process.env.CRATE_TEST_URL || 'http://localhost:4200')
  const base = `${url.protocol}//${url.host}`
  const headers = url.username ? { authorization: `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:` +
    `${decodeURIComponent(url.password)}`).toString('base64')}` } : {}
  const from = path.join(__dirname, '..', 'test', 'fixtures')
  const at = process.argv.indexOf('--out')
  const dir = at >= 0 ? process.argv[at + 1] : from
  // Checked before the first exchange is replayed: a missing folder is one line, not a type error after the replay.
  if (at >= 0 && (!dir || dir.startsWith('--'))) fail('--out needs a folder: npm run fixtures:record -- --out DIR')
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) fail(`--out ${dir}: no such folder`)
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
  if (process.env.CRATE_TEST_PG_URL) await recordPg(new URL(process.env.CRATE_TEST_PG_URL), path.join(dir, 'pgwire'),
    (stmt) => replay(base, { request: { path: '/_sql', body: { stmt } } }, { headers }))
}

/** The pgwire captures again from the node's PostgreSQL port, into `dir`: each exchange's server side replaced. */
async function recordPg (pgUrl, dir, sql) {
  fs.mkdirSync(dir, { recursive: true })
  const captures = new Map()
  const answers = []
  // 03 answered DROP 1: the table existed before it.
  await sql(`CREATE TABLE IF NOT EXISTS ${PG_OWN} (a INT)`)
  try {
    await replayPg(Number(pgUrl.port || 5432), { host: pgUrl.hostname,
      rename: (text) => text.replaceAll(PG_TABLE, PG_OWN),
      onAnswer: (name, k, messages, bytes) => answers.push({ name, k, messages, bytes }) })
  } finally {
    await sql(`DROP TABLE IF EXISTS ${PG_OWN}`)
  }
  const back = (text) => text.replaceAll(PG_OWN, PG_TABLE)
  const changed = new Set()
  for (const { name, k, messages, bytes } of answers) {
    if (!captures.has(name)) captures.set(name, capture(name))
    const exchange = captures.get(name).exchanges[k]
    const recorded = JSON.parse(back(JSON.stringify(messages.map(messageOf))))
    const rows = !ROWS_NOT_COMPARED.has(name)
    if (JSON.stringify(essential(recorded, { rows })) !== JSON.stringify(essential(exchange.server.messages, { rows }))) {
      changed.add(name)
    }
    const typed = bytes.length > 1 && exchange.client.messages[0].type !== 'SSLRequest'
    exchange.server = { messages: recorded,
      bytes_base64: (typed ? reframe(bytes, back) : bytes).toString('base64') }
  }
  for (const [name, recorded] of captures) {
    fs.writeFileSync(path.join(dir, `${name}.json`), `${JSON.stringify(recorded, null, 2)}\n`)
  }
  process.stderr.write(`recorded ${answers.length} pgwire exchanges of ${captures.size} captures from ` +
    `${pgUrl.hostname}:${pgUrl.port || 5432} into ${dir}: ${changed.size} changed in what the tool relies on` +
    `${changed.size ? ` (${[...changed].join(', ')})` : ''}\n`)
}

/** A decoded message as the captures keep it: its fields, an error's message too, a length only for a data row. */
function messageOf (m) {
  const out = {}
  for (const [key, value] of Object.entries(m)) {
    if (value !== undefined && (key !== 'length' || m.name === 'dataRow')) out[key] = value
  }
  if (m.name === 'error' && m.message !== undefined) out.message = m.message
  return out
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
