'use strict'

const fs = require('node:fs')

// Who listens on a port of this machine, from /proc: the socket inodes in /proc/net/tcp(6) in the LISTEN state, and
// the process holding one of them among its file descriptors. Where /proc says nothing (another system, or a
// process this user may not read), nothing is known: null.

/** The socket inodes listening on `port` (IPv4 and IPv6), from /proc/net; empty where /proc says nothing. */
function listeningInodes (port, { procRoot = '/proc' } = {}) {
  const inodes = new Set()
  for (const table of ['tcp', 'tcp6']) {
    let text = ''
    try {
      text = fs.readFileSync(`${procRoot}/net/${table}`, 'utf8')
    } catch {
      continue
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/)
      // local_address is ADDR:PORT in hex; state 0A is LISTEN.
      if (fields.length < 10 || fields[3] !== '0A') continue
      if (parseInt(fields[1].split(':').pop(), 16) === port) inodes.add(fields[9])
    }
  }
  return inodes
}

/** The pid of the process listening on `port`, where this user may read it in /proc; null otherwise. */
function holderPid (port, { procRoot = '/proc' } = {}) {
  const inodes = listeningInodes(port, { procRoot })
  if (inodes.size === 0) return null
  let pids = []
  try {
    pids = fs.readdirSync(procRoot).filter((name) => /^[0-9]+$/.test(name))
  } catch {
    return null
  }
  for (const pid of pids) {
    let fds = []
    try {
      fds = fs.readdirSync(`${procRoot}/${pid}/fd`)
    } catch {
      continue
    }
    for (const fd of fds) {
      let link = ''
      try {
        link = fs.readlinkSync(`${procRoot}/${pid}/fd/${fd}`)
      } catch {
        continue
      }
      const m = /^socket:\[([0-9]+)\]$/.exec(link)
      if (m && inodes.has(m[1])) return Number(pid)
    }
  }
  return null
}

/** "pid 1234 (java)": who holds `port`, where this user may read it in /proc; null otherwise. */
function holderOf (port, { procRoot = '/proc' } = {}) {
  const pid = holderPid(port, { procRoot })
  if (pid === null) return null
  let name = '?'
  try {
    name = fs.readFileSync(`${procRoot}/${pid}/comm`, 'utf8').trim()
  } catch {
    // Gone meanwhile, or not ours to read: the pid alone says enough.
  }
  return `pid ${pid} (${name})`
}

// The main class bin/crate starts: what a CrateDB node's command line names, and a forwarder's (kubectl port-forward,
// ssh -L, socat) does not.
const CRATE_MAIN_CLASS = 'io.crate.bootstrap.CrateDB'

/**
 * What process `pid` is, as a listener: { crate: true } for a CrateDB JVM; else { crate: false, name } (a forwarder
 * whose node is elsewhere); null where /proc does not say.
 */
function listenerKind (pid, { procRoot = '/proc' } = {}) {
  let args
  try {
    args = fs.readFileSync(`${procRoot}/${pid}/cmdline`, 'utf8').split('\0')
  } catch {
    return null
  }
  if (args.includes(CRATE_MAIN_CLASS)) return { crate: true }
  let name = '?'
  try {
    name = fs.readFileSync(`${procRoot}/${pid}/comm`, 'utf8').trim()
  } catch { /* gone meanwhile */ }
  return { crate: false, name }
}

module.exports = { holderPid, holderOf, listenerKind, CRATE_MAIN_CLASS }
