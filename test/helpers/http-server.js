'use strict'

const http = require('node:http')

/**
 * A local HTTP server answering every request with `handler`, closed after the test with every connection it
 * still holds (a stalled answer would keep close() waiting); its base URL.
 */
async function serve (t, handler) {
  const sockets = new Set()
  const server = http.createServer(handler)
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(() => {
    for (const socket of sockets) socket.destroy()
    server.close()
  })
  return `http://127.0.0.1:${server.address().port}`
}

/** A handler whose answer never ends: bytes as fast as the client takes them. */
function endlessBody (req, res) {
  res.writeHead(200)
  const chunk = Buffer.alloc(64 * 1024)
  const more = () => {
    while (res.write(chunk)) { /* as fast as it is taken */ }
    res.once('drain', more)
  }
  more()
}

module.exports = { serve, endlessBody }
