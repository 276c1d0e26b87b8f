'use strict'

// A run beside other work on its machine: what the others took is measured from /proc (the machine's CPU less the
// run's processes and the cluster's nodes here) and marks the run busy (issue 61: a node on a machine other tenants
// loaded to 3.4 per core ran its grid 20x slower and no run was marked).

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const os = require('node:os')
const { spawn } = require('node:child_process')
const net = require('node:net')
const { startFakeNode } = require('../helpers/fake-distribution')
const { freeClusterPort } = require('../helpers/ports')
const { runTool } = require('../helpers/run-tool')
const { assertSizingExit } = require('../helpers/sizing-exit')

const cores = os.availableParallelism()
// One loop a core: on a larger machine the others' share would be too small a part of it to test here.
const why = !fs.existsSync('/proc/stat') ? 'no /proc/stat on this system'
  : cores > 4 ? `${cores} cores: loops on all of them would slow every test beside this one` : null
if (why) console.log(`# the busy-machine test skips: ${why}`)

test('other work beside a run takes the machine: measured, and the run marked busy, its report says so',
  { skip: why || false }, async (t) => {
    // The node a process of its own whose command line is a CrateDB node's (the holder of its port is counted as
    // the cluster only then).
    const port = await freeClusterPort(1)
    await startFakeNode(t, port)
    const loops = Array.from({ length: cores }, () => spawn(process.execPath, ['-e', 'for (;;) {}'],
      { stdio: 'ignore' }))
    t.after(() => loops.forEach((l) => l.kill('SIGKILL')))
    const run = await runTool('appClusterIngest.js', ['--host', `http://127.0.0.1:${port}`, '--duration', '3s',
      '--processes', '1', '--batch_size', '500', '--monitor_interval', '0', '--json'],
    { env: { CRATE_BENCH_BUSY_OTHERS_PCT: '25' } })
    loops.forEach((l) => l.kill('SIGKILL'))
    assert.equal(run.code, 0, run.stderr)
    const m = run.json.machine
    assert.equal(m.cores, cores)
    assert.equal(m.cluster_known, true, 'the node listens here: its process is the cluster\'s')
    assert.equal(m.cluster_processes, 1)
    assert.ok(m.others_pct > 25, JSON.stringify(m))
    assert.ok(m.own_pct > 0 && m.cluster_pct > 0, JSON.stringify(m))
    assert.match(run.stderr, /^warning: other work took \d+(\.\d)?% of this machine's CPU during the load \(more /m)
    assert.match(run.stderr, /^this machine \(\d+ cores\) during the load: .*, other work \d+(\.\d)?%$/m)
    // The node is a process of this machine listening on the host's port: its CPU is read in /proc.
    const cost = run.json.cluster_cpu
    assert.equal(cost.source, 'proc')
    assert.ok(cost.cpu_s > 0 && cost.ms_per_1000 > 0 && cost.cores >= 1, JSON.stringify(cost))
    assert.equal(cost.jit_s, null, 'a Node.js node has no JIT compiler threads of HotSpot\'s: unknown, not 0')
    assert.ok(Math.abs(cost.ms_per_1000 - (cost.cpu_s / run.json.rows_ok) * 1e6) <= 0.001, 'CPU ms per 1,000 rows')
    assert.match(run.stderr, /^cluster CPU: [\d.,]+ ms per 1,000 rows over the measured window \(from the nodes' /m)
  })

// Issue 67: a URL through a local forwarder (kubectl port-forward, ssh -L) took the forwarder for the node, and the
// real node's CPU for other work.
test('a URL through a local forwarder: the forwarder is no node, the nodes are said not to be on this machine',
  { skip: !fs.existsSync('/proc/stat') ? 'no /proc/stat on this system' : false }, async (t) => {
    const port = await freeClusterPort(1)
    await startFakeNode(t, port)
    // The forwarder: this test's own process, passing every connection on to the node.
    const forwarder = net.createServer((socket) => {
      const ahead = net.connect(port, '127.0.0.1')
      socket.pipe(ahead).pipe(socket)
      for (const end of [socket, ahead]) end.on('error', () => { socket.destroy(); ahead.destroy() })
    })
    await new Promise((resolve) => forwarder.listen(0, '127.0.0.1', resolve))
    t.after(() => forwarder.close())
    const forwarded = forwarder.address().port
    const run = await runTool('appClusterIngest.js', ['--host', `http://127.0.0.1:${forwarded}`, '--max_rows',
      '2000', '--processes', '1', '--batch_size', '500', '--monitor_interval', '0', '--json'])
    assert.equal(run.code, 0, run.stderr)
    const m = run.json.machine
    assert.equal(m.cluster_processes, 0, JSON.stringify(m))
    assert.deepEqual(m.forwarders.map((f) => [f.host, f.pid]), [[`127.0.0.1:${forwarded}`, process.pid]])
    assert.equal(run.json.cluster_cpu === null || run.json.cluster_cpu.source !== 'proc', true,
      JSON.stringify(run.json.cluster_cpu))
    assert.match(run.stderr, /during the load: .*, the cluster's nodes not on this machine, other work/)
    assert.match(run.stderr, new RegExp(`127\\.0\\.0\\.1:${forwarded} is held by pid ${process.pid} \\(.*\\), no ` +
      'CrateDB node: a forwarder'))
  })

// Issue 62: the bound of a node's load grew with the nodes sharing a machine, so 3 nodes beside other tenants looked
// cleaner than 1 node; what others took of the machine marks a 3-node shape as surely as a 1-node one.
// As root in a folder the nodes' user cannot enter, the fake distribution cannot run (the provisioner's tests say so).
const provisioner = require('../helpers/provisioner')

test('a 3-node shape of a study beside another tenant\'s work: its runs marked busy, the sizing says so',
  { skip: why || provisioner.skip }, async (t) => {
    const { provisionSetUp, user } = provisioner
    const path = require('node:path')
    const { root, env, tarball } = await provisionSetUp(t, { prefix: 'crate-bench-busy-' })
    const port = await freeClusterPort(3)
    const file = path.join(root, 'study.yml')
    fs.writeFileSync(file, `cluster: {tarball: ${tarball}, nodes: [3], heap: 256m, http_port: ${port}` +
      `${user ? `, run_as: ${user}` : ''}}
grid: {vary: {batch_size: [500, 1000], concurrent_requests: [1, 2]}, repeat: 1, duration: 2s, warmup: 200ms,
  args: [--processes, 1, --monitor_interval, '0']}
`)
    const loops = Array.from({ length: cores }, () => spawn(process.execPath, ['-e', 'for (;;) {}'],
      { stdio: 'ignore' }))
    t.after(() => loops.forEach((l) => l.kill('SIGKILL')))
    const out = path.join(root, 'out')
    const run = await runTool('bin/crate-bench.js', ['study', file, '--out', out],
      { env: { ...env, CRATE_BENCH_BUSY_OTHERS_PCT: '25' }, timeoutMs: 300_000 })
    loops.forEach((l) => l.kill('SIGKILL'))
    assertSizingExit(run, out)
    const grid = JSON.parse(fs.readFileSync(path.join(out, '3-nodes', 'grid', 'grid.json'), 'utf8'))
    const runs = grid.cells.flatMap((c) => c.runs)
    assert.ok(runs.some((r) => /^other work took \d+(\.\d)?% of this machine's CPU/.test(r.busy_machine ?? '')),
      JSON.stringify(runs.map((r) => r.busy_machine)))
    const sizing = JSON.parse(fs.readFileSync(path.join(out, 'sizing.json'), 'utf8'))
    assert.match(sizing.groups[0].shapes[0].verdicts.join('\n'), /^busy: \d+ of 4 runs ran beside other work/m)
  })
