'use strict'

// The rows of the bare reference loops (bench/bare-ingest.js over HTTP, bench/bare-pg.js over the PostgreSQL
// protocol): the TSBS cpu model's shape, distinct rows as the tool's, so that the stand-in stores what a table would.

const USAGE = ['usage_user', 'usage_system', 'usage_idle', 'usage_nice', 'usage_iowait', 'usage_irq',
  'usage_softirq', 'usage_steal', 'usage_guest', 'usage_guest_nice']
const COLUMNS = `"tags", "ts", ${USAGE.map((c) => `"${c}"`).join(', ')}`
const HOSTS = 4000

function hostTags (h) {
  return {
    hostname: `host_${h}`,
    region: 'eu-central-1',
    datacenter: 'eu-central-1a',
    rack: String(h % 100),
    os: 'Ubuntu16.04LTS',
    arch: 'x64',
    team: 'LON',
    service: String(h % 20),
    service_version: String(h % 2),
    service_environment: 'production'
  }
}

/**
 * The INSERT into `table` (a name the bench chose, never a user's) with `placeholder(i)` (1-based) for each of its
 * values: `?` for HTTP, `$i` for pg.
 */
function insertStatement (placeholder, table = 'doc.cpu') {
  const values = Array.from({ length: USAGE.length + 2 }, (_, i) => placeholder(i + 1))
  return `INSERT INTO ${table} (${COLUMNS}) VALUES (${values.join(', ')})`
}

/** `rows` rows in bulk request bodies of `batch` rows each ({"stmt": ..., "bulk_args": [...]}), as JSON text. */
function bulkBodies (rows, batch, stmt) {
  const tags = Array.from({ length: HOSTS }, (_, h) => hostTags(h))
  const bodies = []
  const start = Date.UTC(2026, 0, 1)
  for (let first = 0; first < rows; first += batch) {
    const args = []
    for (let i = first; i < Math.min(rows, first + batch); i++) {
      const row = [tags[i % HOSTS], start + Math.floor(i / HOSTS) * 10_000]
      for (let u = 0; u < USAGE.length; u++) row.push(Math.floor(Math.random() * 100))
      args.push(row)
    }
    bodies.push(JSON.stringify({ stmt, bulk_args: args }))
  }
  return bodies
}

module.exports = { insertStatement, bulkBodies }
