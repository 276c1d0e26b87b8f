'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const { serve, endlessBody } = require('../helpers/http-server')
const path = require('node:path')
const { spawnSync } = require('node:child_process')
const { download, reclaimTemporaries } = require('../../lib/provision/download')
const { resolveDistribution } = require('../../lib/provision/distribution')
const { tempDir } = require('../helpers/temp-files')
const { writeTarball, releaseEntries } = require('../helpers/tarball')

const leftIn = (dir) => fs.readdirSync(dir)

test('a download that stalls ends after its timeout, one that never ends at its cap; nothing of either is kept',
  async (t) => {
    const stalled = await serve(t, (req, res) => {
      res.writeHead(200, { 'content-type': 'application/gzip' })
      res.write(Buffer.alloc(1000))
      // ... and nothing more, ever.
    })
    const dir = tempDir(t)
    await assert.rejects(download(`${stalled}/crate.tar.gz`, dir, 'a.tar.gz', { timeoutMs: 300 }),
      /the download of .* stalled: no byte for 300ms \(--download_timeout\)/)
    assert.deepEqual(leftIn(dir), [])
    const endless = await serve(t, endlessBody)
    await assert.rejects(download(`${endless}/crate.tar.gz`, dir, 'b.tar.gz', { maxBytes: 1024 ** 2 }),
      /the download of .* passed the cap of 1\.0 MB \(--max_download\)/)
    assert.deepEqual(leftIn(dir), [])
    const announced = await serve(t, (req, res) => {
      res.writeHead(200, { 'content-length': String(5 * 1024 ** 2) })
      res.end()
    })
    await assert.rejects(download(`${announced}/crate.tar.gz`, dir, 'c.tar.gz', { maxBytes: 1024 ** 2 }),
      /is 5\.0 MB, more than the cap of 1\.0 MB \(--max_download\)/)
    assert.deepEqual(leftIn(dir), [])
  })

test('a download that trickles (a byte at a time, never stalling) ends under its minimum rate; nothing kept',
  async (t) => {
    const trickling = await serve(t, (req, res) => {
      res.writeHead(200, { 'content-type': 'application/gzip' })
      const timer = setInterval(() => res.write(Buffer.alloc(1)), 20)
      res.on('close', () => clearInterval(timer))
    })
    const dir = tempDir(t)
    await assert.rejects(download(`${trickling}/crate.tar.gz`, dir, 'a.tar.gz', { timeoutMs: 5000, minRate: 1024,
      rateWindowMs: 300 }),
    /the download of .* is too slow: [0-9]+ bytes in the last 300ms, under 1 kB\/s \(--download_min_rate\)/)
    assert.deepEqual(leftIn(dir), [])
  })

test('a download is interrupted at once by its abort signal (Ctrl-C, SIGTERM), nothing kept', async (t) => {
  const stalled = await serve(t, (req, res) => {
    res.writeHead(200)
    res.write(Buffer.alloc(1000))
  })
  const dir = tempDir(t)
  const interrupt = new AbortController()
  setTimeout(() => interrupt.abort(), 100)
  const began = Date.now()
  await assert.rejects(download(`${stalled}/crate.tar.gz`, dir, 'a.tar.gz', { signal: interrupt.signal }),
    (error) => {
      assert.match(error.message, /^interrupted while downloading .*: nothing kept$/)
      assert.equal(error.exitCode, 4)
      return true
    })
  assert.ok(Date.now() - began < 10_000, 'not after the 30 s of its timeout')
  assert.deepEqual(leftIn(dir), [])
})

test('a download interrupted before its server answers leaves no timer behind: the process ends at once, not ' +
  'after the stall timeout', async (t) => {
  const silent = await serve(t, () => { /* never answers, not even its headers */ })
  const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length
  const before = timers()
  const interrupt = new AbortController()
  const asked = download(`${silent}/crate.tar.gz`, tempDir(t), 'a.tar.gz', { signal: interrupt.signal,
    timeoutMs: 60_000 })
  interrupt.abort()
  await assert.rejects(asked, /^Error: interrupted while downloading/)
  assert.equal(timers(), before, 'the stall timer is cleared')
})

test('temporary files of a tool killed outright are removed by the next one; a living tool\'s are not', (t) => {
  const dir = tempDir(t)
  const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString()
  fs.writeFileSync(path.join(dir, `.crate.tar.gz.part-${dead}-0123abcd`), 'half')
  fs.mkdirSync(path.join(dir, `.unpack-${dead}-89abcdef`))
  fs.writeFileSync(path.join(dir, `.crate.tar.gz.part-${process.ppid}-0123abcd`), 'another tool\'s, still running')
  fs.writeFileSync(path.join(dir, 'crate.tar.gz'), 'whole')
  assert.deepEqual(reclaimTemporaries(dir).sort(), [`.crate.tar.gz.part-${dead}-0123abcd`, `.unpack-${dead}-89abcdef`])
  assert.deepEqual(leftIn(dir).sort(), [`.crate.tar.gz.part-${process.ppid}-0123abcd`, 'crate.tar.gz'])
})

test('a cached download is hashed each time it is used: a file swapped in the cache is dropped and downloaded ' +
  'again, never recorded under a hash it does not have', async (t) => {
  const src = tempDir(t)
  const good = fs.readFileSync(writeTarball(path.join(src, 'good.tar.gz'), releaseEntries('crate', '1.2.3')))
  const swapped = fs.readFileSync(writeTarball(path.join(src, 'swapped.tar.gz'), releaseEntries('crate', '6.6.6')))
  let served = 0
  const url = await serve(t, (req, res) => {
    served++
    res.writeHead(200, { 'content-length': String(good.length) })
    res.end(good)
  })
  const env = { CRATE_BENCH_CACHE: tempDir(t) }
  const first = await resolveDistribution({ tarball: `${url}/crate.tar.gz`, env })
  assert.equal(first.version, '1.2.3')
  assert.equal(served, 1)
  const downloads = path.join(env.CRATE_BENCH_CACHE, 'downloads')
  const [name] = leftIn(downloads).filter((n) => n.endsWith('.tar.gz'))
  // Another file put in the cache's place, the text beside it left as it was.
  fs.writeFileSync(path.join(downloads, name), swapped)
  const said = []
  const again = await resolveDistribution({ tarball: `${url}/crate.tar.gz`, env, log: (line) => said.push(line) })
  assert.equal(served, 2, 'downloaded again')
  assert.equal(again.sha256, first.sha256)
  assert.equal(again.version, '1.2.3')
  const dropped = /\(cached\) has SHA-256 [0-9a-f]{64}, not the [0-9a-f]{64} it was downloaded with: dropped/
  assert.ok(said.some((line) => dropped.test(line)), said.join('\n'))
  // With --sha256 given, a cached file of another hash is refused.
  fs.writeFileSync(path.join(downloads, name), swapped)
  fs.writeFileSync(path.join(downloads, `${name}.sha256`), `${require('node:crypto').createHash('sha256')
    .update(swapped).digest('hex')}\n`)
  await assert.rejects(resolveDistribution({ tarball: `${url}/crate.tar.gz`, env, sha256: first.sha256 }),
    /\(cached\) has SHA-256 [0-9a-f]{64}, not the [0-9a-f]{64} given/)
})
