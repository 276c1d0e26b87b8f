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

test('a run whose only node dies (SIGKILL) ends at once, partial (exit 4), the node named, not after --timeout',
  { skip: SKIP, timeout: 300_000 }, async () => {
    const port = await freeClusterPort(1)
    // The node's process, by the HTTP port the run gave it (-Chttp.port=…).
    const pidOf = () => Number(require('node:child_process').execFileSync('pgrep', ['-f', `http.port=${port}`],
      { encoding: 'utf8' }).trim().split('\n')[0])
    const run = await runTool('appClusterIngest.js', ['--start_cluster', '1', '--crate_tarball', tarball,
      '--crate_heap', '384m', '--crate_http_port', String(port), '--duration', '120s', '--timeout', '120s',
      '--processes', '1', '--monitor_interval', '0', '--json'], { env: env(), timeoutMs: 280_000, waitFor: /load:/,
      whileRunning: () => setTimeout(() => process.kill(pidOf(), 'SIGKILL'), 5000) })
    assert.equal(run.code, 4, run.stderr)
    assert.equal(run.json.partial, true)
    // Ended by the nodes' processes being gone, not by a request's --timeout or the duration's end.
    assert.match(run.json.partial_reasons.join('\n'), /server gone: every node of the cluster this run started is /)
    assert.match(run.stderr, /every node of the cluster this run started is gone: .*: the run ends now/)
    const { rows_ok: ok, rows_failed: failed, rows_in_doubt: doubt, rows_sent: sent } = run.json
    assert.equal(ok + failed + doubt, sent, 'every row sent is ok, failed or in doubt')
    assert.ok(doubt > 0, 'the rows in flight when the node died are in doubt')
  })
