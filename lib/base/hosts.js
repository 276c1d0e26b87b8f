'use strict'

const os = require('node:os')

// Whether a host a run names is this machine: its own processes then share the machine with the cluster's.

const LOOPBACK = /^(localhost|127\.[0-9.]+|::1|\[::1\]|0\.0\.0\.0)$/i

/** Whether `hostname` is this machine: loopback, its name, or one of its addresses. */
function isThisMachine (hostname, { interfaces = os.networkInterfaces(), name = os.hostname() } = {}) {
  const host = String(hostname).replace(/^\[|\]$/g, '')
  if (LOOPBACK.test(host) || host === name) return true
  return Object.values(interfaces).flat().some((i) => i && i.address === host)
}

module.exports = { isThisMachine }
