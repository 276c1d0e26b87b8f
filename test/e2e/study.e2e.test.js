'use strict'

// crate-bench study end to end on the fake distribution (test/helpers/fake-distribution.js): shapes started fresh,
// their parts run, stopped, the sizing of all of them; resume; a shape whose cluster does not start; bad files.

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const os = require('node:os')
const net = require('node:net')
const path = require('node:path')
const { runTool } = require('../helpers/run-tool')
const { assertSizingExit } = require('../helpers/sizing-exit')
const { freeClusterPort } = require('../helpers/ports')
const { fakeDistribution, testRunAs, openDir } = require('../helpers/fake-distribution')

const { user, skip: why } = testRunAs()
const skip = why || false

async function setUp (t) {
  const root = openDir(fs.mkdtempSync(path.join(os.tmpdir(), 'crate-bench-study-')))
  const env = { CRATE_BENCH_CACHE: path.join(root, 'cache') }
  t.after(async () => {
    await runTool('bin/crate-bench.js', ['cluster', 'stop', '--all'], { env })
    fs.rmSync(root, { recursive: true, force: true })
  })
  const tarball = await fakeDistribution(root)
  const mix = path.join(root, 'mix.yml')
  fs.writeFileSync(mix, '- {name: count, query: "SELECT count(*) FROM doc.cpu", ratio: 1}\n')
  return { root, env, tarball, mix }
}

const studyFile = (root, text) => {
  const file = path.join(root, `study-${Math.random().toString(36).slice(2)}.yml`)
  fs.writeFileSync(file, text)
  return file
}

/** A study of one 1-node shape measuring a 2 × 2 grid of `duration` runs, `args` added to theirs. */
const oneNodeGridStudy = (root, tarball, port, { duration, args = '' }) =>
  studyFile(root, `cluster: {tarball: ${tarball}, nodes: [1], heap: 256m, http_port: ${port}` +
    `${user ? `, run_as: ${user}` : ''}}
grid: {vary: {batch_size: [500, 1000], concurrent_requests: [1, 2]}, repeat: 1, duration: ${duration}, warmup: 200ms,
  args: [--processes, 1, --monitor_interval, '0'${args}]}
`)

const study = (args, options) => runTool('bin/crate-bench.js', ['study', ...args], { timeoutMs: 180_000, ...options })

test('each shape started fresh, its grid, mixed capacity and sustained run, stopped; the sizing of all; resumed ' +
  'with nothing to run', { skip }, async (t) => {
  const { root, env, tarball, mix } = await setUp(t)
  const port = await freeClusterPort(2)
  const file = studyFile(root, `cluster:
  tarball: ${tarball}
  nodes: [1, 2]
  heap: 256m
  http_port: ${port}
${user ? `  run_as: ${user}\n` : ''}grid:
  vary: {batch_size: [500, 1000], concurrent_requests: [1, 2]}
  repeat: 1
  duration: 1s
  warmup: 200ms
  args: [--processes, 1, --monitor_interval, '0']
mixed:
  queries: ${mix}
  query_rate: 5
  slo: p99=2s
  duration: 1s
  warmup: 500ms
  start: 1000
  edge_repeat: 1
  max_steps: 2
  args: [--monitor_interval, '0']
sustained:
  duration: 2s
  args: [--processes, 1, --monitor_interval, '0']
`)
  const out = path.join(root, 'out')
  const run = await study([file, '--out', out], { env })
  assertSizingExit(run, out)
  assert.match(run.stderr, /^study: 2 shapes \(1 node, 2 nodes\) of CrateDB .*; 2 to run, about \d+ (s|min); results /m)
  assert.match(run.stderr, /^\[shape 2 of 2: 2 nodes\] the later parts run at the grid's (recommended|best)/m)
  for (const shape of ['1-node', '2-nodes']) {
    for (const made of ['grid/grid.json', 'mixed/capacity.summary.json', 'sustained.json', 'cluster-record.json',
      'grid.log', 'mixed.log', 'sustained.log', 'cluster/node1/logs', 'cluster/node1/out.log']) {
      assert.ok(fs.existsSync(path.join(out, shape, made)), `${shape}/${made}`)
    }
    // The cluster's data went with it; its nodes' logs stay with the results.
    assert.equal(fs.existsSync(path.join(out, shape, 'cluster', 'node1', 'data')), false)
  }
  assert.ok(fs.existsSync(path.join(out, 'study.log')))
  assert.match(run.stderr, new RegExp(`^the study's log: ${out.replace(/[/.]/g, '\\$&')}/study\\.log$`, 'm'))
  assert.equal(JSON.parse(fs.readFileSync(path.join(out, '2-nodes', 'cluster-record.json'), 'utf8')).nodes, 2)
  // One configuration through every part (issue 62): the sustained run and the mixed capacity's ingest at the grid's
  // cell, with every option of grid.args (its --processes 1 among them).
  const cellOf = (shape) => {
    const grid = JSON.parse(fs.readFileSync(path.join(out, shape, 'grid', 'grid.json'), 'utf8'))
    return (grid.recommended ?? grid.equivalent ?? grid.best).settings
  }
  for (const shape of ['1-node', '2-nodes']) {
    const cell = cellOf(shape)
    const o = JSON.parse(fs.readFileSync(path.join(out, shape, 'sustained.json'), 'utf8')).options
    assert.deepEqual([o.batch_size, o.concurrent_requests, o.processes, o.monitor_interval_ms ?? o.monitor_interval],
      [cell.batch_size, cell.concurrent_requests, 1, 0], shape)
    const step = JSON.parse(fs.readFileSync(path.join(out, shape, 'mixed', 'capacity.jsonl'), 'utf8').split('\n')[0])
    const ingest = step.result.options.ingest
    assert.deepEqual([ingest.batch_size, ingest.concurrent_requests, ingest.processes],
      [cell.batch_size, cell.concurrent_requests, 1], `${shape}: the mixed capacity's ingest`)
  }
  const sizing = JSON.parse(fs.readFileSync(path.join(out, 'sizing.json'), 'utf8'))
  assert.deepEqual(sizing.groups[0].shapes.map((s) => s.nodes), [1, 2])
  assert.match(sizing.study_caveats[0], /^2 nodes on one \d+-core machine: this measures CrateDB's scaling on shared/)
  assert.deepEqual(Object.keys(sizing.started), ['1-node', '2-nodes'])
  // The page a buyer forwards says what was measured, and carries every caveat the terminal printed.
  assert.deepEqual(sizing.measured.crate.map((c) => c.version), ['9.9.9'])
  assert.match(sizing.measured.study_file.sha256, /^[0-9a-f]{64}$/)
  const page = fs.readFileSync(path.join(out, 'sizing.html'), 'utf8')
  assert.match(page, /<h2>What was measured<\/h2>/)
  assert.match(page, /CrateDB 9\.9\.9, build fake-build-hash, distribution SHA-256 [0-9a-f]{64}/)
  assert.match(page, /2 nodes on one \d+-core machine: this measures CrateDB(&#39;|&#x27;|')s scaling on shared cores/)
  assert.match(run.stderr, /^caveat: 2 nodes on one \d+-core machine/m)
  // Forwarded, it names no folder of this machine: the study file and the inputs from the page's own folder.
  assert.equal(page.includes(root), false, 'no absolute path of this machine on the page')
  assert.match(page, /study file \.\.\/study-[a-z0-9]+\.yml \(SHA-256 [0-9a-f]{64}\)/)
  const sustained = JSON.parse(fs.readFileSync(path.join(out, '2-nodes', 'sustained.json'), 'utf8'))
  assert.equal(sustained.environment.cluster.provisioned.by, 'the study')
  const listed = await runTool('bin/crate-bench.js', ['cluster', 'list'], { env })
  assert.equal(listed.stdout, 'no cluster of this tool runs on this machine\n', 'every shape\'s cluster stopped')
  const again = await study([file, '--out', out], { env })
  assertSizingExit(again, out)
  assert.match(again.stderr, /resuming: 2 done, 0 to run/)
  assert.doesNotMatch(again.stderr, /starting the cluster/)
})

test('a shape whose cluster does not start: the study goes on with the next and says which failed; bad files are ' +
  'one line before anything starts', { skip }, async (t) => {
  const { root, env, tarball } = await setUp(t)
  const port = await freeClusterPort(2)
  // The 2-node shape's second node finds its HTTP port taken.
  const holder = net.createServer()
  await new Promise((resolve) => holder.listen(port + 1, '127.0.0.1', resolve))
  t.after(() => holder.close())
  const file = studyFile(root, `cluster: {tarball: ${tarball}, nodes: [2, 1], heap: 256m, http_port: ${port}` +
    `${user ? `, run_as: ${user}` : ''}}
grid: {vary: {batch_size: [500, 1000], concurrent_requests: [1, 2]}, repeat: 1, duration: 1s, warmup: 200ms,
  args: [--processes, 1, --monitor_interval, '0']}
`)
  const out = path.join(root, 'out')
  const run = await study([file, '--out', out], { env })
  assert.equal(run.code, 4, run.stderr)
  assert.match(run.stderr, new RegExp(`^\\[shape 1 of 2: 2 nodes\\] its cluster did not start: port ${port + 1} ` +
    '\\(HTTP of node 2\\) is taken', 'm'))
  assert.match(run.stderr, /^warning: shape 2-nodes: its cluster did not start: /m)
  const sizing = JSON.parse(fs.readFileSync(path.join(out, 'sizing.json'), 'utf8'))
  assert.deepEqual(sizing.groups[0].shapes.map((s) => s.nodes), [1])
  const progress = JSON.parse(fs.readFileSync(path.join(out, 'study.json'), 'utf8'))
  assert.deepEqual([progress.shapes[2].status, progress.shapes[1].status], ['failed', 'done'])
  for (const [text, pattern] of [
    ['cluster: {tarball: x, nodes: [1]}\ngrid: {vary: {batch_size: [1, 2], concurrent_requests: [1, 2]}}\nrounds: 3\n',
      /unknown key rounds in the study file \(known: cluster, targets, grid, mixed, sustained, contenders, /],
    [`contenders: [{name: a, tarball: ${tarball}}, {name: b, tarball: ${tarball}}]\nprecision: 0%\n`,
      /precision must be a percentage above 0 and below 50, such as 5% \(got "0%"\)/],
    [`contenders: [{name: a, tarball: ${tarball}}, {name: b, tarball: ${tarball}}]\nbudget: 10s\n`,
      /budget must be a duration from 1m to 720h, such as 20m \(got '10s'\)/],
    [`contenders: [{name: a, tarball: ${tarball}}, {name: b, tarball: ${tarball}}]\nduet: yes please\n`,
      /duet must be true or false \(got "yes please"\)/],
    ['cluster: {tarball: x, nodes: [1]}\ngrid: {vary: {batch_size: [1, 2], concurrent_requests: [1, 2]}}\nforks: 3\n',
      /forks: goes with contenders: \(a comparison\)/],
    ['contenders: [{name: a, tarball: x}]\n', /contenders: must list two clusters or more/],
    [`contenders: [{name: a, tarball: ${tarball}}, {name: a, version: 6.4.3}]\n`, /contenders: two have the same name/],
    ['cluster: {tarball: x, nodes: [0]}\ngrid: {vary: {batch_size: [1, 2], concurrent_requests: [1, 2]}}\n',
      /cluster\.nodes\[0\] must be a whole number from 1 to 20 \(got 0\)/],
    ['cluster: {tarball: x, nodes: [1]}\ngrid: {vary: {batch_size: [1, 2], concurrent_requests: [1, 2]}}\n',
      /cluster\.tarball: x is no file/],
    ['cluster: {nodes: [1]}\ngrid: {vary: {batch_size: [1, 2], concurrent_requests: [1, 2]}}\n',
      /cluster: give the distribution: version: X\.Y\.Z or tarball: PATH\|URL/],
    ['cluster: {tarball: x, heap_size: 1g}\ngrid: {vary: {batch_size: [1, 2], concurrent_requests: [1, 2]}}\n',
      /unknown key cluster\.heap_size in the study file \(known under cluster: /]
  ]) {
    const bad = await study([studyFile(root, text), '--out', path.join(root, 'bad')], { env })
    assert.equal(bad.code, 2, bad.stderr)
    assert.match(bad.stderr, pattern)
    assert.equal(bad.stderr.trim().split('\n').length, 1, bad.stderr)
  }
})

test('a bad --out is one line and exit 2 (a file, a read-only place, /proc: no spin); a study refused on a busy ' +
  'folder writes nothing into the running study\'s log', { skip }, async (t) => {
  const { root, env, tarball } = await setUp(t)
  const file = oneNodeGridStudy(root, tarball, await freeClusterPort(1), { duration: '1s' })
  const aFile = path.join(root, 'a-file')
  fs.writeFileSync(aFile, 'x')
  for (const [out, pattern] of [[aFile, /--out '.*a-file' is a file, not a folder/],
    // As root the owned-path check finds it first.
    [path.join(aFile, 'under'), /--out '?.*a-file\/under'?: (cannot create that folder|cannot look at .*) \(ENOTDIR\)/],
    ['/proc/self/out', /--out '\/proc\/self\/out': cannot create that folder \(ENOENT\)/]]) {
    const bad = await study([file, '--out', out], { env, timeoutMs: 30_000 })
    assert.equal(bad.code, 2, bad.stderr)
    assert.match(bad.stderr, pattern)
    assert.equal(bad.stderr.trim().split('\n').length, 1, bad.stderr)
  }
  // A folder whose lock a living study holds (a process whose command line names the tool's script stands for it).
  const holder = require('node:child_process').spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)',
    'crate-bench.js'], { stdio: 'ignore' })
  t.after(() => holder.kill('SIGKILL'))
  const busy = path.join(root, 'busy')
  fs.mkdirSync(busy)
  fs.writeFileSync(path.join(busy, 'study.lock'), `${JSON.stringify({ pid: holder.pid, host: os.hostname(),
    started_at: new Date().toISOString() })}\n`)
  fs.writeFileSync(path.join(busy, 'study.log'), 'the running study\'s line\n')
  const refused = await study([file, '--out', busy], { env, timeoutMs: 30_000 })
  assert.equal(refused.code, 2, refused.stderr)
  assert.match(refused.stderr, /is in use by another study \(pid \d+/)
  assert.equal(fs.readFileSync(path.join(busy, 'study.log'), 'utf8'), 'the running study\'s line\n')
})

test('Ctrl-C during a shape: its part and its cluster stopped, exit 4, nothing left running; the same command ' +
  'measures that shape again from a fresh cluster', { skip }, async (t) => {
  const { root, env, tarball } = await setUp(t)
  const port = await freeClusterPort(1)
  const file = oneNodeGridStudy(root, tarball, port, { duration: '3s' })
  const out = path.join(root, 'out')
  const stopped = await study([file, '--out', out], { env, detached: true, waitFor: /\[shape 1 of 1: 1 node\] grid$/m,
    whileRunning: (child) => setTimeout(() => process.kill(-child.pid, 'SIGINT'), 1500) })
  assert.equal(stopped.code, 4, stopped.stderr)
  assert.match(stopped.stderr,
    /interrupted: 1-node is not counted; the same command runs it again, from a fresh cluster/)
  assert.match(stopped.stderr, /\[shape 1 of 1: 1 node\] its cluster stopped/)
  const listed = await runTool('bin/crate-bench.js', ['cluster', 'list'], { env })
  assert.equal(listed.stdout, 'no cluster of this tool runs on this machine\n')
  assert.equal(fs.existsSync(path.join(out, 'study.lock')), false, 'the lock released')
  const resumed = await study([file, '--out', out], { env })
  assertSizingExit(resumed, out)
  assert.match(resumed.stderr, /1 to run/)
  assert.match(resumed.stderr, /\[shape 1 of 1: 1 node\] starting the cluster/)
})

/** The pids of processes whose command line holds `text` (Linux /proc). */
function processesHolding (text) {
  return fs.readdirSync('/proc').filter((p) => /^[0-9]+$/.test(p)).filter((pid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(text)
    } catch {
      return false
    }
  })
}

test('a study killed outright: its grid and the grid\'s run end on their own within seconds, not after their ' +
  'timeouts; its resume waits for what is left, then measures the shape again', { skip }, async (t) => {
  const { root, env, tarball } = await setUp(t)
  const port = await freeClusterPort(1)
  const file = oneNodeGridStudy(root, tarball, port, { duration: '4s', args: ', --timeout, 60s' })
  const out = path.join(root, 'out')
  const killed = await study([file, '--out', out], { env, detached: true, waitFor: /\[shape 1 of 1: 1 node\] grid$/m,
    whileRunning: (child) => setTimeout(() => process.kill(-child.pid, 'SIGKILL'), 1500) })
  assert.equal(killed.signal, 'SIGKILL')
  const killedAt = Date.now()
  // The grid (its --out under the study's folder) and its run (its --host the study's node).
  const left = () => [...processesHolding(out), ...processesHolding(`127.0.0.1:${port}`)]
  while (left().length && Date.now() - killedAt < 40_000) await new Promise((resolve) => setTimeout(resolve, 200))
  assert.deepEqual(left(), [], 'nothing of the killed study still runs')
  const endedAfterS = (Date.now() - killedAt) / 1000
  assert.ok(endedAfterS < 40, `ended ${endedAfterS} s after the study, within the grace, not the runs' 60 s timeout`)
  const resumed = await study([file, '--out', out], { env })
  assertSizingExit(resumed, out)
  assert.match(resumed.stderr, /1 to run/)
  assert.ok(fs.existsSync(path.join(out, '1-node', 'grid', 'grid.json')))
})

test('a node that dies during a fork\'s run is named with its last log lines, its logs kept under the study; the ' +
  'run is kept out of the comparison, the study exits 4, and its resume runs that fork again', { skip }, async (t) => {
  const { root, env, tarball } = await setUp(t)
  const port = await freeClusterPort(1)
  const runAs = user ? `, run_as: ${user}` : ''
  const file = studyFile(root, `contenders:
  - {name: a, tarball: ${tarball}, heap: 256m, http_port: ${port}${runAs}}
  - {name: b, tarball: ${tarball}, heap: 256m, http_port: ${port}${runAs}}
forks: 2
run:
  args: [--duration, 3s, --warmup, '0', --processes, '1', --monitor_interval, '0', --timeout, 2s]
`)
  const out = path.join(root, 'out')
  const run = await study([file, '--out', out], { env,
    waitFor: /\[fork 1 of 2: a\] starting the cluster[\s\S]*ready in/,
    whileRunning: (child, stderr) => {
      // a's cluster: a fork's order is drawn, and b may have run first.
      const name = /\[fork 1 of 2: a\] starting the cluster\n.*?\((crate-bench-[0-9a-f]+), 256m heap/s.exec(stderr)[1]
      setTimeout(() => processesHolding(`-Ccluster.name=${name}`).forEach((pid) => process.kill(Number(pid),
        'SIGKILL')), 1000)
    } })
  assert.equal(run.code, 4, run.stderr)
  assert.match(run.stderr, new RegExp('^warning: crate-bench-[0-9a-f]+-n1 \\(pid \\d+\\) of a\'s cluster is no ' +
    'longer running(: no cause in its log \\(killed from outside\\?\\))?; its ', 'm'))
  assert.match(run.stderr, /its last log lines \(its logs kept in .*forks\/1-a-lost-nodes\/crate-bench-[0-9a-f]+-n1\):/)
  assert.match(run.stderr, /^ {4}\[INFO \]\[o\.e\.n\.Node\] .* started on \d+$/m)
  assert.match(run.stderr, /^warning: fork 1 of a: crate-bench-[0-9a-f]+-n1 died during the run: not compared$/m)
  const [kept] = fs.readdirSync(path.join(out, 'forks', '1-a-lost-nodes'))
  assert.ok(fs.readFileSync(path.join(out, 'forks', '1-a-lost-nodes', kept, 'out.log'), 'utf8').includes('started on'))
  const first = JSON.parse(fs.readFileSync(path.join(out, 'comparison.json'), 'utf8')).comparisons[0]
  assert.deepEqual([first.base_runs, first.new_runs, first.forks], [1, 1, [2]],
    'the partial run of fork 1 of a left out, and b\'s run of fork 1 without its pair')
  const progress = JSON.parse(fs.readFileSync(path.join(out, 'study.json'), 'utf8'))
  assert.equal(progress.forks['1-a'].status, 'failed')
  const resumed = await study([file, '--out', out], { env })
  assert.equal(resumed.code, 0, resumed.stderr)
  assert.match(resumed.stderr, /resuming: 3 runs done/)
  assert.match(resumed.stderr, /^\[fork 1 of 2: a\] starting the cluster/m)
  const again = JSON.parse(fs.readFileSync(path.join(out, 'comparison.json'), 'utf8')).comparisons[0]
  assert.deepEqual([again.base_runs, again.new_runs], [2, 2])
})

/** A contenders study of the fake distribution: fast (100 ms a request) against slow (600 ms), with `keys`. */
const fastAndSlow = (root, { tarball, port, keys }) => {
  const runAs = user ? `, run_as: ${user}` : ''
  return studyFile(root, `contenders:
  - {name: fast, tarball: ${tarball}, heap: 256m, http_port: ${port}, settings: {fake.delay_ms: 100}${runAs}}
  - {name: slow, tarball: ${tarball}, heap: 256m, http_port: ${port}, settings: {fake.delay_ms: 600}${runAs}}
${keys}
run:
  workload: ingest
  args: [--max_rows, '2000', --batch_size, '500', --concurrent_requests, '1', --processes, '1',
    --monitor_interval, '0']
`)
}

// Both builds answer each bulk late, so that the runs' rates are the builds' more than how busy the machine is, and
// four forks: CI's faster build's runs of four quick requests measured 27,027, 57,142 and 31,746 rows/s, then (40 ms a
// bulk, on a loaded machine) 10,075, 4,499 and 9,975, and compare rightly said three such runs prove nothing.
test('contenders: each fork starts each contender fresh, in an order drawn for the fork; compare\'s paired verdict ' +
  'finds a slower build', { skip }, async (t) => {
  const { root, env, tarball } = await setUp(t)
  const port = await freeClusterPort(1)
  const file = fastAndSlow(root, { tarball, port, keys: 'forks: 4' })
  const out = path.join(root, 'out')
  const run = await study([file, '--out', out], { env })
  assert.equal(run.code, 0, run.stderr)
  const order = [...run.stderr.matchAll(/^\[fork (\d) of 4: (\w+)\] starting the cluster/gm)]
    .map((m) => `${m[1]}${m[2]}`)
  assert.deepEqual([...order].sort(), ['1fast', '1slow', '2fast', '2slow', '3fast', '3slow', '4fast', '4slow'])
  for (let i = 0; i < 8; i += 2) assert.equal(order[i][0], order[i + 1][0], 'a fork\'s contenders one after another')
  const { comparisons } = JSON.parse(fs.readFileSync(path.join(out, 'comparison.json'), 'utf8'))
  const rate = comparisons[0].figures.find((f) => f.figure === 'rows/s')
  assert.equal(rate.verdict, 'worse', JSON.stringify(rate))
  assert.equal(rate.paired, true)
  assert.ok(rate.ci_pct[1] < 0, 'the whole interval below zero')
  assert.match(run.stderr, /^ {2}rows\/s: [0-9,.]+ -> [0-9,.]+ \(-[0-9.]+%, 95% interval .*\): worse$/m)
  assert.equal(fs.readFileSync(path.join(out, 'comparison.html'), 'utf8').includes(root), false,
    'no absolute path of this machine on the page')
  const result = JSON.parse(fs.readFileSync(path.join(out, 'forks', '2-slow.json'), 'utf8'))
  assert.deepEqual(result.environment.cluster.provisioned.settings, { 'fake.delay_ms': '600' })
  const again = await study([file, '--out', out], { env })
  assert.equal(again.code, 0, again.stderr)
  assert.match(again.stderr, /resuming: 8 runs done/)
  assert.doesNotMatch(again.stderr, /starting the cluster/)
})

test('calibrate, duet and precision: an A/A duet of the first contender says what the study can see, then duets ' +
  'of both (each its own ports and load generator) until the ratio is within the precision; the page says what a ' +
  'duet cannot see', { skip }, async (t) => {
  const { root, env, tarball } = await setUp(t)
  const port = await freeClusterPort(2)
  const file = fastAndSlow(root, { tarball, port, keys: 'duet: true\ncalibrate: true\nprecision: 20%\nbudget: 10m' })
  const out = path.join(root, 'out')
  const run = await study([file, '--out', out], { env })
  assert.equal(run.code, 0, run.stderr)
  assert.match(run.stderr, /^calibration: fast against itself \(an A\/A study\), as the comparison will run/m)
  // Who starts first: the first duet drawn, then in turn.
  assert.match(run.stderr, /^\[fork 1: duet\] (fast and fast-again|fast-again and fast) run at once, each with /m)
  assert.match(run.stderr, /^\[fork 1: duet\] (fast and slow|slow and fast) run at once, each with its own load /m)
  // The second contender moved past the first's ports: both clusters up at once.
  assert.match(run.stderr, new RegExp(`ready in [\\d.]+ s: crate-bench-[0-9a-f]+-n1 http ${port + 1} `))
  assert.match(run.stderr, new RegExp('^forks: the throughput ratio\'s 95% interval is within ±[\\d.]+ points of the ' +
    'change against fast \\(±20% asked, on that scale\\) after \\d+ forks$', 'm'))
  // The interval after each fork, as the forks go; the stop, the asked precision and the time on the page and JSON.
  assert.match(run.stderr,
    /^\[fork 2\] slow against fast: throughput -[\d.]+% \(95% interval -[\d.]+% \.\. [-+]?[\d.]+%, ±[\d.]+ /m)
  assert.match(run.stderr, /^forks: the throughput ratio's .*; the forks took .* \(asked: ±20% on the throughput /m)
  assert.match(run.stderr, /^calibration: an A\/A study of fast \(\d+ forks, duets\): this study could see changes /m)
  const saved = JSON.parse(fs.readFileSync(path.join(out, 'comparison.json'), 'utf8'))
  assert.equal(saved.mode, 'duet')
  assert.deepEqual([saved.stopping.precision, saved.stopping.budget, saved.stopping.reason],
    ['20%', '10m', 'precision'])
  assert.ok(saved.stopping.forks >= 3 && saved.stopping.spent_s > 0, JSON.stringify(saved.stopping))
  assert.equal(saved.position.forks, saved.stopping.forks, 'every duet recorded who started first')
  assert.match(fs.readFileSync(path.join(out, 'comparison.html'), 'utf8'), /forks: the throughput ratio(&#39;|')s 95%/)
  assert.match(saved.calibration.line, /could see changes of [\d.]+% or more in rows\/s/)
  const rate = saved.comparisons[0].figures.find((f) => f.figure === 'rows/s')
  assert.deepEqual([rate.verdict, rate.paired], ['worse', true])
  assert.ok(saved.warnings.some((w) => /^duet: the contenders ran at once on this machine/.test(w)))
  assert.match(fs.readFileSync(path.join(out, 'comparison.html'), 'utf8'), /calibration: an A\/A study of fast/)
  assert.ok(fs.existsSync(path.join(out, 'calibration', 'comparison.json')))
})
