'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { parseOptions, parseDuration, parseHosts, describeOptions } = require('../lib/options')
const ingest = require('../lib/workloads/ingest')
const { UsageError } = require('../lib/errors')

const parse = (argv, env = {}) => parseOptions(ingest, argv, env)

test('defaults follow the ancestor tool', () => {
  const o = parse([])
  assert.equal(o.table.display, 'doc.cpu')
  assert.equal(o.shards, 12)
  assert.equal(o.replicas, '0')
  assert.equal(o.dropTable, true)
  assert.equal(o.batchSize, 10000)
  assert.equal(o.maxRows, 1_000_000)
  assert.equal(o.concurrentRequests, 20)
  assert.equal(o.scale, 4000)
  assert.equal(o.durationMs, null)
  assert.deepEqual(o.connection.hosts, [{ protocol: 'http', hostname: 'localhost', port: 4200 }])
  assert.equal(o.connection.user, 'crate')
})

test('connection comes from the environment, several hosts round-robin', () => {
  const o = parse([], { CRATE_HOST: 'n1, n2:4201,https://n3', CRATE_PORT: '4300', CRATE_USER: 'bench', CRATE_PASSWORD: 's3cret', CRATE_SSL: 'true' })
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
    [['--start_time', 'yesterday'], /--start_time/],
    [['stray'], /stray/]
  ]) {
    assert.throws(() => parse(argv), (error) => error instanceof UsageError && pattern.test(error.message), `argv ${argv.join(' ')}`)
  }
})

test('bad connection settings are usage errors', () => {
  assert.throws(() => parse([], { CRATE_PORT: 'abc' }), /CRATE_PORT must be a port number/)
  assert.throws(() => parse([], { CRATE_SSL: 'maybe' }), /CRATE_SSL must be true or false/)
  assert.throws(() => parseHosts('ftp://x', 4200, false), /only http/)
  assert.throws(() => parseHosts('http://user:pw@x', 4200, false), /credentials/)
})

test('replica ranges are accepted', () => {
  assert.equal(parse(['--replicas', '0-1']).replicas, '0-1')
  assert.equal(parse(['--replicas', '1-all']).replicas, '1-all')
  assert.equal(parse(['--replicas', '2']).replicas, '2')
})
