'use strict'

const net = require('node:net')

/** A loopback port nobody listens on (bound, then released). */
async function closedPort () {
  const server = net.createServer()
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address()
  await new Promise((resolve) => server.close(resolve))
  return port
}

module.exports = { closedPort }

/**
 * A first HTTP port for a cluster of `nodes` the provisioner starts: it and +100, +200 (each +i) all free now. Drawn
 * at random from a range no system service uses, so that test files side by side do not pick the same one.
 */
async function freeClusterPort (nodes = 1) {
  const { isFree } = require('../../lib/provision/ports')
  for (let tries = 0; tries < 50; tries++) {
    const base = 20_000 + Math.floor(Math.random() * 20_000)
    const ports = Array.from({ length: nodes }, (_, i) => [base + i, base + 100 + i, base + 200 + i]).flat()
    let free = true
    for (const port of ports) if (!(await isFree(port))) free = false
    if (free) return base
  }
  throw new Error('no free range of ports for a test cluster')
}

module.exports.freeClusterPort = freeClusterPort
