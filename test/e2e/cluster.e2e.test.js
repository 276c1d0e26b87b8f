'use strict'

// crate-bench cluster and --start_cluster end to end against a fake distribution (test/helpers/fake-distribution.js:
// its bin/crate runs the CrateDB test double as a node): the lifecycle in seconds. The real tarball is
// test/integration/provision.integration.test.js's.

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const net = require('node:net')
const http = require('node:http')
const path = require('node:path')
const { runTool } = require('../helpers/run-tool')
const { freeClusterPort } = require('../helpers/ports')
const { isNodeOf } = require('../../lib/provision/state')
const { joined } = require('../helpers/patterns')
const { provisionSetUp, cluster, stateOf, processesWith, anyAlive, sleep, user, skip, skipWhy } =
  require('../helpers/provisioner')

if (skipWhy) console.log(`# ${skipWhy}: the provisioner's end-to-end tests skip`)
const setUp = provisionSetUp

test('cluster start of 3 nodes: ready when every node answers; status, list, stop; nothing left', { skip },
  async (t) => {
    const { root, env, common } = await setUp(t)
    const port = await freeClusterPort(3)
    const dir = path.join(root, 'c3')
    const started = await cluster(['start', '--nodes', '3', '--http_port', String(port), '--dir', dir,
      '--setting', 'thread_pool.write.queue_size=10', ...common], { env })
    assert.equal(started.code, 0, started.stderr)
    assert.deepEqual(started.stdout.trim().split('\n'), [
      `CRATE_HOST=${[0, 1, 2].map((i) => `http://127.0.0.1:${port + i}`).join(',')}`, `CRATE_PORT=${port}`,
      `CRATE_PG_PORT=${port + 100}`])
    assert.match(started.stderr, /processors 1 each: 3 nodes share this machine's \d+ cores|starting 3 nodes/)
    const state = stateOf(dir)
    assert.equal(state.version, '9.9.9')
    assert.equal(state.build_hash, 'fake-build-hash')
    assert.match(state.distribution.sha256, /^[0-9a-f]{64}$/)
    assert.deepEqual([state.heap, state.settings, state.java.major, state.java.bundled],
      ['256m', { 'thread_pool.write.queue_size': '10' }, 25, true])
    assert.deepEqual(state.nodes.map((n) => [n.http_port, n.pg_port, n.transport_port]),
      [0, 1, 2].map((i) => [port + i, port + 100 + i, port + 200 + i]))
    assert.ok(state.nodes.every((n) => n.ready_s > 0 && isNodeOf(n, state)))
    const status = await cluster(['status', '--dir', dir], { env })
    assert.equal(status.code, 0, status.stderr)
    assert.equal((status.stdout.match(/: alive \(pid \d+\), http \d+, pg \d+, transport \d+, heap 100 MB of 512 MB/g) ||
      []).length, 3, status.stdout)
    const listed = await cluster(['list'], { env })
    assert.match(listed.stdout, new RegExp(`^${state.name}: CrateDB 9\\.9\\.9, 3 of 3 nodes alive`, 'm'))
    // A second start on the same first port: refused at once, naming the port and the node holding it.
    const again = await cluster(['start', '--http_port', String(port), ...common], { env })
    assert.equal(again.code, 2, again.stderr)
    assert.match(again.stderr, new RegExp(`^crate-bench cluster: error: port ${port} \\(HTTP of node 1\\) is taken ` +
      'by pid \\d+ \\(node\\): give another --http_port', 'm'))
    assert.ok(again.seconds < 10, `${again.seconds} s`)
    // One node killed: status says so and exits 1.
    process.kill(state.nodes[1].pid, 'SIGKILL')
    await sleep(300)
    const degraded = await cluster(['status', '--dir', dir], { env })
    assert.equal(degraded.code, 1)
    assert.match(degraded.stdout, new RegExp(`${state.nodes[1].name}: NOT RUNNING`))
    const stopped = await cluster(['stop', '--dir', dir], { env })
    assert.equal(stopped.code, 0, stopped.stderr)
    assert.match(stopped.stderr, /2 nodes stopped; its data and logs removed/)
    assert.equal(await anyAlive(state), false)
    assert.equal(fs.existsSync(dir), false, 'node folders, home, cluster.json and the folder the start made removed')
    const none = await cluster(['list'], { env })
    assert.equal(none.stdout, 'no cluster of this tool runs on this machine\n')
  })

test('a start that fails stops every node: a refused setting (CrateDB\'s own cause), the timeout, Ctrl-C', { skip },
  async (t) => {
    const { root, env, common } = await setUp(t)
    const port = await freeClusterPort(2)
    const refused = await cluster(['start', '--nodes', '2', '--http_port', String(port), '--setting',
      'no.such.setting=1', ...common], { env })
    assert.equal(refused.code, 3, refused.stderr)
    assert.match(refused.stderr, joined(/^crate-bench cluster: error: crate-bench-[0-9a-f]+-n\d exited while /,
      /starting \(exit code 1\): java\.lang\.IllegalArgumentException: unknown setting \[no\.such\.setting\]/m))
    assert.match(refused.stderr, /its last log lines \(.*out\.log\):\n {2}\[ERROR\]/)
    // A cluster that never forms: past --start_timeout, every node stopped.
    const dir = path.join(root, 'slow')
    const slow = await cluster(['start', '--nodes', '2', '--http_port', String(port), '--start_timeout', '2s',
      '--dir', dir, '--setting', 'fake.never_ready=true', ...common], { env })
    assert.equal(slow.code, 3, slow.stderr)
    assert.match(slow.stderr,
      /-n1 was not ready within 2 s \(--start_timeout\); every node of \S+ stopped \(its log kept: /)
    const kept = stateOf(dir)
    assert.equal(await anyAlive(kept), false)
    // Ctrl-C while the nodes start: exit 4, every node started so far stopped.
    const dir2 = path.join(root, 'interrupted')
    const interrupted = await cluster(['start', '--nodes', '2', '--http_port', String(port), '--dir', dir2,
      '--setting', 'fake.never_ready=true', ...common], { env, waitFor: /^starting 2 nodes/m,
    whileRunning: (child) => setTimeout(() => child.kill('SIGINT'), 500) })
    assert.equal(interrupted.code, 4, interrupted.stderr)
    assert.match(interrupted.stderr, /interrupted while the nodes started: every node started so far is stopped/)
    assert.equal(await anyAlive(stateOf(dir2)), false)
  })

test('bad input is one line before anything starts: a port taken by another process, a setting of the tool\'s, ' +
  'a missing tarball, too much heap', { skip }, async (t) => {
  const { env, commonNoHeap } = await setUp(t)
  const port = await freeClusterPort(1)
  const holder = net.createServer()
  await new Promise((resolve) => holder.listen(port + 100, '127.0.0.1', resolve))
  t.after(() => holder.close())
  const cases = [
    [['--http_port', String(port)], new RegExp(`port ${port + 100} \\(PostgreSQL of node 1\\) is taken by pid ` +
      `${process.pid} \\(node\\)`)],
    [['--setting', 'http.port=1'], /--setting http\.port is set by the tool for every node/],
    [['--heap', '2x'], /--heap must be a size such as 512m or 2g \(got '2x'\)/],
    [['--heap', '4096g'], /1 node × 4096g heap need about [0-9.]+ GB of memory .*; [0-9.]+ GB is available/],
    [['--nodes', '0'], /--nodes must be a whole number from 1 to 20 \(got '0'\)/]
  ]
  for (const [args, pattern] of cases) {
    const heap = args.includes('--heap') ? [] : ['--heap', '256m']
    // Not the default port: a CrateDB of this machine may hold it, and the check of the ports comes first.
    const ports = args.includes('--http_port') ? [] : ['--http_port', String(await freeClusterPort(1))]
    const run = await cluster(['start', ...commonNoHeap, ...heap, ...ports, ...args], { env })
    assert.equal(run.code, 2, `${args.join(' ')}: ${run.stderr}`)
    assert.match(run.stderr, pattern)
    assert.equal(run.stderr.trim().split('\n').filter((l) => /error:/.test(l)).length, 1, run.stderr)
  }
  const missing = await cluster(['start', '--tarball', '/no/such.tar.gz'], { env })
  assert.equal(missing.code, 2)
  assert.match(missing.stderr, /--tarball \/no\/such\.tar\.gz: no such file/)
})

test('the cache: a download checked whole and by its SHA-256, unpacked once; a truncated or corrupt one is never ' +
  'used or kept', { skip }, async (t) => {
  const { root, tarball, cache, env } = await setUp(t)
  const bytes = fs.readFileSync(tarball)
  let mode = 'whole'
  const server = http.createServer((req, res) => {
    if (mode === 'truncated') {
      res.writeHead(200, { 'content-length': bytes.length })
      res.end(bytes.subarray(0, Math.floor(bytes.length / 2)))
      setImmediate(() => res.socket && res.socket.destroy())
      return
    }
    const body = mode === 'corrupt' ? Buffer.concat([bytes.subarray(0, 40), Buffer.alloc(200, 7)]) : bytes
    res.writeHead(req.url.includes('9.9.9') ? 200 : 404, { 'content-length': body.length })
    res.end(body)
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(() => server.close())
  const url = `http://127.0.0.1:${server.address().port}/{arch}_{os}/crate-{version}.tar.gz`
  const withUrl = { ...env, CRATE_BENCH_DOWNLOAD_URL: url }
  const downloaded = await cluster(['download', '--version', '9.9.9'], { env: withUrl })
  assert.equal(downloaded.code, 0, downloaded.stderr)
  const home = downloaded.stdout.trim()
  assert.ok(fs.existsSync(path.join(home, 'bin', 'crate')))
  assert.match(downloaded.stderr,
    /^downloading http:\/\/127\.0\.0\.1:\d+\/(x64|aarch64)_(linux|mac)\/crate-9\.9\.9\.tar\.gz$/m)
  assert.match(downloaded.stderr, /CrateDB 9\.9\.9, SHA-256 [0-9a-f]{64}/)
  // Cached: the second asks nobody.
  mode = 'corrupt'
  const cached = await cluster(['download', '--version', '9.9.9'], { env: withUrl })
  assert.equal(cached.code, 0, cached.stderr)
  assert.equal(cached.stdout.trim(), home)
  assert.doesNotMatch(cached.stderr, /downloading/)
  // A fresh cache: a body cut short, a corrupt tarball, a wrong --sha256 and a missing release: one line each, and
  // nothing left that a later start would use.
  const fresh = { ...withUrl, CRATE_BENCH_CACHE: path.join(root, 'fresh') }
  for (const [how, extra, pattern] of [
    ['truncated', [], /cannot download .*|ended after \d+ of \d+ bytes: nothing kept/],
    ['corrupt', [], /is no whole CrateDB tarball \(.*\): nothing kept/],
    ['whole', ['--sha256', '0'.repeat(64)], /has SHA-256 [0-9a-f]{64}, not the 0{64} given: nothing kept/]
  ]) {
    mode = how
    const run = await cluster(['download', '--version', '9.9.9', ...extra], { env: fresh })
    assert.equal(run.code, 3, `${how}: ${run.stderr}`)
    assert.match(run.stderr, pattern)
    const downloads = path.join(root, 'fresh', 'downloads')
    const left = fs.existsSync(downloads) ? fs.readdirSync(downloads) : []
    assert.deepEqual(left, [], `${how}: ${left.join(', ')}`)
    const dist = path.join(root, 'fresh', 'dist')
    assert.deepEqual(fs.existsSync(dist) ? fs.readdirSync(dist) : [], [], `${how}: nothing unpacked`)
  }
  const absent = await cluster(['download', '--version', '9.9.8'], { env: fresh })
  assert.equal(absent.code, 3)
  assert.match(absent.stderr, /HTTP 404 \(no such release for this platform\?\)/)
  assert.ok(fs.existsSync(path.join(cache, 'dist')))
})

test('--start_cluster on a benchmark: started before, recorded in the result and the header, stopped after; a ' +
  'SIGKILLed tool leaves nothing running (its watchdog)', { skip }, async (t) => {
  const { tarball, env } = await setUp(t)
  const port = await freeClusterPort(1)
  const flags = ['--start_cluster', '1', '--crate_tarball', tarball, '--crate_heap', '256m',
    '--crate_http_port', String(port), ...(user ? ['--crate_run_as', user] : [])]
  const run = await runTool('appClusterIngest.js', [...flags, '--max_rows', '2000', '--batch_size', '500',
    '--processes', '1', '--monitor_interval', '0', '--json'], { env })
  assert.equal(run.code, 0, run.stderr)
  const p = run.json.environment.cluster.provisioned
  assert.deepEqual([p.version, p.build_hash, p.nodes, p.heap, p.on, p.lost_nodes], ['9.9.9', 'fake-build-hash', 1,
    '256m', 'this machine', []])
  assert.match(p.distribution.sha256, /^[0-9a-f]{64}$/)
  assert.equal(p.distribution.tarball, tarball)
  assert.deepEqual(run.json.options.hosts, [`http://127.0.0.1:${port}`])
  assert.equal(run.json.options.start_cluster, 1)
  assert.equal(run.json.rows_ok, 2000)
  assert.match(run.stderr, /^ {2}started by this run: CrateDB 9\.9\.9, 1 node × 256 MB heap on this machine$/m)
  assert.match(run.stderr, /^stopped the cluster this run started \(crate-bench-[0-9a-f]+\); nothing of it is left$/m)
  assert.equal(await anyAlive({ name: p.name, nodes: [{ pid: 0 }] }, 0), false)
  // Killed outright while it runs: the watchdog ends the nodes and removes what the start made.
  let pid = null
  const killed = await runTool('appClusterIngest.js', [...flags, '--duration', '60s', '--processes', '1',
    '--monitor_interval', '0'], { env, detached: true, waitFor: /^ {2}started by this run/m,
  whileRunning: (child) => {
    pid = child.pid
    setTimeout(() => process.kill(-child.pid, 'SIGKILL'), 300)
  } })
  assert.equal(killed.signal, 'SIGKILL')
  assert.ok(pid)
  const name = /\((crate-bench-[0-9a-f]+), 256m heap/.exec(killed.stderr)[1]
  const dir = /in (\S+)$/m.exec(killed.stderr.split('\n').find((l) => l.startsWith('starting')))[1]
  const deadline = Date.now() + 15_000
  while (fs.existsSync(dir) && Date.now() < deadline) await sleep(200)
  assert.equal(fs.existsSync(dir), false, `${dir} removed by the watchdog`)
  assert.deepEqual(processesWith(`-Ccluster.name=${name}`), [], 'no node of the killed run still runs')
})

test('a node of the started cluster that dies during the run is named in the report, with its last log lines',
  { skip }, async (t) => {
    const { tarball, env } = await setUp(t)
    const port = await freeClusterPort(1)
    const run = await runTool('appClusterIngest.js', ['--start_cluster', '1', '--crate_tarball', tarball,
      '--crate_heap', '256m', '--crate_http_port', String(port), ...(user ? ['--crate_run_as', user] : []),
      '--duration', '4s', '--timeout', '3s', '--processes', '1', '--monitor_interval', '0', '--json'], { env,
      waitFor: /^created table/m,
      whileRunning: (child, stderr) => {
        const name = /\((crate-bench-[0-9a-f]+), 256m heap/.exec(stderr)[1]
        setTimeout(() => processesWith(`-Ccluster.name=${name}`).forEach((pid) => process.kill(Number(pid),
          'SIGKILL')), 500)
      } })
    // Its only node gone: the server went away, the run is partial (issue 67).
    assert.equal(run.code, 4, run.stderr)
    assert.equal(run.json.partial, true)
    const lost = run.json.environment.cluster.provisioned.lost_nodes
    assert.equal(lost.length, 1, run.stderr)
    assert.match(lost[0].node, /^crate-bench-[0-9a-f]+-n1$/)
    assert.ok(lost[0].last_lines.some((l) => /started on/.test(l)), lost[0].last_lines.join('\n'))
    assert.match(run.stderr, new RegExp(`^warning: ${lost[0].node} \\(pid \\d+\\) of the cluster this run started is ` +
      'no longer running: no cause in its log \\(killed from outside\\?\\); its last log lines:$', 'm'))
  })

test('cluster start --stop_with PID: the cluster ends with that process, however it ends', { skip }, async (t) => {
  const { env, common } = await setUp(t)
  const port = await freeClusterPort(1)
  const owner = require('node:child_process').spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'],
    { stdio: 'ignore' })
  t.after(() => owner.kill('SIGKILL'))
  const started = await cluster(['start', '--http_port', String(port), '--stop_with', String(owner.pid), '--json',
    ...common], { env })
  assert.equal(started.code, 0, started.stderr)
  const state = started.json
  assert.equal(await anyAlive(state, 0), true)
  owner.kill('SIGKILL')
  assert.equal(await anyAlive(state, 15_000), false, 'the nodes ended with the process they were tied to')
  const deadline = Date.now() + 10_000
  while (fs.existsSync(state.dir) && Date.now() < deadline) await sleep(200)
  assert.equal(fs.existsSync(state.dir), false)
  const gone = await cluster(['start', '--stop_with', '999999999', ...common], { env })
  assert.equal(gone.code, 2)
  assert.match(gone.stderr, /--stop_with must be the pid of a running process \(got '999999999'\)/)
})
