'use strict'

const crypto = require('node:crypto')

// What every generator of a fleet must share: the same workload, data model, batch, seed, scale, table, load
// shape… A generator whose options differ would write other rows or measure another run. Left out: what is this
// generator's own (its index, its hosts, its files, its port) and what the fleet shares by construction.
const OWN = new Set([
  'hosts', 'user', 'password', 'insecure', 'generator', 'generators', 'run_id', 'report', 'json', 'progress',
  'metrics', 'metrics_port', 'metrics_host', 'start_at', 'barrier_timeout_ms', 'fleet_table', 'results_table',
  'monitor_interval_ms', 'max_answer_bytes'
])

/** The options to compare, from the run's described options (snake_case, as in --json). */
function comparedOptions (described, { seedGiven = true } = {}) {
  const compared = {}
  for (const key of Object.keys(described).sort()) {
    if (OWN.has(key)) continue
    if (key === 'seed' && !seedGiven) continue
    compared[key] = described[key]
  }
  return compared
}

function optionsDigest (compared) {
  return crypto.createHash('sha256').update(JSON.stringify(compared)).digest('hex').slice(0, 16)
}

/** The options that differ, as "name: here X, there Y", in a stable order. */
function differences (here, there) {
  const keys = [...new Set([...Object.keys(here), ...Object.keys(there)])].sort()
  return keys
    .filter((key) => JSON.stringify(here[key]) !== JSON.stringify(there[key]))
    .map((key) => `${key}: ${show(here[key])} here, ${show(there[key])} there`)
}

const show = (value) => (value === undefined ? '(not set)' : JSON.stringify(value))

module.exports = { comparedOptions, optionsDigest, differences }
