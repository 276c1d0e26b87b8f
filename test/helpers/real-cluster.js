'use strict'

// Integration tests run against a real CrateDB when CRATE_TEST_URL is set, e.g.
// CRATE_TEST_URL=http://localhost:4200 or https://user:password@cluster.example:4200, and against a
// real multi-node cluster when CRATE_TEST_URLS lists its nodes (comma-separated, credentials in the first).

const { CrateClient } = require('../../lib/cluster/http-client')

const url = process.env.CRATE_TEST_URL ? new URL(process.env.CRATE_TEST_URL) : null
const SKIP = url ? false : 'CRATE_TEST_URL is not set: integration tests against a real CrateDB skipped'

function clusterEnv (extra = {}) {
  const ssl = url.protocol === 'https:'
  return {
    CRATE_HOST: url.hostname,
    CRATE_PORT: url.port || '4200',
    CRATE_SSL: String(ssl),
    CRATE_USER: decodeURIComponent(url.username) || 'crate',
    CRATE_PASSWORD: decodeURIComponent(url.password),
    ...extra
  }
}

function clusterClient () {
  const env = clusterEnv()
  return new CrateClient({
    hosts: [{ protocol: env.CRATE_SSL === 'true' ? 'https' : 'http', hostname: env.CRATE_HOST,
      port: Number(env.CRATE_PORT) }],
    user: env.CRATE_USER,
    password: env.CRATE_PASSWORD,
    timeoutMs: 60_000
  })
}

const nodeUrls = (process.env.CRATE_TEST_URLS || '').split(',').map((u) => u.trim()).filter(Boolean)
  .map((u) => new URL(u))
const SKIP_MULTI_NODE = nodeUrls.length >= 2 ? false : 'CRATE_TEST_URLS does not list two or more nodes: integration ' +
  'tests against a real multi-node cluster skipped'

/** Env for the tool pointed at every node of CRATE_TEST_URLS, plus `extraHosts`. */
function multiNodeEnv (extraHosts = []) {
  const first = nodeUrls[0]
  const hosts = nodeUrls.map((u) => `${u.protocol}//${u.hostname}:${u.port || '4200'}`)
  return {
    CRATE_HOST: [...hosts, ...extraHosts].join(','),
    CRATE_USER: decodeURIComponent(first.username) || 'crate',
    CRATE_PASSWORD: decodeURIComponent(first.password)
  }
}

/** A table name of our own, so tests never touch a user's data. */
function scratchTable (prefix) {
  return `doc.${prefix}_${process.pid}_${Date.now().toString(36)}`
}

module.exports = { SKIP, SKIP_MULTI_NODE, clusterEnv, clusterClient, multiNodeEnv, scratchTable }
