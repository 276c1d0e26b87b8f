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
