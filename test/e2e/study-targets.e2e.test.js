'use strict'

// A study of clusters the tool did not start (targets:), against test doubles standing for clusters of one's own:
// each target's up: command before its parts and its down: after them, the wait until it answers with every node,
// its record from sys.nodes, its runs pointed at its hosts (no record of a started cluster), the sizing of both; a
// target that never answers is named and not sized, and the study exits 4 with the others sized.

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { runTool } = require('../helpers/run-tool')
const { tempDir } = require('../helpers/temp-files')
const { startCrateTestDouble, startCrateTestCluster } = require('../helpers/crate-test-double')
const { assertSizingExit } = require('../helpers/sizing-exit')
const { EXIT } = require('../../lib/base/errors')

const grid = `grid:
  vary: {batch_size: [500, 1000], concurrent_requests: [1, 2]}
  repeat: 1
  duration: 1s
  warmup: 200ms
  args: [--processes, 1, --monitor_interval, '0']
sustained:
  duration: 2s
  args: [--processes, 1, --monitor_interval, '0']
`

test('targets: each brought up, waited for, recorded from itself, measured at its hosts, brought down; the sizing of ' +
  'both', async (t) => {
  const one = await startCrateTestDouble({})
  // Two of the large one's nodes on one machine (as VMs or containers of one host report it).
  const three = await startCrateTestCluster({ nodeShapes: [{ hostname: 'rack-a' }, { hostname: 'rack-a' },
    { hostname: 'rack-b' }] }, { nodes: 3 })
  t.after(() => Promise.all([one.stop(), three.stop()]))
  const root = tempDir(t)
  const calls = path.join(root, 'calls.log')
  const file = path.join(root, 'targets.yml')
  const hostsOf = (double) => double.nodes.map((n) => `http://127.0.0.1:${n.port}`)
  fs.writeFileSync(file, `targets:
  - {name: small, hosts: [${hostsOf(one).join(', ')}], up: 'echo up small >> ${calls}',
     down: 'echo down small >> ${calls}'}
  - {name: large, hosts: [${hostsOf(three).join(', ')}], up: 'echo up large >> ${calls}; echo deploying',
     down: 'echo down large >> ${calls}', wait: 30s}
${grid}`)
  const out = path.join(root, 'out')
  const run = await runTool('bin/crate-bench.js', ['study', file, '--out', out], { timeoutMs: 180_000 })
  assertSizingExit(run, out)
  assert.match(run.stderr, /^study: 2 shapes \(small: 1 node, large: 3 nodes\) of clusters of your own \(targets:\);/m)
  assert.equal(fs.readFileSync(calls, 'utf8'), 'up small\ndown small\nup large\ndown large\n',
    'each target brought up before its parts and down after them, in the order given')
  assert.match(run.stderr, /^ {2}up: deploying$/m, 'the up: command\'s output on the terminal')
  assert.match(run.stderr, /^\[shape 2 of 2: large\] found CrateDB 6\.4\.3 \(build d3b32135[0-9a-f]+\): 3 nodes \(/m)
  assert.match(run.stderr, /its nodes answer at this machine's addresses: its CPU per row from their processes here /)
  assert.match(run.stderr,
    /^CrateDB 6\.4\.3, build d3b32135[0-9a-f]+, as small said of itself \(a cluster of your own: /m)
  assert.match(run.stderr, /^the load generator's machine: /m)
  const record = JSON.parse(fs.readFileSync(path.join(out, 'large', 'cluster-record.json'), 'utf8'))
  assert.deepEqual([record.kind, record.nodes, record.version, record.hosts], ['target', 3, '6.4.3', hostsOf(three)])
  // The runs went to the target's hosts, with no record of a started cluster.
  const sustained = JSON.parse(fs.readFileSync(path.join(out, 'large', 'sustained.json'), 'utf8'))
  assert.deepEqual(sustained.options.hosts, hostsOf(three))
  assert.equal(sustained.environment.cluster.provisioned, undefined)
  const sizing = JSON.parse(fs.readFileSync(path.join(out, 'sizing.json'), 'utf8'))
  assert.deepEqual(sizing.groups[0].shapes.map((s) => s.nodes), [1, 3])
  assert.deepEqual(sizing.study_caveats, ['large: 2 nodes report the hostname rack-a: they may share one machine, ' +
    'whose cores its figures then share (and its cores bound counts once per node)'], 'no "nodes on one machine" ' +
    'caveat of the tool\'s: the targets are the user\'s; one of the nodes that say they share a host')
  assert.match(run.stderr, /^caveat: large: 2 nodes report the hostname rack-a: /m)
  // The same command again: both done, nothing brought up again, the sizing written again.
  const again = await runTool('bin/crate-bench.js', ['study', file, '--out', out], { timeoutMs: 180_000 })
  assertSizingExit(again, out)
  assert.match(again.stderr, /resuming: 2 done, 0 to run/)
  assert.equal(fs.readFileSync(calls, 'utf8'), 'up small\ndown small\nup large\ndown large\n', 'no target brought ' +
    'up again')
})

test('a target that never answers is named, not sized, brought down; the others are sized (exit 4)', async (t) => {
  const one = await startCrateTestDouble({})
  t.after(() => one.stop())
  const root = tempDir(t)
  const calls = path.join(root, 'calls.log')
  const file = path.join(root, 'targets.yml')
  fs.writeFileSync(file, `targets:
  - {name: gone, hosts: ['http://127.0.0.1:9'], wait: 3s, down: 'echo down gone >> ${calls}'}
  - {name: here, hosts: ['http://127.0.0.1:${one.port}']}
${grid}`)
  const out = path.join(root, 'out')
  const run = await runTool('bin/crate-bench.js', ['study', file, '--out', out], { timeoutMs: 180_000 })
  assert.equal(run.code, 4, run.stderr)
  assert.match(run.stderr, /^\[shape 1 of 2: gone\] not reachable: did not answer with its 1 node within 3 s /m)
  assert.match(run.stderr, /^warning: shape gone: not reachable: .* \(not sized; the same command runs it again\)$/m)
  assert.equal(fs.readFileSync(calls, 'utf8'), 'down gone\n', 'brought down however the shape ended')
  assert.ok(fs.existsSync(path.join(out, 'here', 'grid', 'grid.json')))
})

test('a study file of targets is checked whole: a bad target is one line naming its key', async (t) => {
  const root = tempDir(t)
  const bad = async (targets, pattern) => {
    const file = path.join(root, `bad-${Math.random().toString(36).slice(2)}.yml`)
    fs.writeFileSync(file, `targets: ${targets}\n${grid}`)
    const run = await runTool('bin/crate-bench.js', ['study', file, '--out', path.join(root, 'out')])
    assert.equal(run.code, 2, run.stderr)
    assert.match(run.stderr, pattern)
  }
  await bad('[{name: a, hosts: ["http://user:pw@db:4200"]}]', /targets\[0\]\.hosts: 'http:\/\/user:\*\*\*@db:4200' is no /)
  await bad('[{name: a}]', /targets\[0\]\.hosts must list the cluster's HTTP address or more/)
  await bad('[{name: "a b", hosts: ["http://db:4200"]}]', /targets\[0\]\.name must be letters, digits/)
  await bad('[{name: a, hosts: ["http://db:4200"], password: x}]', /unknown key targets\[0\]\.password/)
  await bad('[{name: a, hosts: ["http://db:4200"]}, {name: a, hosts: ["http://db2:4200"]}]', /two have the same name/)
})

test('a target that loses a node during a part is named and not sized, as a started cluster whose node died',
  async (t) => {
    // Its third node goes (as a host cut off does: it no longer answers in the cluster) during the grid's runs.
    let killed = false
    const three = await startCrateTestCluster({
      fault: ({ number }) => {
        if (number === 30 && !killed) {
          killed = true
          return three.kill(2).then(() => undefined)
        }
      }
    }, { nodes: 3 })
    t.after(() => three.stop())
    const root = tempDir(t)
    const file = path.join(root, 'targets.yml')
    fs.writeFileSync(file, `targets:
  - {name: large, hosts: [${three.nodes.map((n) => `http://127.0.0.1:${n.port}`).join(', ')}]}
${grid}`)
    const out = path.join(root, 'out')
    const run = await runTool('bin/crate-bench.js', ['study', file, '--out', out], { timeoutMs: 180_000 })
    assert.equal(killed, true, 'the node went during the study')
    assert.equal(run.code, EXIT.CANNOT_RUN, `no shape sized: ${run.stderr}`)
    const gone = three.nodes[2].name
    assert.match(run.stderr, new RegExp(`^warning: ${gone} \\(on [^)]+\\) of large no longer answers in its cluster ` +
      'after the grid: a node lost or cut off', 'm'))
    assert.match(run.stderr, new RegExp(`^warning: shape large: ${gone} left the cluster during the grid \\(not ` +
      'sized; the same command runs it again\\)$', 'm'))
  })

// A comparison of clusters of one's own: the slower answers each bulk 150 ms late.
const ownContenders = (root, fast, slow, calls, keys = 'forks: 3') => {
  const file = path.join(root, 'compare.yml')
  const hosts = (double) => `[http://127.0.0.1:${double.port}]`
  fs.writeFileSync(file, `contenders:
  - {name: fast, hosts: ${hosts(fast)}, up: 'echo up fast >> ${calls}', down: 'echo down fast >> ${calls}'}
  - {name: slow, hosts: ${hosts(slow)}, up: 'echo up slow >> ${calls}', down: 'echo down slow >> ${calls}'}
${keys}
run:
  args: [--max_rows, '2000', --batch_size, '500', --concurrent_requests, '1', --processes, '1',
    --monitor_interval, '0']
`)
  return file
}

test('a comparison of targets: each fork brings each up in an order drawn for it, runs, brings it down; compare\'s ' +
  'paired verdict finds the slower; a duet of them, or one of each kind, is refused in one line', async (t) => {
  const fast = await startCrateTestDouble({ fault: ({ bulk }) => (bulk ? { delayMs: 20 } : undefined) })
  const slow = await startCrateTestDouble({ fault: ({ bulk }) => (bulk ? { delayMs: 150 } : undefined) })
  t.after(() => Promise.all([fast.stop(), slow.stop()]))
  const root = tempDir(t)
  const calls = path.join(root, 'calls.log')
  const out = path.join(root, 'out')
  const run = await runTool('bin/crate-bench.js', ['study', ownContenders(root, fast, slow, calls), '--out', out],
    { timeoutMs: 180_000 })
  assert.equal(run.code, 0, run.stderr)
  const pairs = fs.readFileSync(calls, 'utf8').trim().split('\n')
  assert.equal(pairs.length, 12)
  for (let i = 0; i < 12; i += 2) {
    assert.deepEqual([pairs[i].split(' ')[0], pairs[i + 1].split(' ')[0]], ['up', 'down'])
    assert.equal(pairs[i].split(' ')[1], pairs[i + 1].split(' ')[1], 'each brought down before the next comes up')
  }
  assert.match(run.stderr, /^\[fork 1 of 3: (fast|slow)\] found CrateDB 6\.4\.3 /m)
  assert.match(run.stderr, new RegExp(`^differs: hosts: fast http://127\\.0\\.0\\.1:${fast.port}, slow ` +
    `http://127\\.0\\.0\\.1:${slow.port}$`, 'm'))
  const { comparisons } = JSON.parse(fs.readFileSync(path.join(out, 'comparison.json'), 'utf8'))
  const rate = comparisons[0].figures.find((f) => f.figure === 'rows/s')
  assert.equal(rate.verdict, 'worse', JSON.stringify(rate))
  const record = JSON.parse(fs.readFileSync(path.join(out, 'forks', '2-slow-cluster-record.json'), 'utf8'))
  assert.equal(record.kind, 'target')
  const result = JSON.parse(fs.readFileSync(path.join(out, 'forks', '2-slow.json'), 'utf8'))
  assert.deepEqual(result.options.hosts, [`http://127.0.0.1:${slow.port}`])

  const refused = async (file, pattern) => {
    const again = await runTool('bin/crate-bench.js', ['study', file, '--out', path.join(root, 'refused')])
    assert.equal(again.code, 2, again.stderr)
    assert.match(again.stderr, pattern)
    assert.equal(again.stderr.trim().split('\n').length, 1, again.stderr)
  }
  await refused(ownContenders(root, fast, slow, calls, 'duet: true'), /duet: runs the contenders at once on this /)
  const mixed = path.join(root, 'mixed.yml')
  fs.writeFileSync(mixed, `contenders:
  - {name: own, hosts: [http://127.0.0.1:${fast.port}]}
  - {name: here, version: 6.4.3}
`)
  await refused(mixed, /contenders: give every one hosts: \(clusters of your own\) or none/)
})

test('a study killed outright while a target\'s up: runs: the up: ends with it; the resume runs that target\'s ' +
  'down: before a new up:', async (t) => {
  const { spawn } = require('node:child_process')
  const { groupRuns } = require('../../lib/provision/hook-watchdog')
  const one = await startCrateTestDouble({})
  t.after(() => one.stop())
  const root = tempDir(t)
  const calls = path.join(root, 'calls.log')
  const upPid = path.join(root, 'up.pid')
  const again = path.join(root, 'again')
  const file = path.join(root, 'targets.yml')
  // The first up: hangs (a deploy that waits); the resumed one does not.
  fs.writeFileSync(file, `targets:
  - {name: own, hosts: ['http://127.0.0.1:${one.port}'], wait: 60s,
     up: 'echo up >> ${calls}; [ -f ${again} ] || { echo $$ > ${upPid}; trap "" TERM; sleep 120; }',
     down: 'echo down >> ${calls}'}
${grid}`)
  const out = path.join(root, 'out')
  const study = spawn(process.execPath, [path.join(__dirname, '..', '..', 'bin', 'crate-bench.js'), 'study', file,
    '--out', out], { stdio: 'ignore', env: { PATH: process.env.PATH, HOME: process.env.HOME,
      CRATE_BENCH_ENV_FILE: path.join(__dirname, '..', 'fixtures', 'never-an.env') } })
  t.after(() => { try { study.kill('SIGKILL') } catch { /* gone */ } })
  const deadline = Date.now() + 60_000
  while (!(fs.existsSync(upPid) && /^\d+\n$/.test(fs.readFileSync(upPid, 'utf8'))) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  const pgid = Number(fs.readFileSync(upPid, 'utf8'))
  t.after(() => { try { process.kill(-pgid, 'SIGKILL') } catch { /* gone */ } })
  study.kill('SIGKILL')
  await new Promise((resolve) => study.once('exit', resolve))
  while (groupRuns(pgid) && Date.now() < deadline + 30_000) await new Promise((resolve) => setTimeout(resolve, 100))
  assert.equal(groupRuns(pgid), false, 'the up: (deaf to SIGTERM) ended with the study, by its watchdog')
  fs.writeFileSync(again, '')
  const run = await runTool('bin/crate-bench.js', ['study', file, '--out', out], { timeoutMs: 180_000 })
  assertSizingExit(run, out)
  assert.match(run.stderr, /^own was brought up by the earlier study and not down: its down: first$/m)
  assert.equal(fs.readFileSync(calls, 'utf8'), 'up\ndown\nup\ndown\n', 'the earlier up:\'s down: before a new up:')
  assert.equal(fs.existsSync(path.join(out, 'own-left-down.log')), true)
  assert.deepEqual(JSON.parse(fs.readFileSync(path.join(out, 'targets-up.json'), 'utf8')), { up: [] })
})

test('a study leaves a target as it found it: the tables it made dropped when a shape ends, the tool\'s bookkeeping ' +
  'tables too; keep_tables: true names each with its DROP; a table of the user\'s is found before any load',
async (t) => {
  const one = await startCrateTestDouble({})
  t.after(() => one.stop())
  const root = tempDir(t)
  const file = path.join(root, 'targets.yml')
  const write = (keys = '') => fs.writeFileSync(file, `targets:
  - {name: own, hosts: ['http://127.0.0.1:${one.port}']}
${keys}${grid}`)
  write()
  const run = await runTool('bin/crate-bench.js', ['study', file, '--out', path.join(root, 'out')],
    { timeoutMs: 180_000 })
  assertSizingExit(run, path.join(root, 'out'))
  assert.ok(one.statements.some((s) => /^INSERT INTO "doc"\."cpu"/.test(s.stmt)), 'the study loaded doc.cpu')
  assert.match(run.stderr, new RegExp('^\\[shape 1 of 1: own\\] dropped in own what this study made there: ' +
    'doc\\.cpu, doc\\.crate_bench_tables, doc\\.crate_bench_leases$', 'm'))
  assert.deepEqual([...one.tables.keys()], [], 'nothing of the study is left in the cluster')

  // keep_tables: true: kept, each named with the statement that drops it.
  write('keep_tables: true\n')
  const kept = await runTool('bin/crate-bench.js', ['study', file, '--out', path.join(root, 'kept')],
    { timeoutMs: 180_000 })
  assertSizingExit(kept, path.join(root, 'kept'))
  assert.match(kept.stderr, new RegExp('^\\[shape 1 of 1: own\\] kept in own \\(keep_tables: true\\): doc\\.cpu ' +
    '\\(DROP TABLE "doc"\\."cpu";\\), doc\\.crate_bench_tables \\(DROP TABLE "doc"\\."crate_bench_tables";\\), ',
    'm'))
  assert.deepEqual([...one.tables.keys()].sort(), ['doc.cpu', 'doc.crate_bench_leases', 'doc.crate_bench_tables'])
  assert.match(kept.stderr.trim().split('\n').at(-1), /^kept in own \(keep_tables: true\): doc\.cpu \(DROP TABLE /,
    'said again as the study\'s last line')

  // A table of the user's of the same name: found right after the cluster is recorded, before any load.
  for (const table of ['doc.crate_bench_tables', 'doc.crate_bench_leases']) one.tables.delete(table)
  const inserts = one.statements.filter((s) => /^INSERT INTO "doc"\."cpu"/.test(s.stmt)).length
  write()
  const clash = await runTool('bin/crate-bench.js', ['study', file, '--out', path.join(root, 'clash')],
    { timeoutMs: 180_000 })
  assert.equal(clash.code, EXIT.CANNOT_RUN, clash.stderr)
  assert.match(clash.stderr, new RegExp('^\\[shape 1 of 1: own\\] before any load: table doc\\.cpu exists and this ' +
    'tool did not make it: it is kept; ', 'm'))
  assert.equal(one.statements.filter((s) => /^INSERT INTO "doc"\."cpu"/.test(s.stmt)).length, inserts, 'no load')
  assert.doesNotMatch(clash.stderr, /\] grid$/m, 'no grid started')
  assert.ok(one.tables.has('doc.cpu'), 'the user\'s table kept')
  assert.deepEqual([...one.tables.keys()].sort(), ['doc.cpu'], 'the registry the check made is dropped again')
})
