'use strict'

// The test hosts of their own (test/helpers/hosts.js): a server on one host reached from another over the bridge;
// its link cut, it goes silent (no refusal: the request hangs until its own timeout); restored, it answers; and after
// the test nothing it made is left.

const test = require('node:test')
const assert = require('node:assert/strict')
const { hostsUnavailable, makeHosts, leftOf } = require('./hosts')

const SKIP = hostsUnavailable() ?? false
if (SKIP) console.log(`# ${SKIP}`)

/** What `host` gets asking `url` within `ms`: '200 <body>', or the error's name. */
async function ask (host, url, ms) {
  const script = `fetch(${JSON.stringify(url)}, { signal: AbortSignal.timeout(${ms}) })` +
    '.then(async (a) => console.log(a.status, await a.text()), (e) => console.log(e.name))'
  return (await host.run(process.execPath, ['-e', script], { timeoutMs: ms + 10_000 })).stdout.trim()
}

test('hosts of their own: one reached from another over the bridge, silent when cut, back when restored, nothing ' +
  'left after', { skip: SKIP, timeout: 60_000 }, async (t) => {
  let tag
  await t.test('the hosts', async (inner) => {
    const { hosts: [server, client], tag: made } = makeHosts(inner, 2)
    tag = made
    const listening = server.exec(process.execPath, ['-e', `require('node:http').createServer((q, r) => ` +
      `r.end('here')).listen(8080, '${server.address}', () => console.log('up'))`],
    { stdio: ['ignore', 'pipe', 'inherit'] })
    inner.after(() => listening.kill())
    await new Promise((resolve) => listening.stdout.once('data', resolve))
    const url = `http://${server.address}:8080/`
    assert.equal(await ask(client, url, 5000), '200 here')
    server.cut()
    assert.equal(await ask(client, url, 1500), 'TimeoutError', 'a cut host is silent: no refusal, the request hangs')
    server.restore()
    assert.equal(await ask(client, url, 5000), '200 here')
  })
  assert.deepEqual(leftOf(tag), [], 'every namespace and link the test made is gone')
})
