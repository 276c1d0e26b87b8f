'use strict'

const path = require('node:path')
const { EXIT, UsageError } = require('../base/errors')
const { commandParser } = require('../cli/command-args')
const { commandMain } = require('../cli/command-main')
const { parseDuration } = require('../base/values')
const { startCluster, sizeOf, minRateOf, DEFAULT_HTTP_PORT, DEFAULT_HEAP, DEFAULT_START_TIMEOUT_MS } =
  require('./cluster')
const { stopNodes, living } = require('./stop')
const { readState, registered, unregister, registryKeyOf } = require('./state')
const { resolveDistribution, cacheDirOf } = require('./distribution')
const { sqlOnNode } = require('./nodes')

const NAME = 'crate-bench cluster'

const USAGE = `Usage: crate-bench cluster start --nodes N (--version X.Y.Z | --tarball PATH|URL) [options]
       crate-bench cluster status --dir DIR
       crate-bench cluster stop (--dir DIR | --all) [--keep]
       crate-bench cluster list
       crate-bench cluster download (--version X.Y.Z | --tarball URL) [--sha256 HEX]

The CrateDB cluster under test, started by the tool on this machine: N nodes that form one cluster, each with its own
ports, data and logs under --dir, explicit discovery and loopback only. start exits 0 only when every node it started
answers, on its own port, that it is one of N nodes of this cluster, and prints the .env lines a run needs on stdout
(CRATE_HOST with every node, CRATE_PORT, CRATE_PG_PORT); DIR/cluster.json records what was started (the spec, the
version and build hash the nodes report, the distribution's SHA-256, Java, pids, ports, heap, settings, each node's
time to ready). A node that exits while starting, a start past --start_timeout, or Ctrl-C stops every node started
so far and names the node with its last log lines.

The distribution: --version X.Y.Z, downloaded once from CrateDB's release URL for this platform (from 4.2 on;
CRATE_BENCH_DOWNLOAD_URL overrides the URL, with {version}, {os} (linux, mac) and {arch} (x64, aarch64)), or
--tarball PATH|URL; both cached once under CRATE_BENCH_CACHE (default: crate-bench in the user's cache folder; as
root /var/cache/crate-bench, which the nodes' user can read), the download checked whole (and against --sha256)
before it is used and hashed again each time it is taken from the cache, unpacked into a folder named by its
SHA-256 and never written to: owned by the user who unpacks, no setuid bit kept, nothing writable by others, no
device or link out of it. Java: the distribution's bundled jdk/, else JAVA_HOME, else a JDK in /usr/lib/jvm of the
version its jars need. CrateDB refuses to run as root: as root the nodes run as --run_as (default crate), and the tool
refuses a --dir or cache under a folder another user owns or others may write to (docs/cluster.md).

Options of start:
  --nodes N              nodes of the cluster, on this machine (default 1; several share its cores: each gets
                         processors = cores / N, said in the output)
  --version X.Y.Z        a CrateDB release to download (once)
  --tarball PATH|URL     a CrateDB tarball (a release or a build of its source)
  --sha256 HEX           the tarball's SHA-256: anything else is refused, nothing kept
  --heap SIZE            each node's heap, always passed (default ${DEFAULT_HEAP}; CrateDB alone sets no maximum)
  --setting KEY=VALUE    a CrateDB setting for every node (-C), repeatable
  --http_port PORT       node i's HTTP port is PORT+i, PostgreSQL PORT+100+i, transport PORT+200+i (default
                         ${DEFAULT_HTTP_PORT}); each is checked free before anything starts
  --dir DIR              the cluster's folder: missing or empty (or left by an earlier start of this tool, whose
                         files go first); default: a new one under the system's temporary folder. Its stop removes
                         only what the start made there
  --run_as USER          as root, the user the nodes run as (default crate)
  --start_timeout T      how long the nodes may take to form the cluster (default ${DEFAULT_START_TIMEOUT_MS / 1000}s)
  --stop_with PID        stop the cluster when process PID ends, however it ends (a CI script's $$): a watchdog
                         of its own polls it every second; without it the cluster runs until cluster stop
  --json                 cluster.json on stdout instead of the .env lines
Nodes that others reach (a cluster across hosts; loopback only without these):
  --listen ADDRESS       the nodes listen on this IP address of the machine as well as on loopback, and other nodes
                         reach them there (said in a warning line): CrateDB lets its superuser crate in from the
                         node's own machine only and asks other clients a password (CREATE USER … WITH (password
                         = …)); beyond the loopback class CrateDB runs its production checks (open files 65,536,
                         vm.max_map_count 262,144), checked before anything starts
  --seed_hosts H:P,…     transport addresses of the cluster's nodes on other hosts (their --http_port + 200 + i):
                         the nodes join them, every one an initial master; start is done when the cluster holds
                         this start's nodes and one a seed host (start every host's at once)
  --cluster_name NAME    the cluster's name, the same on every host (needed with --seed_hosts)
Options of start and download:
  --max_download SIZE    the largest download taken (default 1g): an endless answer ends there, nothing kept
  --download_timeout T   no byte of a download for T ends it (default 30s)
  --download_min_rate S  a download slower than S a second over a minute ends (default 100k; 0: none)
  --max_unpacked SIZE    the most a tarball may unpack to (default 2g; CrateDB is about 330 MB)
Options of stop: --dir DIR (or --all: every cluster this tool started on this machine), --keep (keep data and logs),
  --grace T (SIGTERM, then SIGKILL after T; default 30s).

Examples:
  crate-bench cluster start --nodes 3 --version 6.4.3 --heap 2g --dir /tmp/c3 > .env
  crate-bench cluster start --tarball ./crate-6.4.3.tar.gz --setting thread_pool.write.queue_size=10 --dir /tmp/c1
  crate-bench cluster start --tarball ./crate.tar.gz --listen 10.0.0.5 --seed_hosts 10.0.0.6:4450 \\
    --cluster_name bench --dir /tmp/c   (and on 10.0.0.6: --listen 10.0.0.6 --seed_hosts 10.0.0.5:4450)
  crate-bench cluster status --dir /tmp/c3
  crate-bench cluster stop --dir /tmp/c3
  crate-bench cluster list
  crate-bench cluster stop --all

Exit codes: 0 done (status: every node alive), 1 status: a node is not alive, 2 bad input (a taken port, too
little memory or disk, no Java, no such user), 3 the cluster could not start (its node's last log lines follow),
4 interrupted (every node started so far stopped).`

function parseArgs (argv) {
  const text = { type: 'string', requiresArg: true }
  const parsed = commandParser(argv).options({ nodes: text, version: text, tarball: text, sha256: text, heap: text,
    setting: { type: 'string', array: true, requiresArg: true, default: [] }, http_port: text, dir: text,
    run_as: text, start_timeout: text, stop_with: text, json: { type: 'boolean', default: false },
    max_download: text, max_unpacked: text, download_timeout: text, download_min_rate: text, listen: text,
    seed_hosts: text, cluster_name: text,
    all: { type: 'boolean' },
    keep: { type: 'boolean', default: false }, grace: text }).parseSync()
  if (parsed.help) return { help: true }
  const [action, ...rest] = parsed._.map(String)
  if (!['start', 'stop', 'status', 'list', 'download'].includes(action)) {
    throw new UsageError(action ? `unknown cluster command '${action}': start, stop, status, list or download`
      : 'give a cluster command: start, stop, status, list or download (see --help)')
  }
  if (rest.length) throw new UsageError(`unexpected argument '${rest[0]}' (see --help)`)
  return {
    action,
    nodes: parsed.nodes,
    version: parsed.version,
    tarball: parsed.tarball,
    sha256: parsed.sha256,
    heap: parsed.heap,
    settings: parsed.setting,
    httpPort: parsed.http_port,
    dir: parsed.dir,
    runAs: parsed.run_as,
    startTimeoutMs: parsed.start_timeout === undefined ? undefined
      : parseDuration(parsed.start_timeout, 'start_timeout'),
    stopWith: parsed.stop_with,
    maxDownload: parsed.max_download,
    maxUnpacked: parsed.max_unpacked,
    downloadTimeoutMs: parsed.download_timeout === undefined ? undefined
      : parseDuration(parsed.download_timeout, 'download_timeout'),
    downloadMinRate: parsed.download_min_rate,
    listen: parsed.listen,
    seedHosts: parsed.seed_hosts,
    clusterName: parsed.cluster_name,
    json: parsed.json,
    all: Boolean(parsed.all),
    keep: parsed.keep,
    graceMs: parsed.grace === undefined ? undefined : parseDuration(parsed.grace, 'grace')
  }
}

/** The .env lines a run needs: every node's HTTP address (where others reach it: --listen), the first node's ports. */
function envLines (state) {
  const first = state.nodes[0]
  const address = (state.spec && state.spec.listen) || '127.0.0.1'
  const host = address.includes(':') ? `[${address}]` : address
  return [`CRATE_HOST=${state.nodes.map((n) => `http://${host}:${n.http_port}`).join(',')}`,
    `CRATE_PORT=${first.http_port}`, `CRATE_PG_PORT=${first.pg_port}`]
}

async function start (args, { stdout, stderr, signals, env }) {
  const log = (line) => stderr.write(`${line}\n`)
  const { state } = await startCluster(args, { env, log, signals })
  stdout.write(args.json ? `${JSON.stringify(state)}\n` : `${envLines(state).join('\n')}\n`)
  log(`CrateDB ${state.version} (build ${state.build_hash ?? 'unknown'}): ${state.nodes.length} node` +
    `${state.nodes.length === 1 ? '' : 's'} × ${state.heap} heap in ${state.dir}; stop it with: crate-bench cluster ` +
    `stop --dir ${state.dir}`)
  return EXIT.OK
}

async function stop (args, { stderr, env }) {
  const log = (line) => stderr.write(`${line}\n`)
  if (args.all === Boolean(args.dir)) throw new UsageError('give --dir DIR or --all (one of them)')
  const dirs = args.all ? registered(env).map((e) => e.dir) : [path.resolve(args.dir)]
  if (args.all && dirs.length === 0) log('no cluster of this tool runs on this machine')
  for (const dir of dirs) {
    const stopped = await stopNodes(dir, { remove: !args.keep, graceMs: args.graceMs, log, quietIfGone: args.all,
      env })
    if (stopped) {
      log(`${stopped.name}: ${stopped.stopped + stopped.killed} node${stopped.stopped + stopped.killed === 1 ? ''
        : 's'} stopped${stopped.killed ? ` (${stopped.killed} killed)` : ''}; ${args.keep ? `kept: ${dir}`
        : 'its data and logs removed'}`)
    }
  }
  return EXIT.OK
}

/** A node's heap in use, from its own sys.nodes row; null when it does not answer. */
async function heapUsed (port) {
  const rows = await sqlOnNode(port, "SELECT heap['used'], heap['max'] FROM sys.nodes WHERE name = (SELECT " +
    'name FROM sys.nodes LIMIT 1) LIMIT 1', 3000)
  return rows && rows[0] ? { used: rows[0][0], max: rows[0][1] } : null
}

/** "CrateDB 6.4.3 (build …), 3 nodes × 1g heap", with what a record of a start cut short does not say said so. */
function describeRecord (state) {
  const count = state.spec && state.spec.nodes !== undefined ? state.spec.nodes : state.nodes.length
  return `CrateDB ${state.version ?? '(version unknown)'} (build ${state.build_hash ?? 'unknown'}), ${count} node` +
    `${count === 1 ? '' : 's'} × ${state.heap ?? '(heap unknown)'} heap`
}

/** "" for a cluster that became ready; what else it is for one whose start did not finish. */
const readyOf = (state) => (typeof state.ready_s === 'number' ? ''
  : ' (its start did not finish: not a cluster to run against)')

async function status (args, { stdout }) {
  if (!args.dir) throw new UsageError('give --dir DIR (the folder cluster start was given or printed)')
  const state = readState(path.resolve(args.dir))
  const alive = new Set(living(state).map((n) => n.name))
  const mb = (b) => `${Math.round(b / 1024 / 1024)} MB`
  const lines = [`${state.name}: ${describeRecord(state)}, started ${state.started_at ?? 'at an unknown time'}` +
    `${readyOf(state)}`]
  for (const node of state.nodes) {
    const heap = alive.has(node.name) ? await heapUsed(node.http_port) : null
    lines.push(`  ${node.name}: ${alive.has(node.name) ? 'alive' : 'NOT RUNNING'} (pid ${node.pid}), http ` +
      `${node.http_port}, pg ${node.pg_port}, transport ${node.transport_port}${heap ? `, heap ${mb(heap.used)} of ` +
        `${mb(heap.max)}` : alive.has(node.name) ? ', not answering' : ''}`)
  }
  stdout.write(`${lines.join('\n')}\n`)
  return alive.size === state.nodes.length ? EXIT.OK : EXIT.FAILURES
}

async function list (args, { stdout, env }) {
  const lines = []
  for (const entry of registered(env)) {
    let state = null
    try {
      state = readState(entry.dir, { nullIfMissing: true })
    } catch {
      state = null
    }
    const alive = state && registryKeyOf(state) === entry.name ? living(state) : []
    // An entry whose nodes are all gone (stopped by hand, the machine restarted) leaves the registry.
    if (alive.length === 0) {
      unregister(entry.name, env)
      continue
    }
    lines.push(`${state.name}: CrateDB ${state.version ?? '(version unknown)'}, ${alive.length} of ` +
      `${state.nodes.length} nodes alive${readyOf(state)}, http ${state.nodes.map((n) => n.http_port).join(',')}, ` +
      `in ${state.dir}`)
  }
  stdout.write(lines.length ? `${lines.join('\n')}\n` : 'no cluster of this tool runs on this machine\n')
  return EXIT.OK
}

async function download (args, { stdout, stderr, env, signals }) {
  const log = (line) => stderr.write(`${line}\n`)
  const dist = await resolveDistribution({ version: args.version, tarball: args.tarball, sha256: args.sha256, env,
    log, signal: signals ? signals.abortSignal : null, maxDownloadBytes: sizeOf(args.maxDownload, '--max_download'),
    maxUnpackedBytes: sizeOf(args.maxUnpacked, '--max_unpacked'), downloadTimeoutMs: args.downloadTimeoutMs,
    downloadMinRate: minRateOf(args.downloadMinRate) })
  stdout.write(`${dist.home}\n`)
  log(`CrateDB ${dist.version ?? '(version unknown)'}, SHA-256 ${dist.sha256}, in the cache ${cacheDirOf(env)}`)
  return EXIT.OK
}

const ACTIONS = { start, stop, status, list, download }

/** crate-bench cluster … Returns the exit code. `signals`: Ctrl-C or SIGTERM stops a start (lib/cli/interrupts.js). */
function main (argv, { stdout = process.stdout, stderr = process.stderr, signals = null, env = process.env } = {}) {
  return commandMain({ name: NAME, usage: () => `${USAGE}\n`, parse: () => parseArgs(argv), stdout, stderr,
    body: (args) => ACTIONS[args.action](args, { stdout, stderr, signals, env }) })
}

module.exports = { main, USAGE, envLines, parseArgs }
