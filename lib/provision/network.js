'use strict'

const net = require('node:net')
const { UsageError } = require('../base/errors')

// Where the nodes a start makes listen, and which cluster they join. Loopback only by default: a node on a shared
// machine's network would take anyone's load, and a password is all that guards its data there. A
// cluster across machines (a node on each host of its own) is asked for in so many words: --listen ADDRESS (the
// nodes listen there as well as on loopback, and other nodes reach them there), --seed_hosts (the transport
// addresses of the cluster's nodes on other hosts) and --cluster_name (one name every host's start shares).

const LOOPBACK = new Set(['127.0.0.1', '::1'])

/** Whether `address` is of the loopback class (127.0.0.0/8, ::1), where CrateDB runs its development checks only. */
const isLoopbackClass = (address) => /^127\./.test(address) || address === '::1'

/** --listen ADDRESS: one IP address of this machine, or null for loopback only. */
function listenOf (value) {
  if (value === undefined || value === null || value === '') return null
  const address = String(value).trim()
  if (!net.isIP(address)) throw new UsageError(`--listen must be an IP address of this machine (got '${value}')`)
  if (address === '0.0.0.0' || address === '::') {
    throw new UsageError('--listen must name one address: every address of this machine would put the nodes on ' +
      'every network it is on')
  }
  return LOOPBACK.has(address) ? null : address
}

/** --seed_hosts HOST:PORT,…: other hosts' nodes' transport addresses ([] without). Needs --listen. */
function seedHostsOf (value, listen) {
  const list = [].concat(value ?? []).flatMap((v) => String(v).split(',')).map((s) => s.trim()).filter(Boolean)
  if (list.length === 0) return []
  if (!listen) {
    throw new UsageError('--seed_hosts joins nodes on other hosts: give --listen ADDRESS too (the nodes listen on ' +
      'loopback only without it, where no other host reaches them)')
  }
  return list.map((text) => {
    const m = /^(?:\[([0-9a-fA-F:]+)\]|([A-Za-z0-9.-]+)):([0-9]{1,5})$/.exec(text)
    const host = m && (m[1] ?? m[2])
    const port = m ? Number(m[3]) : NaN
    if (!m || !(port >= 1 && port <= 65_535) || (m[1] && !net.isIPv6(host))) {
      throw new UsageError(`--seed_hosts: '${text}' is no HOST:PORT (a node's transport address on another host)`)
    }
    return `${m[1] ? `[${host}]` : host}:${port}`
  })
}

/** --cluster_name NAME: the name every host's nodes share (needed with --seed_hosts), or null for a new one. */
function clusterNameOf (value, seedHosts) {
  if (value === undefined || value === null || value === '') {
    if (seedHosts.length) {
      throw new UsageError('--seed_hosts: give --cluster_name too, the same on every host (a start names its ' +
        'cluster anew otherwise, and nodes of two names never join)')
    }
    return null
  }
  const name = String(value)
  if (!/^[a-z0-9][a-z0-9_-]{0,62}$/.test(name)) {
    throw new UsageError(`--cluster_name must be lowercase letters, digits, _ and - (at most 63; got '${value}')`)
  }
  return name
}

/**
 * With --listen, the host-based authentication of CrateDB's own crate.yml is all that guards the nodes on that network:
 * a --setting auth.host_based.* (turning it off, a trust rule) could open them to it, and is refused in one line.
 */
function checkAuthSettings (settings) {
  const opening = settings.find(([key]) => /^auth\.host_based(\.|$)/.test(key) || /^auth\.trust(\.|$)/.test(key))
  if (opening) {
    throw new UsageError(`--setting ${opening[0]} with --listen: the nodes on that network are guarded by CrateDB's ` +
      'host-based authentication as its crate.yml sets it (the superuser trusted through 127.0.0.1 only, a password ' +
      'asked of everyone else); a setting of it could open the cluster: leave it out')
  }
}

/** What a node's name carries of its host, so that the names of a cluster across hosts never meet: 10-0-0-5. */
const hostTag = (listen) => listen.replace(/[^0-9A-Za-z]+/g, '-').replace(/^-|-$/g, '')

/** The names of the nodes a start makes: NAME-nI, or NAME-<its address>-nI when they listen beyond loopback. */
const nodeNamesOf = ({ name, nodes, listen = null }) => Array.from({ length: nodes },
  (_, n) => `${name}${listen ? `-${hostTag(listen)}` : ''}-n${n + 1}`)

/**
 * The line a start beyond loopback says before anything starts. What guards the nodes there is CrateDB's host-based
 * authentication, on in its distribution's crate.yml: its superuser crate trusted from the node's own machine only,
 * every other client asked a password (a user made with CREATE USER … WITH (password = …)).
 */
const listenWarning = (listen, ports) => `warning: the nodes listen on ${listen} as well as loopback (ports ` +
  `${ports.join(', ')}): whoever reaches ${listen} can try them. CrateDB lets its superuser crate in through ` +
  `127.0.0.1 only (not through ${listen}, even from this machine) and asks every other client a password (its ` +
  'host-based authentication, on by default; --setting auth.host_based.* is refused with --listen). Their transport ' +
  'ports admit any node that knows the cluster\'s name unless TLS is set up for them: keep that network to yourself'

module.exports = { isLoopbackClass, listenOf, seedHostsOf, clusterNameOf, nodeNamesOf, listenWarning, hostTag,
  checkAuthSettings }
