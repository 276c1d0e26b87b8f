'use strict'

// Every command the README and docs/ show is run here, against the CrateDB test double, so that the pages cannot
// drift from the tool: a flag that no longer exists, a default that changed, a file that is not there fail this
// test. Each page's shell blocks run in order, as one bash script (`set -e`: every command must succeed), in a
// scratch directory that looks like a checkout. Commands keep their flags; only their size is cut, so that the
// test stays short (see SHRINK): durations become 1 s, row and query counts and processes small, sweeps and a grid's
// dimensions two values.

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { spawn } = require('node:child_process')
const { ROOT } = require('../helpers/run-tool')
const { startCrateTestDouble } = require('../helpers/crate-test-double')
const { startPgFront } = require('../helpers/pg-test-double')
const { tempDir } = require('../helpers/temp-files')
const { SWEEPS } = require('../../lib/sweep/definitions')
const { fakeDistribution, testRunAs, openDir } = require('../helpers/fake-distribution')
const { freeClusterPort } = require('../helpers/ports')
const { platformOf } = require('../../lib/provision/platform')

const PAGES = ['README.md', ...fs.readdirSync(path.join(ROOT,
  'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)]

// The pages' clusters (crate-bench cluster start, --start_cluster) start from a fake distribution of the version they
// name (test/helpers/fake-distribution.js: the test double as a node), served from a file URL as a mirror would.
const runAs = testRunAs()
const CANNOT_START = runAs.skip ?? (runAs.user && runAs.user !== 'crate'
  ? 'as root the nodes run as the user crate, which this machine lacks' : null)

// Lines that cannot run here, each with the reason; any other program a page shows must run.
const NOT_RUN_HERE = [
  [/^npm (ci|test)$/, 'CI runs exactly these two (.ci/run)'],
  [/^npm run bench$/, 'the benchmark itself; docs/client-cost.md shows its output'],
  [/^docker /, 'needs a Docker engine: not on a test machine (a real CrateDB, or the image)'],
  [/--generator \d+\/[2-9]/,
    'one generator of a fleet waits for the others, on other machines (the page runs the same fleet with crate-bench ' +
      'fleet)'],
  [/^kubectl /, 'needs a Kubernetes cluster; test/launch/manifests.test.js validates what it would apply'],
  [/^apt-get /, 'installs system packages'],
  [/CRATE_TEST_URLS?=/, 'the integration tests need a real CrateDB'],
  [/^CRATE_BENCH_URL=/, 'the real-node bench needs a real CrateDB (and is a benchmark, not a test)'],
  [/\.\.\/shared\/cratedb\//, 'starts a real CrateDB from the workplace\'s shared folder (.ci/run does)'],
  [/^export CRATE_BENCH_CACHE=/, 'the cache of the real servers started by hand (.ci/run sets its own)'],
  [/^node bench\/stand-in-server\.js/, 'npm run bench starts it'],
  [/^export CRATE_HOST=.*<that port>/, 'a placeholder for the stand-in port'],
  [/^crate-bench study /, 'a study runs for an hour or more; test/e2e/study.e2e.test.js runs short ones on the fake ' +
    'distribution'],
  [/^bench\/precision-targets\.sh /, 'three studies of up to 20 minutes each beside a busy loop: docs/study.md ' +
    'shows their output'],
  // As root the started nodes run as the user crate: a machine without it (or a checkout that user cannot enter)
  // cannot start the pages' clusters, nor run the lines that ask for them (status, stop, list). A fleet's manifest
  // only writes the cluster's resource: it runs.
  ...(CANNOT_START ? [[/^(?!.*fleet manifest).*(cluster (start|status|stop|list|download)\b|--start_cluster)/,
    CANNOT_START]] : [])
]

const capped = (max) => (value) => String(Math.min(Number(value), max))
const SHRINK = [
  [/--duration (\S+)/g, () => '--duration 1s'],
  [/--warmup (\S+)/g, () => '--warmup 200ms'],
  [/--max_rows (\d+)/g, (n) => `--max_rows ${capped(20_000)(n)}`],
  [/--(ingest_)?prefill (\d+)/g, (ingest, n) => `--${ingest || ''}prefill ${capped(20_000)(n)}`],
  [/--max_queries (\d+)/g, (n) => `--max_queries ${capped(300)(n)}`],
  [/--processes (\d+)/g, (n) => `--processes ${capped(2)(n)}`],
  [/fleet --generators (\d+)/g, (n) => `fleet --generators ${capped(2)(n)}`],
  [/--repeat (\d+)/g, () => '--repeat 1'],
  // Each stage a second, its rates kept.
  [/--stages (\S+)/g, (v) => `--stages ${v.split(',').map((stage) => `1s:${stage.split(':')[1]}`).join(',')}`],
  // Any free port: the default may be taken on a test machine.
  [/--ui(?: (\d+))?(?=\s|$)/g, () => '--ui 0'],
  [/--values "([^"]*)"/g, (v) => `--values "${v.trim().split(/\s+/).slice(0, 2).join(' ')}"`],
  // A grid: two values a dimension.
  [/--vary ([a-z_]+=\S+)/g, (v) => `--vary ${v.split('=')[0]}=${v.split('=')[1].split(',').slice(0, 2).join(',')}`]
]

/**
 * What a page's clusters need: the fake distribution of 6.4.3 behind CRATE_BENCH_DOWNLOAD_URL, a cache the nodes'
 * user reaches, and free ports (`ports(command)` adds them to each start, whose default may be taken here).
 */
async function clusterSetUp (t, commands) {
  if (!commands.some((c) => /cluster start|--start_cluster|cluster download/.test(c))) {
    return { env: {}, ports: (c) => c, tarball: null }
  }
  const root = openDir(tempDir(t, 'crate-bench-docs-dist-'))
  const { os, arch } = platformOf()
  fs.mkdirSync(path.join(root, `${arch}_${os}`))
  const tarball = await fakeDistribution(root, { version: '6.4.3' })
  fs.renameSync(tarball, path.join(root, `${arch}_${os}`, 'crate-6.4.3.tar.gz'))
  const port = await freeClusterPort(3)
  return {
    tarball: path.join(root, `${arch}_${os}`, 'crate-6.4.3.tar.gz'),
    env: { CRATE_BENCH_CACHE: path.join(root, 'cache'),
      CRATE_BENCH_DOWNLOAD_URL: `file://${root}/{arch}_{os}/crate-{version}.tar.gz` },
    ports: (command) => command
      .replace(/cluster start(?!.*--http_port)/, `cluster start --http_port ${port}`)
      // A page's own port (the quick start's 4250) may be another's here: a free one instead.
      .replace(/--crate_http_port \d+/, `--crate_http_port ${port}`)
      .replace(/--start_cluster (\d+)(?!.*--crate_http_port)/, `--start_cluster $1 --crate_http_port ${port}`)
  }
}

function shellBlocks (markdown) {
  const blocks = []
  const fence = /^```(sh|bash)\n([\s\S]*?)^```/gm
  for (let m = fence.exec(markdown); m; m = fence.exec(markdown)) blocks.push(m[2])
  return blocks
}

/** The commands of a block: continuation lines joined, comments and blank lines dropped. */
function commandsOf (block) {
  return block.replace(/\\\n\s*/g, ' ').split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter((line) => line && !line.startsWith('#'))
}

function shrink (command) {
  let out = command
  for (const [pattern, replace] of SHRINK) out = out.replace(pattern, (_, ...groups) => replace(...groups))
  // A sweep without --values would run every default value: the first two show the same.
  const sweep = Object.values(SWEEPS).find((s) => out.includes(`scripts/${s.script}`))
  if (sweep && !out.includes('--values')) {
    const two = sweep.values.split(' ').slice(0, 2).join(' ')
    out = out.replace(`scripts/${sweep.script}`, `scripts/${sweep.script} --values "${two}"`)
  }
  if (out.includes('scripts/find-capacity.sh')) {
    out = out.replace('scripts/find-capacity.sh', 'scripts/find-capacity.sh --duration 1s --warmup 200ms --max_steps 2')
    // Its verdict is the machine's: a loaded test machine may miss the SLO at the start rate (exit 1, "no capacity").
    // A flag it no longer knows exits 2, a crash otherwise: those still fail the page.
    out = `${out} || test $? -eq 1`
  }
  // A regression gate's verdict is the machine's too: a loaded test machine can make the new runs significantly
  // slower (exit 1, documented). Bad input (2), an unreadable file (3) or a crash still fail the page.
  if (/^(npx )?crate-bench compare .*--fail_on_regression/.test(out)) out = `${out} || test $? -eq 1`
  return out
}

/**
 * The shipped query files read tables the double has no query engine for: a query on a table that exists gets one
 * row, as CrateDB answers a SELECT; anything else is left to the double (unknown table, parse error).
 */
function answerAnyQueryOfATable (double, stmt) {
  const from = /^SELECT\b[\s\S]*?\bFROM\s+([\w."]+)/i.exec(stmt)
  if (!from) return null
  const [schema, table] = from[1].replace(/"/g, '').includes('.') ? from[1].replace(/"/g, '').split('.') : ['doc',
    from[1]]
  return double.tables.has(`${schema}.${table}`) ? { cols: ['x'], rows: [[1]], rowcount: 1 } : null
}

function scratchCheckout (t) {
  const dir = tempDir(t, 'crate-bench-docs-')
  for (const entry of ['appClusterIngest.js', 'appClusterAnalytical.js', 'bin', 'lib', 'queries', 'scripts', 'bench',
    'test', 'package.json', 'node_modules', '.env.example']) {
    fs.symlinkSync(path.join(ROOT, entry), path.join(dir, entry))
  }
  return dir
}

function runBash (script, { cwd, env }) {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
    let stderr = ''
    child.stdout.resume()
    child.stderr.on('data', (chunk) => { stderr += chunk })
    child.on('exit', (code) => resolve({ code, stderr }))
  })
}

test('the pages show commands, and only programs this test knows how to treat', () => {
  const all = PAGES.flatMap((page) => shellBlocks(fs.readFileSync(path.join(ROOT, page), 'utf8')).flatMap(commandsOf))
  assert.ok(all.length >= 20, `only ${all.length} commands found: the block parser is broken`)
  const runnable = new RegExp('^(node (appCluster\\w+\\.js|bin/crate-bench\\.js)|(npx )?crate-bench|' +
    'scripts/find-[\\w-]+\\.sh|cp |for |done)')
  for (const command of all) {
    if (NOT_RUN_HERE.some(([pattern]) => pattern.test(command))) continue
    assert.match(command, runnable, `a page shows '${command}': run it here, or say in NOT_RUN_HERE why not`)
  }
})

for (const page of PAGES) {
  const blocks = shellBlocks(fs.readFileSync(path.join(ROOT, page), 'utf8'))
  const commands = blocks.flatMap(commandsOf).filter((c) => !NOT_RUN_HERE.some(([pattern]) => pattern.test(c)))
  if (commands.length === 0) continue
  // A guard against a hang, not a pace: the sweeps' page took over 240 s beside a study on 2 cores (load 8-10), over
  // 600 s beside four busy loops (1.4 of the 2 cores taken).
  test(`${page}: every command it shows runs against the test double`, { timeout: 1_500_000 }, async (t) => {
    const double = await startCrateTestDouble({ query: (stmt) => answerAnyQueryOfATable(double, stmt) })
    try {
      const clusters = await clusterSetUp(t, commands)
      const script = [
        'set -euo pipefail',
        `crate-bench () { node "${path.join(ROOT, 'bin', 'crate-bench.js')}" "$@"; }`,
        'npx () { if [ "$1" = crate-bench ]; then shift; crate-bench "$@"; else command npx "$@"; fi; }',
        ...commands.map(shrink).map(clusters.ports)
      ].join('\n')
      // The pages' --protocol pg commands reach the double's PostgreSQL protocol.
      const pg = await startPgFront(double)
      t.after(() => pg.close())
      const env = { PATH: process.env.PATH, HOME: process.env.HOME, ...double.env({ CRATE_PG_PORT: String(pg.port) }),
        ...clusters.env }
      const cwd = scratchCheckout(t)
      if (clusters.tarball) fs.copyFileSync(clusters.tarball, path.join(cwd, 'crate-6.4.3.tar.gz'))
      const { code, stderr } = await runBash(script, { cwd, env })
      // Whatever a failed page left running of its clusters.
      if (clusters.tarball) {
        await runBash(`node "${path.join(ROOT, 'bin', 'crate-bench.js')}" cluster stop --all`, { cwd, env })
      }
      assert.equal(code, 0,
        `${page}: a command failed (exit ${code}):\n${script}\n--- stderr (end):\n${stderr.slice(-3000)}`)
      assert.doesNotMatch(stderr, /\n\s+at .*\(.*:\d+:\d+\)/, 'no stack trace')
    } finally {
      await double.stop()
    }
  })
}
