'use strict'

// appClusterAnalytical.js end to end against the CrateDB test double.

const test = require('node:test')
const assert = require('node:assert/strict')
const { withCrateTestDouble } = require('../helpers/crate-test-double')
const { runTool } = require('../helpers/run-tool')
const { testOverProtocols } = require('../helpers/protocols')
const { tempFile } = require('../helpers/temp-files')
const { joined } = require('../helpers/patterns')

const analytical = (args, options) => runTool('appClusterAnalytical.js', args, options)
const DATA_END = Date.UTC(2016, 0, 3)

// Answers every SELECT of the shipped mixes with one row; max(ts) with the end of the data.
function answerSelects (failWhen = () => null) {
  return (stmt, args) => {
    const failure = failWhen(stmt, args)
    if (failure) return { error: failure }
    if (/^SELECT max\(ts\) FROM/.test(stmt)) return { cols: ['max(ts)'], rows: [[DATA_END]], rowcount: 1 }
    if (/^SELECT/i.test(stmt)) return { cols: ['x'], rows: [[1]], rowcount: 1 }
    return null
  }
}

const withDouble = withCrateTestDouble

const queryFile = (t, text) => tempFile(t, 'mix.yml', text)

testOverProtocols('the mix is honoured: 1000 queries at 0.7 / 0.2 / 0.1, exact counts, args as parameters',
  { query: answerSelects() }, async (double, t) => {
  const config = queryFile(t, [
    '- {name: point, query: "SELECT * FROM doc.cpu WHERE tags[\'hostname\'] = ?", ratio: 0.7, args: [{hostname: {}}]}',
    '- {name: env, query: "SELECT count(*) FROM doc.cpu WHERE tags[\'service_environment\'] = ?", ratio: 0.2, args: ' +
      '[{service_environment: {}}]}',
    '- {name: recent, query: "SELECT count(*) FROM doc.cpu WHERE ts >= CAST(? AS TIMESTAMP WITH TIME ZONE)", ratio: ' +
      '0.1, args: [{timestamp: {last: 1h}}]}'
  ].join('\n'))
  const run = await analytical(['--queries_config', config, '--processes', '2', '--max_queries', '500', '--seed', '5',
    '--json'], { env: double.env() })
  assert.equal(run.code, 0, run.stderr)
  const r = run.json
  assert.equal(r.workload, 'analytical')
  assert.equal(r.queries_ok, 1000)
  assert.equal(r.queries_failed, 0)
  assert.deepEqual(r.queries.map((q) => [q.name, q.count]), [['point', 700], ['env', 200], ['recent', 100]])
  for (const q of r.queries) {
    assert.equal(typeof q.latency_ms.p99, 'number')
    // The HTTP endpoint says how long the server took; the PostgreSQL protocol does not.
    if (double.protocol === 'pg') assert.equal(q.server_ms.mean, null)
    else assert.equal(typeof q.server_ms.mean, 'number')
    assert.equal(q.queries_per_sec, Math.round(q.count / r.seconds * 100) / 100)
  }
  // Validation ran each query once before the run; values went as args, never into the SQL.
  const point = double.statementsMatching(/hostname'\] = \?$/)
  assert.equal(point.length, 701)
  assert.ok(point.every((s) => /^host_\d+$/.test(s.args[0])))
  const recent = double.statementsMatching(/^SELECT count\(\*\) FROM doc\.cpu WHERE ts/)
  assert.ok(recent.every((s) => Date.parse(s.args[0]) <= DATA_END && Date.parse(s.args[0]) > DATA_END - 3_600_000))
  assert.equal(double.statementsMatching(/^SELECT max\(ts\)/).length, 1)
  assert.match(run.stderr, /│ point\s+│ 0\.7\s+│ 700\s+│/)
})

testOverProtocols('weights as Locust writes them (2 : 10 : 9 : 8 : 7 : 1) run in that mix, normalised and said once',
  { query: answerSelects() }, async (double, t) => {
  const weights = [2, 10, 9, 8, 7, 1]
  const config = queryFile(t, weights.map((w, i) => `- {name: q${i}, query: SELECT ${i + 1}, weight: ${w}}`).join('\n'))
  const run = await analytical(['--queries_config', config, '--processes', '1', '--max_queries', '370', '--json'],
    { env: double.env() })
  assert.equal(run.code, 0, run.stderr)
  assert.deepEqual(run.json.queries.map((q) => q.count), weights.map((w) => w * 10))
  const mixLine = /query mix: weights 2, 10, 9, 8, 7, 1 sum to 37: each query runs its weight \/ 37 of the mix/g
  assert.equal(run.stderr.match(mixLine).length, 1)
})

testOverProtocols('--threshold: a pass/fail table at the end; a miss exits 5, per query too; all passed keeps the ' +
  'run\'s own code', { query: answerSelects() }, async (double, t) => {
  const config = queryFile(t,
    '- {name: "point: one host", query: "SELECT * FROM doc.cpu WHERE tags[\'hostname\'] = ?", ratio: 1, args: ' +
      '[{hostname: {}}]}\n')
  const args = ['--queries_config', config, '--max_queries', '50', '--json']
  const missed = await runTool('appClusterAnalytical.js', [...args, '--threshold', 'failed=0', '--threshold',
    'point: one host:p99<0.001ms', '--threshold', 'queries_per_sec>=1'], { env: double.env() })
  assert.equal(missed.code, 5, missed.stderr)
  assert.deepEqual(missed.json.thresholds.map((r) => [r.threshold, r.passed]), [['failed=0', true],
    ['point: one host:p99<0.001ms', false], ['queries_per_sec>=1', true]])
  assert.match(missed.stderr, /│ point: one host:p99<0\.001ms +│ [\d.,]+ +│ FAIL +│/)
  assert.match(missed.stderr, /thresholds: 1 of 3 FAILED \(exit 5\)/)
  const passed = await runTool('appClusterAnalytical.js', [...args, '--threshold', 'p99<60s'], { env: double.env() })
  assert.equal(passed.code, 0, passed.stderr)
  assert.match(passed.stderr, /thresholds: all 1 passed/)
})

test('failed queries are counted per query and grouped; exit 1', (t) => {
  // The first execution of b is the validation run; every later one fails.
  let seen = 0
  return withDouble({
    query: answerSelects((stmt) => (/FROM doc\.t2/.test(stmt) && ++seen > 1 ? { status: 500, code: 5000,
      message: 'CircuitBreakingException[simulated]' } : null))
  }, async (double) => {
    const config = queryFile(t,
      '- {name: a, query: SELECT 1, ratio: 0.5}\n- {name: b, query: SELECT x FROM doc.t2, ratio: 0.5}\n')
    const run = await analytical(['--queries_config', config, '--max_queries', '100', '--json'], { env: double.env() })
    assert.equal(run.code, 1, run.stderr)
    assert.deepEqual(run.json.queries.map((q) => [q.name, q.count, q.failed]), [['a', 50, 0], ['b', 50, 50]])
    assert.equal(run.json.queries_failed, 50)
    assert.deepEqual(run.json.errors.map((e) => [e.code, e.status, e.count]), [[5000, 500, 50]])
  })
})

testOverProtocols('a query CrateDB rejects stops the run before it starts: one line naming it, exit 3', {},
  async (double, t) => {
  const config = queryFile(t,
    '- {name: good, query: SELECT 1, ratio: 0.5}\n- {name: broken, ' +
      'query: SELECT * FROM doc.no_such_table, ratio: 0.5}\n')
  const run = await analytical(['--queries_config', config], { env: double.env() })
  assert.equal(run.code, 3)
  assert.equal(run.stderr.split('\n').filter((l) => /error:/.test(l)).join('\n'),
    "appClusterAnalytical.js: error: query 'broken' failed " +
      "validation: RelationUnknown[Relation 'doc.no_such_table' unknown]")
})

testOverProtocols('bad query files: one-line errors, exit 2', {}, async (double, t) => {
  for (const [args, pattern] of [
    [[], /error: --queries_config is required/],
    [['--queries_config', '/nonexistent/q.yml'],
      /error: --queries_config '\/nonexistent\/q\.yml' cannot be read: no such file/],
    [['--queries_config', queryFile(t, '- query: [\n')], /is not valid YAML at line \d+/],
    [['--queries_config', queryFile(t, '- {ratio: 1}\n')], /entry 1 has no query/],
    [['--queries_config', queryFile(t, '- {query: SELECT 1, ratio: -1}\n')], /ratio must be a positive number/],
    [['--queries_config', queryFile(t, '- {query: SELECT 1, weight: 0}\n')],
      /weight must be a positive number \(got 0\)/],
    [['--queries_config', queryFile(t, '- {query: SELECT ?, ratio: 1, args: [{rgion: {}}]}\n')],
      /unknown arg generator 'rgion'/],
    [['--queries_config', 'queries/select1.yml', '--max_queries', '0'], /--max_queries must be a whole number >= 1/]
  ]) {
    const run = await analytical(args, { env: double.env() })
    assert.equal(run.code, 2, `${args.join(' ')}: ${run.stderr}`)
    assert.match(run.stderr, pattern)
    assert.equal(run.stderr.trim().split('\n').length, 1, run.stderr)
  }
  assert.equal(double.requestCount, 0)
})

testOverProtocols('timestamp args on an empty table: one-line error, exit 3', {
  query: (stmt) => (/^SELECT max\(ts\)/.test(stmt) ? { cols: ['max(ts)'], rows: [[null]], rowcount: 1 } : null)
}, async (double) => {
  const run = await analytical(['--queries_config', 'queries/cpu-dashboard.yml'], { env: double.env() })
  assert.equal(run.code, 3)
  assert.match(run.stderr,
    /error: timestamp args need the end of the data, but doc\.cpu is empty \(ingest first, or give --data_end\)/)
})

testOverProtocols('the shipped query sets run against the test double', { query: answerSelects() }, async (double) => {
  for (const set of ['cpu-dashboard.yml', 'tsbs-cpu.yml', 'select1.yml']) {
    const run = await analytical(['--queries_config', `queries/${set}`, '--max_queries', '60', '--json'],
      { env: double.env() })
    assert.equal(run.code, 0, `${set}: ${run.stderr}`)
    assert.equal(run.json.queries_ok, 60)
  }
})

testOverProtocols('queries named like Object.prototype\'s keys are counted as any other', { query: answerSelects() },
  async (double, t) => {
  const config = queryFile(t, [
    '- {name: __proto__, query: "SELECT 1", ratio: 0.5}',
    '- {name: constructor, query: "SELECT 2", ratio: 0.25}',
    '- {name: toString, query: "SELECT 3", ratio: 0.25}'
  ].join('\n'))
  const run = await analytical(['--queries_config', config, '--processes', '1', '--max_queries', '40', '--seed', '5',
    '--json'], { env: double.env() })
  assert.equal(run.code, 0, run.stderr)
  assert.equal(run.json.queries_ok, 40)
  assert.equal(run.json.queries_in_doubt, 0)
  assert.deepEqual(run.json.queries.map((q) => [q.name, q.count]), [['__proto__', 20], ['constructor', 10], ['toString',
    10]])
  assert.ok(run.json.queries.every((q) => typeof q.latency_ms.p99 === 'number'))
})

testOverProtocols('{table} follows --table, quoted; a query that names another table is warned about',
  { query: answerSelects() }, async (double, t) => {
  const config = queryFile(t, [
    '- {name: mine, query: "SELECT count(*) FROM {table} WHERE ts >= CAST(? AS TIMESTAMP WITH TIME ZONE)", ratio: ' +
      '0.5, args: [{timestamp: {last: 1h}}]}',
    '- {name: theirs, query: "SELECT usage_user FROM doc.cpu LIMIT 1", ratio: 0.5}'
  ].join('\n'))
  const run = await analytical(['--queries_config', config, '--table', 'doc.mine', '--max_queries', '20', '--json'],
    { env: double.env() })
  assert.equal(run.code, 0, run.stderr)
  assert.equal(double.statementsMatching(/^SELECT count\(\*\) FROM "doc"\."mine" WHERE ts/).length, 11)
  assert.equal(double.statementsMatching(/^SELECT max\(ts\) FROM "doc"\."mine"$/).length, 1)
  assert.match(run.stderr,
    joined(
      /warning: query 'theirs' names doc\.cpu, not --table doc\.mine /,
      /\(write \{table\} in the query file to follow --table\)/))
  assert.doesNotMatch(run.stderr, /query 'mine' names/)
})
