'use strict'

const fs = require('node:fs')
const net = require('node:net')

// The ports a cluster's nodes will listen on, each checked free before anything starts: a taken port fails at once,
// naming the port, what it was for and, where /proc says so, the process that holds it (Rally hangs for ever on one).

/** Node i's ports (0-based) from the first HTTP port: HTTP +i, PostgreSQL +100+i, transport +200+i. */
function nodePorts (httpPort, i) {
  return { http: httpPort + i, pg: httpPort + 100 + i, transport: httpPort + 200 + i }
}

/** Whether `port` can be listened on at `host` now. */
function isFree (port, host = '127.0.0.1') {
  return new Promise((resolve) => {
    const server = net.createServer()
    server.once('error', () => resolve(false))
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(true)))
  })
}

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

/** "pid 1234 (java)": who holds `port`, where this user may read it in /proc; null otherwise. */
function holderOf (port, { procRoot = '/proc' } = {}) {
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
      if (m && inodes.has(m[1])) {
        let name = '?'
        try {
          name = fs.readFileSync(`${procRoot}/${pid}/comm`, 'utf8').trim()
        } catch {
          // Gone meanwhile, or not ours to read: the pid alone says enough.
        }
        return `pid ${pid} (${name})`
      }
    }
  }
  return null
}

/**
 * The first of `wanted` ([{ port, what }]) that is taken, with who holds it: { port, what, holder } or null when all
 * are free. Checked one after another: a few milliseconds each.
 */
async function firstTaken (wanted, { host = '127.0.0.1', procRoot } = {}) {
  for (const w of wanted) {
    if (!Number.isInteger(w.port) || w.port < 1 || w.port > 65_535) return { ...w, holder: null, invalid: true }
    if (!(await isFree(w.port, host))) return { ...w, holder: holderOf(w.port, { procRoot }) }
  }
  return null
}

module.exports = { nodePorts, isFree, firstTaken, holderOf }
