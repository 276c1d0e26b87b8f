'use strict'

// The provisioner on a machine others use too, end to end on the fake distribution: it removes only what it made,
// stops only the processes it launched, leaves nothing running when killed before its cluster is ready, and a
// download that stalls, never ends or is interrupted keeps nothing.

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const { serve, endlessBody } = require('../helpers/http-server')
const path = require('node:path')
const { freeClusterPort } = require('../helpers/ports')
const { provisionSetUp, cluster, stateOf, processesWith, anyAlive, gone, sleep, skip, skipWhy } =
  require('../helpers/provisioner')
const { writeTarball, releaseEntries } = require('../helpers/tarball')

if (skipWhy) console.log(`# ${skipWhy}: the provisioner's shared-machine tests skip`)

const tree = (dir) => fs.readdirSync(dir, { recursive: true }).map(String).sort()

test('--dir must be missing, empty or an earlier start\'s own: a user\'s folder is refused and left as it was; a ' +
  'stop removes only what its start made', { skip }, async (t) => {
  const { root, env, common } = await provisionSetUp(t)
  const port = String(await freeClusterPort(1))
  // A folder of the user's, with a home/ and a node1/ of their own.
  const theirs = path.join(root, 'theirs')
  fs.mkdirSync(path.join(theirs, 'home', 'alice'), { recursive: true })
  fs.writeFileSync(path.join(theirs, 'home', 'alice', 'thesis.txt'), 'four years')
  fs.mkdirSync(path.join(theirs, 'node1'))
  fs.writeFileSync(path.join(theirs, 'node1', 'notes.txt'), 'notes')
  const before = tree(theirs)
  for (const dir of [theirs, '/']) {
    const refused = await cluster(['start', '--http_port', port, '--dir', dir, ...common], { env })
    assert.equal(refused.code, 2, refused.stderr)
    assert.match(refused.stderr, new RegExp(`^crate-bench cluster: error: (--dir ${dir.replace(/\//g, '\\/')} is ` +
      'not empty \\(it holds .*\\): give a missing or empty folder; the tool removes only what it made|--dir /: .*)$',
    'm'))
  }
  assert.deepEqual(tree(theirs), before, 'nothing of the user\'s folder touched')
  assert.equal(fs.readFileSync(path.join(theirs, 'home', 'alice', 'thesis.txt'), 'utf8'), 'four years')
  // An empty folder of the user's: used, and after the stop it is there again, with what the user put in it meanwhile.
  const empty = path.join(root, 'empty')
  fs.mkdirSync(empty)
  const started = await cluster(['start', '--http_port', port, '--dir', empty, ...common], { env })
  assert.equal(started.code, 0, started.stderr)
  assert.deepEqual(stateOf(empty).made, ['home', 'node1'])
  fs.writeFileSync(path.join(empty, 'results.txt'), 'mine')
  const stopped = await cluster(['stop', '--dir', empty], { env })
  assert.equal(stopped.code, 0, stopped.stderr)
  assert.deepEqual(fs.readdirSync(empty), ['results.txt'])
  // A folder the start made, with the folders above it it had to make: all of them gone after the stop.
  const deep = path.join(root, 'a', 'b', 'c')
  assert.equal((await cluster(['start', '--http_port', port, '--dir', deep, ...common], { env })).code, 0)
  assert.equal((await cluster(['stop', '--dir', deep], { env })).code, 0)
  assert.equal(fs.existsSync(path.join(root, 'a')), false)
  // A folder an earlier start left (stop --keep): started again, its files replaced.
  const kept = path.join(root, 'kept')
  assert.equal((await cluster(['start', '--http_port', port, '--dir', kept, ...common], { env })).code, 0)
  const first = stateOf(kept).name
  assert.equal((await cluster(['stop', '--dir', kept, '--keep'], { env })).code, 0)
  assert.deepEqual(fs.readdirSync(kept).sort(), ['cluster.json', 'home', 'node1'])
  const again = await cluster(['start', '--http_port', port, '--dir', kept, ...common], { env })
  assert.equal(again.code, 0, again.stderr)
  assert.notEqual(stateOf(kept).name, first)
  assert.equal((await cluster(['stop', '--dir', kept], { env })).code, 0)
  assert.equal(fs.existsSync(kept), false)
})

test('a stop acts only on the processes its start launched: a copy of cluster.json, or one forged to name another ' +
  'cluster\'s nodes, stops nothing', { skip }, async (t) => {
  const { root, env, common } = await provisionSetUp(t)
  const dir = path.join(root, 'real')
  const started = await cluster(['start', '--http_port', String(await freeClusterPort(1)), '--dir', dir, '--json',
    ...common], { env })
  assert.equal(started.code, 0, started.stderr)
  const state = started.json
  const copy = path.join(root, 'copy')
  fs.mkdirSync(copy)
  fs.copyFileSync(path.join(dir, 'cluster.json'), path.join(copy, 'cluster.json'))
  const copied = await cluster(['stop', '--dir', copy], { env })
  assert.equal(copied.code, 2, copied.stderr)
  assert.match(copied.stderr, new RegExp(`cluster\\.json is the record of the cluster in ${dir}, not of this folder`))
  // Forged: the record's folder is its own, its nodes the real cluster's pids, start times and folders.
  const forged = path.join(root, 'forged')
  fs.mkdirSync(forged)
  fs.writeFileSync(path.join(forged, 'cluster.json'), JSON.stringify({ ...state, dir: forged, made: [] }))
  const forgedStop = await cluster(['stop', '--dir', forged], { env })
  assert.equal(forgedStop.code, 0, forgedStop.stderr)
  assert.match(forgedStop.stderr, /: 0 nodes stopped/)
  assert.equal(await anyAlive(state, 0), true, 'the real cluster still runs')
  assert.equal((await cluster(['stop', '--dir', dir], { env })).code, 0)
  assert.equal(await anyAlive(state, 0), false)
})

test('a cluster start killed outright before its cluster is ready leaves no node running; a record left behind is ' +
  'shown as a start that did not finish', { skip }, async (t) => {
  const { root, env, common } = await provisionSetUp(t)
  const dir = path.join(root, 'killed')
  let name = null
  const killed = await cluster(['start', '--nodes', '2', '--http_port', String(await freeClusterPort(2)), '--dir',
    dir, '--setting', 'fake.never_ready=true', ...common], { env, detached: true, waitFor: /^starting 2 nodes/m,
    whileRunning: (child, stderr) => {
      name = /\((crate-bench-[0-9a-f]+), 256m heap/.exec(stderr)[1]
      setTimeout(() => process.kill(-child.pid, 'SIGKILL'), 500)
    } })
  assert.equal(killed.signal, 'SIGKILL')
  const deadline = Date.now() + 15_000
  while (processesWith(`-Ccluster.name=${name}`).length && Date.now() < deadline) await sleep(200)
  assert.deepEqual(processesWith(`-Ccluster.name=${name}`), [], 'no node of the killed start runs')
  const listed = await cluster(['list'], { env })
  assert.equal(listed.stdout, 'no cluster of this tool runs on this machine\n')
  // The folder was given: its logs are kept, and its status says what the record is.
  fs.writeFileSync(path.join(dir, 'cluster.json'), JSON.stringify({ ...stateOf(dir), version: null, heap: undefined }))
  const status = await cluster(['status', '--dir', dir], { env })
  assert.equal(status.code, 1)
  assert.doesNotMatch(status.stdout, /undefined/)
  assert.match(status.stdout, new RegExp(`^${name}: CrateDB \\(version unknown\\) \\(build unknown\\), 2 nodes × ` +
    '\\(heap unknown\\) heap, started \\S+ \\(its start did not finish: not a cluster to run against\\)$', 'm'))
})

test('a download that stalls ends after --download_timeout, one that never ends at --max_download, one interrupted ' +
  'by SIGTERM at once; nothing of any is kept', { skip }, async (t) => {
  const { root, env } = await provisionSetUp(t)
  const stalled = await serve(t, (req, res) => {
    res.writeHead(200)
    res.write(Buffer.alloc(1000))
  })
  const endless = await serve(t, endlessBody)
  const downloads = path.join(env.CRATE_BENCH_CACHE, 'downloads')
  const left = () => (fs.existsSync(downloads) ? fs.readdirSync(downloads) : [])
  const slow = await cluster(['download', '--tarball', `${stalled}/crate.tar.gz`, '--download_timeout', '1s'], { env })
  assert.equal(slow.code, 3, slow.stderr)
  assert.match(slow.stderr, /stalled: no byte for 1s \(--download_timeout\)/)
  const big = await cluster(['download', '--tarball', `${endless}/crate.tar.gz`, '--max_download', '2m'], { env })
  assert.equal(big.code, 3, big.stderr)
  assert.match(big.stderr, /passed the cap of 2\.0 MB \(--max_download\)/)
  const interrupted = await cluster(['download', '--tarball', `${stalled}/crate.tar.gz`], { env,
    waitFor: /^downloading/m, whileRunning: (child) => setTimeout(() => child.kill('SIGTERM'), 200) })
  assert.equal(interrupted.code, 4, interrupted.stderr)
  assert.match(interrupted.stderr, /interrupted while downloading .*: nothing kept/)
  assert.ok(interrupted.seconds < 20, `ended ${interrupted.seconds} s after it started, not after the 30 s timeout`)
  assert.deepEqual(left(), [])
  // A tarball with a setuid copy of a shell, given by path: unpacked without the bit, owned by who unpacks it.
  const crafted = writeTarball(path.join(root, 'crafted.tar.gz'), [...releaseEntries(),
    { path: 'crate/bin/sh', mode: 0o4755, uid: 0, body: '#!/bin/sh\n' }])
  const unpacked = await cluster(['download', '--tarball', crafted], { env })
  assert.equal(unpacked.code, 0, unpacked.stderr)
  const sh = fs.statSync(path.join(unpacked.stdout.trim(), 'bin', 'sh'))
  assert.equal(sh.mode & 0o7777, 0o755)
  assert.equal(sh.uid, process.getuid())
  assert.ok(await gone(path.join(root, 'nothing')))
})
