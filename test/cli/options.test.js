'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { parseOptions, describeOptions } = require('../../lib/cli/options')
const { parseDuration, requireConcurrency } = require('../../lib/base/values')
const { parseHosts } = require('../../lib/cluster/connection')
const ingest = require('../../lib/workloads/ingest')
const { UsageError } = require('../../lib/base/errors')
const { joined } = require('../helpers/patterns')

const parse = (argv, env = {}) => parseOptions(ingest, argv, env)

test('defaults follow the ancestor tool, except where it destroyed tables or measured its own queue', () => {
  const o = parse([])
  assert.equal(o.table.display, 'doc.cpu')
  assert.equal(o.shards, 12)
  assert.equal(o.replicas, '0')
  assert.equal(o.dropTable, 'auto', 'a table is dropped only when this tool made it')
  assert.equal(o.batchSize, 10000)
  assert.equal(o.maxRows, 1_000_000)
  assert.equal(o.concurrentRequests, 4)
  assert.equal(o.scale, 4000)
  assert.equal(o.durationMs, null)
  assert.deepEqual(o.connection.hosts, [{ protocol: 'http', hostname: 'localhost', port: 4200 }])
  assert.equal(o.connection.user, 'crate')
})

test('connection comes from the environment, several hosts round-robin', () => {
  const o = parse([], { CRATE_HOST: 'n1, n2:4201,https://n3', CRATE_PORT: '4300', CRATE_USER: 'bench',
    CRATE_PASSWORD: 's3cret', CRATE_SSL: 'true' })
  assert.deepEqual(o.connection.hosts, [
    { protocol: 'https', hostname: 'n1', port: 4300 },
    { protocol: 'https', hostname: 'n2', port: 4201 },
    { protocol: 'https', hostname: 'n3', port: 4300 }
  ])
  assert.equal(o.connection.user, 'bench')
  assert.equal(o.connection.password, 's3cret')
})

test('the password never appears in the described options', () => {
  const described = describeOptions(parse([], { CRATE_PASSWORD: 's3cret-value' }))
  assert.equal(described.password, '***')
  assert.ok(!JSON.stringify(described).includes('s3cret-value'))
})

test('--drop_table false and --no-drop_table both keep the table', () => {
  assert.equal(parse(['--drop_table', 'false']).dropTable, false)
  assert.equal(parse(['--no-drop_table']).dropTable, false)
  assert.equal(parse(['--drop_table']).dropTable, true)
})

test('durations', () => {
  assert.equal(parseDuration('30s', 'duration'), 30_000)
  assert.equal(parseDuration('5m', 'duration'), 300_000)
  assert.equal(parseDuration('1.5h', 'duration'), 5_400_000)
  assert.equal(parseDuration('250ms', 'duration'), 250)
  assert.equal(parseDuration('12', 'duration'), 12_000)
  assert.throws(() => parseDuration('0s', 'duration'), /--duration must be a positive duration/)
  assert.throws(() => parseDuration('soon', 'duration'), /got 'soon'/)
  assert.equal(parse(['--duration', '2m']).durationMs, 120_000)
})

test('bad sizes are usage errors naming the flag', () => {
  for (const [argv, pattern] of [
    [['--batch_size', 'abc'], /--batch_size must be a whole number >= 1 \(got not a number\)/],
    [['--batch_size', '0'], /--batch_size .* \(got '0'\)/],
    [['--max_rows', '-5'], /--max_rows .* \(got '-5'\)/],
    [['--processes', '1.5'], /--processes/],
    [['--concurrent_requests', '0'], /--concurrent_requests/],
    [['--shards', '0'], /--shards/],
    [['--scale', 'x'], /--scale/],
    [['--extra_tags_length', '-1'], /--extra_tags_length must be a whole number >= 0/],
    [['--replicas', 'x'], /--replicas must be a number or a range/],
    [['--replicas', '2-1'], /upper bound below its lower bound/],
    [['--table', 'doc.cpu; DROP TABLE x'], /not a valid table name/],
    [['--table', 'sys.nodes'], /system schema/],
    [['--bogus', '1'], /unknown option --bogus/],
    [['--upsert', 'maybe'], /unexpected argument 'maybe' \(options start with --; see --help\)/],
    [['--timeout', 'x'], /--timeout/],
    [['--ui_host', '0.0.0.0'], /--ui_host is the address --ui listens on: give --ui too/],
    [['--table', 'doc.crate_bench_fleet', '--drop_table'],
      joined(
        /--table doc\.crate_bench_fleet is where the generators of fleets /,
        /coordinate \(--fleet_table\): the run would drop and fill it/)],
    [['--table', 'runs.f', '--generator', '1/2', '--run_id', 'r', '--fleet_table', 'runs.f'],
      /--table runs\.f is where the generators of fleets coordinate/],
    [['--table', 'doc.crate_bench_tables'],
      /--table doc\.crate_bench_tables is where this tool records the tables it made/],
    [['--table', 'doc.crate_bench_leases'],
      /--table doc\.crate_bench_leases is where this tool records which run uses its tables/],
    [['--table', 'doc.crate_bench_results'], /--table doc\.crate_bench_results is where runs store their results/],
    [['--pg_port', '5433'], /--pg_port is the port of --protocol pg: give --protocol pg too/],
    [['--start_time', 'yesterday'], /--start_time/],
    [['stray'], /stray/]
  ]) {
    assert.throws(() => parse(argv), (error) => error instanceof UsageError && pattern.test(error.message),
      `argv ${argv.join(' ')}`)
  }
})

test('bad connection settings are usage errors', () => {
  assert.throws(() => parse([], { CRATE_PORT: 'abc' }), /CRATE_PORT must be a port number/)
  assert.throws(() => parse([], { CRATE_SSL: 'maybe' }), /CRATE_SSL must be true or false/)
  assert.throws(() => parseHosts('ftp://x', 4200, false), /only http/)
  assert.throws(() => parse([], { CRATE_PORT: '0x1068' }),
    /CRATE_PORT must be a port number 1-65535 in decimal \(got '0x1068'\)/)
  assert.throws(() => parseHosts('http://h/path', 4200, false),
    /^.*invalid host 'http:\/\/h\/path': a host has no path \(got '\/path'\)/)
  assert.throws(() => parseHosts('http://h?x=1', 4200, false), /a host has no query string/)
  assert.throws(() => parseHosts('http://h#top', 4200, false), /a host has no #fragment/)
  assert.throws(() => parseHosts('http://crate:S3cr3t@h/x', 4200, false),
    (e) => /http:\/\/crate:\*\*\*@h\/x/.test(e.message) && !e.message.includes('S3cr3t'))
})

test('--pg_port: one port for every host, or one per host in --host\'s order (the nodes of one machine)', () => {
  const one = parse(['--protocol', 'pg', '--host', 'a,b', '--pg_port', '5499'])
  assert.deepEqual(one.connection.pgPorts, [5499, 5499])
  const each = parse(['--protocol', 'pg', '--host', 'a:4280,a:4281,a:4282', '--pg_port', '4380,4381,4382'])
  assert.deepEqual(each.connection.pgPorts, [4380, 4381, 4382])
  assert.equal(describeOptions(each).pg_port, '4380,4381,4382')
  assert.equal(describeOptions(one).pg_port, 5499)
  assert.deepEqual(parse(['--protocol', 'pg', '--host', 'a,b']).connection.pgPorts, [5432, 5432])
  assert.throws(() => parse(['--protocol', 'pg', '--host', 'a,b,c', '--pg_port', '4380,4381']),
    /--pg_port\/CRATE_PG_PORT must name one port, or one per host of --host in its order \(3; got 2\)/)
  assert.throws(() => parse(['--protocol', 'pg', '--host', 'a,b', '--pg_port', '4380,x']),
    /--pg_port\/CRATE_PG_PORT must be a port number 1-65535 in decimal \(got 'x'\)/)
})

test('credentials in the host are the connection\'s, and never shown', () => {
  const options = parse([], { CRATE_HOST: 'https://bench:S3cr3t@a:4201,https://bench:S3cr3t@b' })
  assert.deepEqual([options.connection.user, options.connection.password], ['bench', 'S3cr3t'])
  assert.deepEqual(options.connection.hosts.map((h) => `${h.protocol}://${h.hostname}:${h.port}`), ['https://a:4201',
    'https://b:4200'])
  assert.ok(!JSON.stringify(describeOptions(options)).includes('S3cr3t'))
  assert.throws(() => parse([], { CRATE_HOST: 'http://a:x@h', CRATE_PASSWORD: 'y' }),
    (e) => /differs from CRATE_PASSWORD/.test(e.message) && !/\bx\b|\by\b/.test(e.message.replace(/differs from/, '')))
  assert.throws(() => parse([], { CRATE_HOST: 'http://u1:p@h1,http://u2:p@h2' }), /different credentials/)
})

test('every duration has a range; a negative one says so', () => {
  assert.throws(() => parse(['--timeout', '999h']), /--timeout must be between 1ms and 24h \(got '999h'\)/)
  assert.throws(() => parse(['--monitor_interval', '999h']), /--monitor_interval must be between 100ms and 1h/)
  assert.throws(() => parse(['--duration', '0.001ms']), /--duration must be between 1ms and 720h/)
  assert.throws(() => parse(['--timeout', '-1s']),
    /--timeout must be a positive duration such as 500ms, 30s, 5m or 1h \(got '-1s'\)/)
  assert.throws(() => parse(['--processes', '1', '--rate', '0.001', '--duration', '3s']),
    joined(
      /--rate 0\.001 over 1 process sends a request of 10000 every /,
      /2777.78h per process: --duration 3s cannot hold two of them/))
  assert.equal(parse(['--processes', '2', '--rate', '4000', '--batch_size', '100', '--duration', '50ms']).durationMs,
    50)
})

test('more requests in flight than the open-file limit allows is refused', () => {
  assert.throws(() => requireConcurrency(100_000, 'concurrent_requests', 20_000),
    joined(
      /--concurrent_requests 100000 needs a socket per request in flight, more /,
      /than this process may open \(ulimit -n 20000\): use at most 19936/))
  assert.equal(requireConcurrency(20, 'concurrent_requests', 1024), 20)
  assert.equal(requireConcurrency(100_000, 'concurrent_requests', null), 100_000, 'no limit known: no limit applied')
})

test('replica ranges are accepted', () => {
  assert.equal(parse(['--replicas', '0-1']).replicas, '0-1')
  assert.equal(parse(['--replicas', '1-all']).replicas, '1-all')
  assert.equal(parse(['--replicas', '2']).replicas, '2')
})

test('--warmup steady: until the rate is steady, at most a minute or the cap given; never with --rate or a fleet',
  () => {
  assert.deepEqual(['warmupMs', 'warmupSteady'].map((k) => parse(['--warmup', 'steady'])[k]), [60_000, true])
  assert.deepEqual(['warmupMs', 'warmupSteady'].map((k) => parse(['--warmup', 'steady:2m'])[k]), [120_000, true])
  assert.deepEqual(['warmupMs', 'warmupSteady'].map((k) => parse(['--warmup', '10s'])[k]), [10_000, false])
  assert.deepEqual(['warmupMs', 'warmupSteady'].map((k) => parse(['--warmup', '0'])[k]), [0, false])
  assert.throws(() => parse(['--warmup', 'steady:5s']),
    /^UsageError: --warmup steady:5s: a steady warm-up's cap must be /)
  assert.throws(() => parse(['--warmup', 'steady:1h']), /from 10 s to 10 minutes/)
  assert.throws(() => parse(['--warmup', 'steadily']), /--warmup must be a positive duration/)
  assert.throws(() => parse(['--warmup', 'steady', '--rate', '1000', '--duration', '10s']),
    /--warmup steady and --rate do not go together: a paced run's timetable is fixed at its start/)
  assert.throws(() => parse(['--warmup', 'steady', '--generator', '1/2', '--run_id', 'r1', '--host',
    'http://db:4200']),
    /--warmup steady and a fleet do not go together/)
})

test('--warmup_together (a study\'s duet): a folder and how many runs meet there, with a steady warm-up only', () => {
  assert.deepEqual(parse(['--warmup', 'steady', '--warmup_together', '/tmp/meet', '--warmup_peers', '3'])
    .warmupTogether, { dir: '/tmp/meet', peers: 3 })
  assert.equal(parse(['--warmup', 'steady']).warmupTogether, null)
  assert.throws(() => parse(['--warmup', '10s', '--warmup_together', '/tmp/meet']),
    /^UsageError: --warmup_together goes with --warmup steady$/)
  assert.throws(() => parse(['--warmup', 'steady', '--warmup_peers', '2']),
    /^UsageError: --warmup_peers goes with --warmup_together$/)
})
