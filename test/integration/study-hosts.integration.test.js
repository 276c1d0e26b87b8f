'use strict'

// A sizing study of clusters on hosts of their own, brought up and down by the study's up: and down: commands as a
// user's own provisioning would (test/helpers/target-on-hosts.js: the tool's provisioner in each host's namespace):
// a 1-node and a 3-node cluster of the real CrateDB (CRATE_TEST_TARBALL), each node on a host of its own, the study
// on a fifth host. Both sized, each recorded from itself, their CPU per 1,000 rows from sys.nodes; nothing left
// running, no namespace or link left.

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { runTool } = require('../helpers/run-tool')
const { tempDir } = require('../helpers/temp-files')
const { openDir } = require('../helpers/fake-distribution')
const { makeHosts, leftOf } = require('../helpers/hosts')
const { realHostsOr } = require('../helpers/hosts-cluster')
const { TARGET_SCRIPT } = require('../helpers/target-on-hosts')
const { readState, isNodeOf } = require('../../lib/provision/state')
const { assertSizingExit } = require('../helpers/sizing-exit')

const { tarball, skip: SKIP } = realHostsOr('a study of clusters on hosts of their own')
const ROOT = path.join(__dirname, '..', '..')
const HTTP_PORT = 4660

test('a study of a 1-node and a 3-node cluster on hosts of their own, each brought up and down by its commands: ' +
  'both sized from what they said of themselves, nothing left', { skip: SKIP, timeout: 1_200_000 }, async (t) => {
  let tag
  const dirs = []
  await t.test('the study', async (inner) => {
    // However the test ends: every node stopped before its folder and its namespace go (hooks run in order).
    inner.after(async () => {
      for (const dir of dirs) await runTool('bin/crate-bench.js', ['cluster', 'stop', '--dir', dir])
    })
    const made = makeHosts(inner, 5)
    tag = made.tag
    const root = openDir(tempDir(inner))
    const password = `pw-${tag}`
    const host = (h, i) => {
      const dir = path.join(root, `node-on-h${i + 1}`)
      dirs.push(dir)
      return { ns: h.name, address: h.address, dir }
    }
    const spec = { tag, tarball, heap: '384m', httpPort: HTTP_PORT, password, stopWith: process.pid,
      targets: [{ name: 'one', hosts: made.hosts.slice(0, 1).map(host) },
        { name: 'three', hosts: made.hosts.slice(1, 4).map((h, i) => host(h, i + 1)) }] }
    const specFile = path.join(root, 'hosts.json')
    fs.writeFileSync(specFile, JSON.stringify(spec))
    const command = (what, name) => `'${process.execPath} ${TARGET_SCRIPT} ${what} ${specFile} ${name}'`
    const targetLine = (target) => `  - {name: ${target.name}, user: bench, wait: 5m, hosts: [${target.hosts.map((h) =>
      `'http://${h.address}:${HTTP_PORT}'`).join(', ')}], up: ${command('up', target.name)}, down: ` +
      `${command('down', target.name)}}`
    const file = path.join(root, 'hosts-study.yml')
    fs.writeFileSync(file, `targets:
${spec.targets.map(targetLine).join('\n')}
grid:
  vary: {batch_size: [500, 2000], concurrent_requests: [1, 2]}
  repeat: 1
  duration: 6s
  warmup: 2s
  args: [--processes, 1]
sustained:
  duration: 15s
  args: [--processes, 1]
`)
    const out = path.join(root, 'out')
    const client = made.hosts[4]
    const run = await client.run(process.execPath, [path.join(ROOT, 'bin', 'crate-bench.js'), 'study', file, '--out',
      out], { cwd: ROOT, env: { ...process.env, CRATE_PASSWORD: password }, timeoutMs: 1_100_000 })
    console.log(run.stderr.split('\n').filter((l) => /^\[shape|^study:|sized|per 1,000 rows/.test(l))
      .map((l) => `# ${l}`).join('\n'))
    assertSizingExit(run, out)
    assert.match(run.stderr, /^study: 2 shapes \(one: 1 node, three: 3 nodes\) of clusters of your own \(targets:\);/m)
    for (const target of spec.targets) {
      assert.match(run.stderr, new RegExp(`^ {2}up: ${target.name} up: `, 'm'), 'its up: command ran')
      assert.match(run.stderr, new RegExp(`^ {2}down: ${target.name} down$`, 'm'), 'its down: command ran')
      const record = JSON.parse(fs.readFileSync(path.join(out, target.name, 'cluster-record.json'), 'utf8'))
      assert.equal(record.kind, 'target')
      assert.equal(record.nodes, target.hosts.length)
      assert.equal(record.version, '6.4.3')
      const sustained = JSON.parse(fs.readFileSync(path.join(out, target.name, 'sustained.json'), 'utf8'))
      assert.equal(sustained.rows_failed, 0)
      assert.equal(sustained.environment.cratedb_nodes, target.hosts.length)
    }
    const sizing = JSON.parse(fs.readFileSync(path.join(out, 'sizing.json'), 'utf8'))
    assert.deepEqual(sizing.groups[0].shapes.map((s) => s.nodes), [1, 3])
    assert.match(run.stderr, /from sys\.nodes/)
    // Namespaces of one machine share its hostname: the sizing says its nodes may share one machine.
    assert.ok(sizing.study_caveats.some((c) => /^three: 3 nodes report the hostname /.test(c)),
      JSON.stringify(sizing.study_caveats))
    // Every node its down: stopped, before the hook: nothing of the study's clusters runs.
    for (const dir of dirs) {
      const state = readState(dir, { nullIfMissing: true })
      assert.ok(!state || state.nodes.every((n) => !isNodeOf(n, state)), `${dir}: its node ended`)
    }
  })
  assert.deepEqual(leftOf(tag), [], 'no namespace or link of the test left')
})
