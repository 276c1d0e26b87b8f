'use strict'

// The provisioner on the real CrateDB distribution (CRATE_TEST_TARBALL, e.g. ../shared/cratedb/crate-6.4.3.tar.gz, and
// CRATE_BENCH_CACHE where the nodes' user can read it): one node and three nodes started, a run on each, stopped,
// nothing left; a setting CrateDB refuses is named with CrateDB's own error.

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { runTool } = require('../helpers/run-tool')
const { tempDir } = require('../helpers/temp-files')
const { freeClusterPort } = require('../helpers/ports')
const { openDir } = require('../helpers/fake-distribution')
const { isNodeOf } = require('../../lib/provision/state')
const { joined } = require('../helpers/patterns')

const tarball = process.env.CRATE_TEST_TARBALL
const SKIP = tarball && fs.existsSync(tarball) ? false
  : 'CRATE_TEST_TARBALL does not name a CrateDB tarball: the provisioner on a real distribution skipped'
if (SKIP) console.log(`# ${SKIP}`)

const env = () => ({ CRATE_BENCH_CACHE: process.env.CRATE_BENCH_CACHE, ...(process.env.JAVA_HOME
  ? { JAVA_HOME: process.env.JAVA_HOME } : {}) })

for (const nodes of [1, 3]) {
  test(`${nodes} node${nodes === 1 ? '' : 's'} of the real distribution: started, a run, stopped, nothing left`,
    { skip: SKIP, timeout: 300_000 }, async (t) => {
      // The stop's hook first (hooks run in the order registered): a test that fails leaves no node running, its
      // cluster stopped before its temporary folder goes.
      let dir = null
      t.after(() => dir && runTool('bin/crate-bench.js', ['cluster', 'stop', '--dir', dir], { env: env() }))
      dir = path.join(openDir(tempDir(t)), 'cluster')
      const port = await freeClusterPort(nodes)
      const started = await runTool('bin/crate-bench.js', ['cluster', 'start', '--nodes', String(nodes),
        '--tarball', tarball, '--heap', '384m', '--http_port', String(port), '--dir', dir, '--json'],
      { env: env(), timeoutMs: 240_000 })
      assert.equal(started.code, 0, started.stderr)
      const state = started.json
      assert.match(state.version, /^[0-9]+\.[0-9]+\.[0-9]+$/)
      assert.match(state.build_hash, /^[0-9a-f]{40}$/)
      assert.equal(state.nodes.length, nodes)
      console.log(`# ${started.stderr.split('\n').find((l) => l.startsWith('ready in'))}`)
      const run = await runTool('appClusterIngest.js', ['--host', state.nodes.map((n) => `http://127.0.0.1:` +
        `${n.http_port}`).join(','), '--max_rows', '20000', '--processes', '1', '--replicas', nodes > 1 ? '1' : '0',
      '--table', `doc.provisioned_${process.pid}`, '--json'], { timeoutMs: 120_000 })
      assert.equal(run.code, 0, run.stderr)
      assert.equal(run.json.rows_ok, 20_000)
      assert.equal(run.json.environment.cratedb_nodes, nodes)
      const stopped = await runTool('bin/crate-bench.js', ['cluster', 'stop', '--dir', dir], { env: env() })
      assert.equal(stopped.code, 0, stopped.stderr)
      assert.ok(state.nodes.every((n) => !isNodeOf(n, state)), 'every node ended')
      assert.equal(fs.existsSync(dir), false, 'the folder the start made removed')
    })
}

test('a setting the real CrateDB refuses: its own error named, every node stopped', { skip: SKIP, timeout: 120_000 },
  async () => {
    const port = await freeClusterPort(1)
    const refused = await runTool('bin/crate-bench.js', ['cluster', 'start', '--tarball', tarball, '--heap', '384m',
      '--http_port', String(port), '--setting', 'no.such.setting=1'], { env: env(), timeoutMs: 120_000 })
    assert.equal(refused.code, 3, refused.stderr)
    assert.match(refused.stderr, joined(/exited while starting \(exit code 1\): /,
      /java\.lang\.IllegalArgumentException: unknown setting \[no\.such\.setting\]/))
  })
