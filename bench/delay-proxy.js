'use strict'

// A TCP proxy whose added delay grows through a run: what a sustained run's "held" must never survive (issue 68).
// Each chunk a client sends reaches the server after the delay of its moment, in order; answers come back at once.
//   node bench/delay-proxy.js --listen 4380 --to 127.0.0.1:4360 --from 0 --up_to 400 --over 600
// (delay in ms, growing linearly from --from to --up_to over --over seconds from the first connection, then held).

const net = require('node:net')
const { parseArgs } = require('node:util')

/** The delay at `elapsedS` seconds: linear from `fromMs` to `upToMs` over `overS`, then held. */
const delayAt = ({ fromMs, upToMs, overS }, elapsedS) => fromMs + (upToMs - fromMs) * Math.min(1, elapsedS / overS)

function startProxy ({ listenPort, host, port, fromMs, upToMs, overS, now = () => performance.now() }) {
  let startedAt = null
  const server = net.createServer((client) => {
    if (startedAt === null) startedAt = now()
    const upstream = net.connect(port, host)
    // One queue a connection, drained by one timer at a time: the chunks of a request reach the server whole and in
    // the order sent, each no earlier than its moment's delay.
    const queue = []
    let timer = null
    const drain = () => {
      timer = null
      while (queue.length && queue[0].due <= now()) upstream.write(queue.shift().chunk)
      if (queue.length) timer = setTimeout(drain, Math.max(1, queue[0].due - now()))
    }
    client.on('data', (chunk) => {
      const delay = delayAt({ fromMs, upToMs, overS }, (now() - startedAt) / 1000)
      queue.push({ chunk, due: Math.max(queue.length ? queue.at(-1).due : 0, now() + delay) })
      if (timer === null) timer = setTimeout(drain, Math.max(0, queue[0].due - now()))
    })
    upstream.pipe(client)
    const close = () => {
      if (timer) clearTimeout(timer)
      client.destroy()
      upstream.destroy()
    }
    client.on('error', close).on('close', close)
    upstream.on('error', close).on('close', close)
  })
  return new Promise((resolve) => server.listen(listenPort, '127.0.0.1', () => resolve(server)))
}

if (require.main === module) {
  const { values } = parseArgs({ options: { listen: { type: 'string' }, to: { type: 'string' },
    from: { type: 'string', default: '0' }, up_to: { type: 'string' }, over: { type: 'string' } } })
  const [host, port] = String(values.to).split(':')
  const settings = { listenPort: Number(values.listen), host, port: Number(port), fromMs: Number(values.from),
    upToMs: Number(values.up_to), overS: Number(values.over) }
  if (!Object.values(settings).every((v) => v !== '' && !Number.isNaN(v))) {
    process.stderr.write('usage: node bench/delay-proxy.js --listen PORT --to HOST:PORT --from MS --up_to MS ' +
      '--over S\n')
    process.exit(2)
  }
  startProxy(settings).then(() => process.stderr.write(`delay proxy on 127.0.0.1:${settings.listenPort} → ` +
    `${values.to}: ${settings.fromMs} → ${settings.upToMs} ms over ${settings.overS} s\n`))
}

module.exports = { startProxy, delayAt }
