'use strict'

// The benchmarks' flags as yargs declares them: their types, defaults, groups and help texts. Parsing and checking
// them is lib/cli/options.js; the docs test holds docs/ingest.md's table to this list.

const { DEFAULT_FLEET_TABLE } = require('../data/tool-tables')

// k6's web dashboard takes 5665 and Locust's 8089: the next one up from k6's, so both can run beside this tool.
const DEFAULT_UI_PORT = 5666

const CONNECTION_OPTIONS = {
  host: {
    type: 'string',
    group: 'Connection:',
    describe: 'CrateDB host(s), comma-separated for round-robin [env CRATE_HOST]'
  },
  port: { type: 'string', group: 'Connection:', describe: 'HTTP port [env CRATE_PORT]' },
  user: {
    type: 'string',
    group: 'Connection:',
    describe: 'user name; the password is read from CRATE_PASSWORD only [env CRATE_USER]'
  },
  ssl: { type: 'boolean', group: 'Connection:', describe: 'use HTTPS [env CRATE_SSL]' },
  insecure: {
    type: 'boolean',
    default: false,
    group: 'Connection:',
    describe: 'HTTPS without certificate verification (never the default)'
  },
  timeout: {
    type: 'string',
    default: '60s',
    group: 'Connection:',
    describe: 'per-request timeout, the whole answer included (e.g. 10s, 2m)'
  },
  protocol: {
    type: 'string',
    choices: ['http', 'pg'],
    group: 'Connection:',
    describe: "the load's protocol: CrateDB's HTTP endpoint, or its PostgreSQL wire protocol (pg: JDBC-style " +
      'batches, prepared statements) on --pg_port of the same hosts; DDL and checks go over HTTP either way ' +
      '[env CRATE_PROTOCOL] (default: http)'
  },
  pg_port: {
    type: 'string',
    group: 'Connection:',
    describe: 'the PostgreSQL protocol port of every host, with --protocol pg [env CRATE_PG_PORT] (default: 5432)'
  },
  pg_insert: {
    type: 'string',
    choices: ['batch', 'values', 'unnest'],
    group: 'Connection:',
    describe: 'with --protocol pg, the shape of a bulk insert: batch (JDBC-style, each row answered: the default), ' +
      'values (one multi-row VALUES) or unnest (INSERT … SELECT * FROM UNNEST of arrays); these two answer only a ' +
      'total, the rest of the rows sent counted failed'
  },
  max_answer_mb: {
    type: 'string',
    group: 'Connection:',
    describe: 'a larger answer is cut off and its request counts as in doubt (default: 64)'
  }
}

const RUN_OPTIONS = {
  processes: { type: 'number', group: 'Load:', describe: 'worker processes' },
  concurrent_requests: {
    type: 'number',
    // More in flight than the cluster's thread pools take only queues at the client and inflates the latency it
    // reports: 20 x 10,000-row batches gave a 7-22 s p99 on one node, 4 more rows/s at a 0.9-1.5 s p99.
    default: 4,
    group: 'Load:',
    describe: 'requests in flight per process (raise it with the cluster: docs/sweeps-and-capacity.md)'
  },
  duration: {
    type: 'string',
    group: 'Load:',
    describe: 'stop after this long (e.g. 30s, 5m); whichever limit comes first ends the run'
  },
  warmup: {
    type: 'string',
    group: 'Load:',
    describe:
      'load from the start, but answers in this first part (e.g. 10s) are kept out of every figure and reported ' +
      'apart; --duration counts after it (0: none; a sweep or grid warms each run up by default). steady: until ' +
      'the rate stops moving (two windows within 5%), at most a minute (steady:2m: at most 2 minutes)'
  },
  graceful_stop: {
    type: 'string',
    default: '10s',
    group: 'Load:',
    describe:
      'after --duration, how long requests in flight may still take; those without an answer then are abandoned (in ' +
      'doubt)'
  },
  rate: {
    type: 'string',
    group: 'Load:',
    describe:
      "constant arrival rate over all processes: rows/s (ingest) or queries/s (analytical), sent on a fixed " +
      "timetable; latency then counts from each request's scheduled start (default: as fast as the answers come)"
  },
  stages: {
    type: 'string',
    group: 'Load:',
    describe:
      'a load profile instead of one --rate: DURATION:RATE holds a rate, DURATION:FROM..TO ramps it, comma-separated ' +
      '(e.g. 2m:50,2m:100,2m:150 or 1m:0..500); the run lasts their sum, and the report gives each stage its figures ' +
      'and names the first where the cluster stopped keeping up (its rate, a ramp falling behind, queueing, ' +
      'rejections); --threshold stages_kept_up=all fails the run (exit 5) then'
  },
  queueing_factor: {
    type: 'number',
    group: 'Load:',
    describe: 'with --stages, a stage whose p50 or p99 is more than this many times the first kept stage\'s (and ' +
      '20 ms more) met its rate by queueing: not kept up; 0 judges throughput alone',
    default: 4
  },
  seed: {
    type: 'number',
    group: 'Load:',
    describe: 'seed of the data and parameter generators (default: random, printed)'
  },
  results_table: {
    type: 'string',
    group: 'Runs across machines:',
    describe:
      "also write this run's result as one row into [schema.]table on the cluster (created if needed), e.g. " +
      "doc.bench_runs"
  },
  run_id: {
    type: 'string',
    group: 'Runs across machines:',
    describe: 'groups the rows of one run from several load generators (default: generated, printed)'
  },
  generator: {
    type: 'string',
    group: 'Runs across machines:',
    describe:
      'K/N: this is load generator K of N of one run (a fleet, coordinated through --fleet_table); each writes its ' +
      'own rows (default 1/1)'
  },
  generators: {
    type: 'number',
    group: 'Runs across machines:',
    describe:
      'N: this is one of N load generators of one run; K is JOB_COMPLETION_INDEX + 1 (a Kubernetes Indexed Job), ' +
      'so one manifest serves every pod'
  },
  fleet_table: {
    type: 'string',
    default: DEFAULT_FLEET_TABLE,
    group: 'Runs across machines:',
    describe: 'where the generators of a fleet register, agree on one preparation and one start, and report'
  },
  barrier_timeout: {
    type: 'string',
    default: '5m',
    group: 'Runs across machines:',
    describe: 'how long a generator of a fleet waits for the tables to be prepared and for every generator to be ready'
  },
  start_at: {
    type: 'string',
    group: 'Runs across machines:',
    describe: 'ISO time at which to start the load, so load generators on several machines start together'
  },
  monitor_interval: {
    type: 'string',
    default: '5s',
    group: 'Output:',
    describe:
      'sample sys.nodes (CPU, heap, load, write/search thread pools and their rejections) this often during the ' +
      'run; 0 disables'
  },
  json: { type: 'boolean', default: false, group: 'Output:', describe: 'print one JSON result object on stdout' },
  threshold: {
    type: 'string',
    array: true,
    group: 'Output:',
    describe:
      'a pass/fail check of the run, repeatable: "p99<250ms", "failed=0", "rows_per_sec>=40000", per query or table ' +
      '"name:p99<50ms", over the run "drift_throughput_pct>-10" (last tenth against the first); a miss exits 5'
  },
  report: {
    type: 'string',
    group: 'Output:',
    describe: 'also write a self-contained HTML report (charts over time, summary, options) to this file'
  },
  progress: {
    type: 'boolean',
    group: 'Output:',
    describe: 'progress on stderr: a line refreshed every second on a terminal; where stderr is a file or a log, ' +
      'a plain line a minute (with the client\'s memory), every second with --progress; --no-progress for none'
  },
  metrics_port: {
    type: 'number',
    group: 'Output:',
    describe:
      'serve Prometheus metrics at http://--metrics_host:PORT/metrics during the run and 5 s after it (0: any free ' +
      'port, printed)'
  },
  metrics_host: {
    type: 'string',
    default: '127.0.0.1',
    group: 'Output:',
    describe: 'the address --metrics_port listens on (0.0.0.0 in a pod)'
  },
  ui: {
    type: 'string',
    group: 'Output:',
    describe:
      `a live page of the run at http://127.0.0.1:PORT/ (default port ${DEFAULT_UI_PORT}; 0: any free port, printed): ` +
      'charts, the cluster, the rate to change and a stop button; at the end it becomes the run\'s HTML report'
  },
  ui_host: {
    type: 'string',
    group: 'Output:',
    describe: 'the address --ui listens on (default 127.0.0.1); any other needs the token printed at start to steer'
  }
}

// The cluster under test, started by the run on this machine and stopped after it (docs/cluster.md): taken out of the
// options before they are parsed (lib/cli/cluster-flags.js), declared here for --help and the docs' table.
const CLUSTER_OPTIONS = {
  start_cluster: {
    type: 'string',
    group: 'Cluster under test:',
    describe: 'start a CrateDB cluster of N nodes on this machine for this run, and stop it after (also when the run ' +
      'fails or is interrupted); the run goes to its nodes (--host is its own)'
  },
  crate_version: { type: 'string', group: 'Cluster under test:', describe: 'the CrateDB release to start (downloaded ' +
    'once into CRATE_BENCH_CACHE)' },
  crate_tarball: { type: 'string', group: 'Cluster under test:', describe: 'a CrateDB tarball to start (a path or a ' +
    'URL; for air-gapped machines)' },
  crate_sha256: { type: 'string', group: 'Cluster under test:', describe: 'the tarball\'s SHA-256: anything else is ' +
    'refused' },
  crate_heap: { type: 'string', group: 'Cluster under test:', describe: 'each node\'s heap (default 1g)' },
  crate_setting: { type: 'string', array: true, group: 'Cluster under test:', describe: 'a CrateDB setting ' +
    'KEY=VALUE for every node, repeatable' },
  crate_http_port: { type: 'string', group: 'Cluster under test:', describe: 'node i\'s HTTP port is PORT+i, its ' +
    'PostgreSQL port PORT+100+i, transport PORT+200+i (default 4250)' },
  crate_run_as: { type: 'string', group: 'Cluster under test:', describe: 'as root, the user the nodes run as ' +
    '(CrateDB refuses root; default crate)' },
  // Given by a study (or a grid, a sweep, find-capacity with --start_cluster) to each of its runs: not by hand.
  warmup_together: { type: 'string', hidden: true, group: 'Load:', describe: 'a folder the study made for the runs ' +
    "of one duet: each says there when its steady warm-up is steady, and ends it when --warmup_peers have" },
  warmup_peers: { type: 'number', hidden: true, group: 'Load:', describe: 'how many runs end their warm-ups together' },
  started_by_study: { type: 'string', hidden: true, group: 'Cluster under test:', describe: 'the record of the ' +
    'cluster the study of this run started (a file the study wrote), for the run to record and report' }
}

module.exports = { DEFAULT_UI_PORT, CONNECTION_OPTIONS, RUN_OPTIONS, CLUSTER_OPTIONS }
