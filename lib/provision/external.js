'use strict'

const os = require('node:os')
const { visible } = require('../base/format')

// A cluster the tool did not start (a study's target): brought up and down by the user's own commands (a script,
// Terraform, kubectl apply of the manifest `crate-bench fleet manifest --start_cluster` writes), waited for until it
// answers with every node, and recorded from what it says of itself (sys.nodes), since nothing of it runs here. It
// is asked over its own HTTP endpoint, as the user the study file names, the password from the environment, TLS
// certificates verified; nothing of cluster/ is needed for that.

const POLL_MS = 2000
const SAID_EVERY_MS = 15_000
const SQL_TIMEOUT_MS = 10_000

const RECORD_SQL = "SELECT name, hostname, version['number'] AS version, version['build_hash'] AS build_hash, " +
  "os_info['available_processors'] AS cores, heap['max'] AS heap_max FROM sys.nodes ORDER BY name"

/** What the cluster says of itself, as text that cannot drive a terminal (its escapes shown, never sent). */
const said = (value) => (value === null || value === undefined ? null : visible(value))

const sleepFor = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

/** The rows `stmt` answers on `host` (its base URL), as `user` with `password`; throws with the reason. */
async function sqlAt (host, stmt, { user = 'crate', password = '', timeoutMs = SQL_TIMEOUT_MS, fetchImpl = fetch,
  args, whole = false }) {
  const auth = Buffer.from(`${user}:${password}`).toString('base64')
  let answer
  try {
    answer = await fetchImpl(`${host.replace(/\/$/, '')}/_sql`, { method: 'POST',
      body: JSON.stringify(args ? { stmt, args } : { stmt }),
      headers: { 'content-type': 'application/json', authorization: `Basic ${auth}` },
      signal: AbortSignal.timeout(timeoutMs) })
  } catch (error) {
    const cause = error.cause && (error.cause.code || error.cause.message)
    throw new Error(`${host}: ${error.name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : visible(cause ||
      error.message)}`)
  }
  const text = await answer.text()
  if (answer.status !== 200) {
    let message = text.slice(0, 300)
    try {
      message = JSON.parse(text).error.message
    } catch { /* its text */ }
    throw new Error(`${host}: HTTP ${answer.status}: ${visible(message)}`)
  }
  const body = JSON.parse(text)
  return whole ? body : body.rows
}

/** The rows `stmt` answers on the first of the target's hosts that answers (as its user), or throws the last why. */
async function askTarget (target, stmt, { password, fetchImpl, args, whole }) {
  let last = null
  for (const host of target.hosts) {
    try {
      return await sqlAt(host, stmt, { user: target.user ?? 'crate', password, fetchImpl, args, whole })
    } catch (error) {
      last = error
    }
  }
  throw last
}

/** The names of the nodes the target's hosts answer with (the first host that answers), or throws why none did. */
const nodesOf = async (target, options) => (await askTarget(target, 'SELECT name FROM sys.nodes ORDER BY name',
  options)).map((r) => said(r[0]))

/** `sql(stmt, args)` on the target (its first host that answers): CrateDB's whole answer ({ cols, rows, … }). */
const targetSql = (target, { password, fetchImpl }) => (stmt, args) => askTarget(target, stmt,
  { password, fetchImpl, args, whole: true })

/**
 * Until the target answers with every node it should have (target.nodes), within `waitMs`: its node names. Says how
 * far it is every 15 s; a wait past `waitMs` (or Ctrl-C) throws, naming the last answer.
 */
async function waitForTarget (target, { password, waitMs, log, signals, fetchImpl, sleep = sleepFor,
  now = Date.now }) {
  const began = now()
  let said = began
  let last = 'no answer yet'
  for (;;) {
    if (signals && signals.interrupted) throw Object.assign(new Error('interrupted'), { interrupted: true })
    try {
      const names = await nodesOf(target, { password, fetchImpl })
      if (names.length >= target.nodes) return names
      last = `${names.length} of ${target.nodes} nodes`
    } catch (error) {
      last = error.message
    }
    if (now() - began >= waitMs) {
      throw new Error(`did not answer with its ${target.nodes} node${target.nodes === 1 ? '' : 's'} within ` +
        `${Math.round(waitMs / 1000)} s (wait:): ${last}`)
    }
    if (now() - said >= SAID_EVERY_MS) {
      said = now()
      log(`  waiting for ${target.name}: ${last} after ${Math.round((now() - began) / 1000)} s`)
    }
    await sleep(POLL_MS)
  }
}

/** This machine's addresses: loopback, and each of its interfaces'. */
function localAddresses (interfaces = os.networkInterfaces()) {
  const list = Object.values(interfaces).flat().filter(Boolean).map((i) => i.address.toLowerCase())
  return new Set(['localhost', '::1', ...list])
}

/**
 * Whether every host of the target is an address of this machine (loopback or one of its interfaces'): then its
 * nodes' processes are here, and a run measures their CPU from /proc rather than from sys.nodes' samples.
 */
function onThisMachine (hosts, addresses = localAddresses()) {
  return hosts.every((h) => {
    const name = new URL(h).hostname.replace(/^\[|\]$/g, '').toLowerCase()
    return /^127\./.test(name) || addresses.has(name)
  })
}

/**
 * What the study records of the target, from the cluster itself: its nodes (name, host, cores, heap), version and
 * build; `on` says none of it ran on this machine.
 * @returns {Promise<object>} { kind: 'target', name, hosts, nodes, version, build_hash, node_list, on, found_at }
 */
async function recordTarget (target, { password, fetchImpl }) {
  const rows = await askTarget(target, RECORD_SQL, { password, fetchImpl })
  const node = (r) => ({ name: said(r[0]), hostname: said(r[1]), version: said(r[2]), build_hash: said(r[3]),
    cores: r[4], heap_max_bytes: r[5] })
  const list = rows.map(node)
  const one = (key) => [...new Set(list.map((n) => n[key]))]
  return { kind: 'target', name: target.name, hosts: target.hosts, nodes: list.length,
    version: one('version').length === 1 ? one('version')[0] : one('version'),
    build_hash: one('build_hash').length === 1 ? one('build_hash')[0] : one('build_hash'), node_list: list,
    on: onThisMachine(target.hosts) ? 'this machine (its addresses)' : 'hosts of their own (not this machine)',
    found_at: new Date().toISOString() }
}

module.exports = { onThisMachine, targetSql, waitForTarget, recordTarget, nodesOf, sqlAt, RECORD_SQL }
