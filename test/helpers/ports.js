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
 * The first port the kernel hands out for outgoing connections (/proc/sys/net/ipv4/ip_local_port_range; 32768 where it
 * cannot be read): a port a test's cluster takes must lie below it, or any connection of the machine may hold it when
 * the cluster starts (a fork's next cluster on its contender's ports found one taken this way).
 */
function ephemeralLow () {
  try {
    const low = Number(require('node:fs').readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim()
      .split(/\s+/)[0])
    return Number.isSafeInteger(low) && low > 1024 ? low : 32_768
  } catch {
    return 32_768
  }
}

/**
 * A first HTTP port for a cluster of `nodes` the provisioner starts: it and +100, +200 (each +i) all free now. Drawn
 * at random from a range no system service uses and below the kernel's ephemeral ports, so that test files side by
 * side do not pick the same one and no outgoing connection takes one of them.
 */
async function freeClusterPort (nodes = 1) {
  const { isFree } = require('../../lib/provision/ports')
  const top = Math.min(40_000, ephemeralLow()) - 200 - nodes
  for (let tries = 0; tries < 50; tries++) {
    const base = 20_000 + Math.floor(Math.random() * (top - 20_000))
    const ports = Array.from({ length: nodes }, (_, i) => [base + i, base + 100 + i, base + 200 + i]).flat()
    let free = true
    for (const port of ports) if (!(await isFree(port))) free = false
    if (free) return base
  }
  throw new Error('no free range of ports for a test cluster')
}

module.exports.freeClusterPort = freeClusterPort
