'use strict'

const net = require('node:net')
const { holderOf } = require('../base/listeners')

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
