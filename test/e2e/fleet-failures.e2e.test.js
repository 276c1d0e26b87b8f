'use strict'

// A fleet's failure paths end to end: generators started by hand as pods would be, one or more killed (their whole
// process tree, SIGKILL: no 'done', no result) at a chosen moment. In every case the fleet must end finished by a
// living generator, with count(*) within [acknowledged, acknowledged + in doubt], or say that it could not start.

const test = require('node:test')
const assert = require('node:assert/strict')
const { withCrateTestDouble } = require('../helpers/crate-test-double')
const { runTool } = require('../helpers/run-tool')
const { runFleet } = require('../helpers/fleet-run')
const { assertCountWithinAcknowledged } = require('../helpers/table-invariant')
const { joined, assertSomeMatch } = require('../helpers/patterns')

// Heartbeats every 200 ms and a 1 s --timeout: a dead generator is judged after 1.6 s of silence.
const HEARTBEAT_ENV = { CRATE_BENCH_FLEET_HEARTBEAT_MS: '200' }
const COMMON = ['--processes', '1', '--concurrent_requests', '2', '--batch_size', '100', '--timeout', '1s', '--json']

/** The fleet of one run against the test double, its heartbeats every 200 ms (see runFleet). */
const fleet = (double, spec) => runFleet({ env: double.env(HEARTBEAT_ENV), common: COMMON, ...spec })

const slowBulks = { trackKeys: true, fault: ({ bulk }) => (bulk ? { delayMs: 5 } : undefined) }

test('the steward killed mid-run: the lowest living generator takes the finish over, reconciles, exits 4',
  () => withCrateTestDouble(slowBulks, async (double) => {
  const { runs: [steward, second, third], report } = await fleet(double, { runId: 'steward-dies',
    kills: { 1: { at: /the load starts at/, delayMs: 3000 } } })
  assert.equal(steward.signal, 'SIGKILL')
  assert.equal(second.code, 4, second.stderr)
  assert.match(second.stderr, /generator 2\/3 takes over the fleet's finish \(generator 1 stopped heartbeating\)/)
  assert.match(second.stderr, /fleet of run steward-dies: 2 of 3 generators done; DEAD \(no final report\): 1/)
  assert.match(second.stderr, /generator 1 \([^)]+\) was judged dead after [\d.]+ s of silence/)
  assert.deepEqual(second.json.fleet_finish, { finished_by: 2, dead: [1] })
  assert.equal(third.code, 0, third.stderr)
  assert.deepEqual(third.json.fleet_finish, { finished_by: 2, dead: [] }, 'the others say who finished the fleet')
  assert.equal(report.code, 4, report.stderr)
  assert.equal(report.json.fleet.finished_by, 2)
  assertCountWithinAcknowledged(report.json, double)
  // The table's refresh_interval and the fleet's rows were restored and stored by the finisher, not left running.
  assert.ok(double.statementsMatching(/^REFRESH TABLE "doc"\."cpu"$/).length >= 1)
}))

test('a generator killed mid-run: the rows it may have sent after its last heartbeat are in doubt, never an excess',
  () => withCrateTestDouble(slowBulks, async (double) => {
  const { runs: [steward, second, third], report } = await fleet(double, { runId: 'one-dies',
    kills: { 2: { at: /the load starts at/, delayMs: 3000 } } })
  assert.equal(second.signal, 'SIGKILL')
  assert.equal(steward.code, 4, steward.stderr)
  assert.equal(third.code, 0, third.stderr)
  assert.deepEqual(third.json.fleet_finish, { finished_by: 1, dead: [] })
  assert.equal(report.code, 4)
  const m = report.json
  // Its rows counted in the table by their keys (the cpu model's row index names its generator): none in doubt.
  assertSomeMatch(m.partial_reasons, joined(
    /^generator 2 .*judged dead after [\d.]+ s of silence\): its rows counted in the table by their keys, /,
    /\d+ stored \(\d+ acknowledged by its last report, \d+ found in the table since\), none in doubt$/))
  assert.equal(m.rows_in_doubt, 0, 'nothing the table can answer is left in doubt')
  assert.equal(m.reconciliation.verdict, 'exact', JSON.stringify(m.reconciliation))
  assert.equal(double.keys.size, m.rows_ok)
  assert.match(steward.stderr,
    joined(
      /fleet: generator 2 \([^)]+\) was judged dead after [\d.]+ s of silence: /,
      /its rows counted in the table by their keys, [\d,]+ rows stored/))
  assertCountWithinAcknowledged(m, double)
}))

// Issue 49: rows an earlier run left in the table lie before this run's start; counted by their keys without a
// bound, CrateDB's modulo of their negative index gave them to generator 1. Each index killed in turn.
for (const victim of [1, 2]) {
  test(`a table that held rows before the fleet, generator ${victim} of 2 killed: only this run's rows counted`,
    () => withCrateTestDouble(slowBulks, async (double) => {
    const earlier = await runTool('appClusterIngest.js', ['--processes', '1', '--max_rows', '2000', '--batch_size',
      '500', '--json'], { env: double.env() })
    assert.equal(earlier.code, 0, earlier.stderr)
    const before = double.keys.size
    const { runs, report } = await fleet(double, { runId: `held-rows-${victim}`, count: 2,
      args: ['--duration', '4s', '--no-drop_table'], kills: { [victim]: { at: /the load starts at/, delayMs: 2500 } } })
    assert.equal(runs[victim - 1].signal, 'SIGKILL')
    assert.equal(report.code, 4, report.stderr)
    const m = report.json
    // A kept table is not counted whole (it holds the earlier run's rows): the fleet's own rows are the check.
    assert.equal(m.rows_in_doubt, 0)
    assert.equal(m.rows_ok, double.keys.size - before, 'the fleet\'s rows, none of the earlier run\'s')
    assertSomeMatch(m.partial_reasons,
      new RegExp(`^generator ${victim} .*its rows counted in the table by their keys, \\d+ stored`))
  }))
}

// Another writer of the same keys meanwhile: the table holds each of the fleet's rows twice.
const twice = (counts) => new Map([...counts].map(([generator, rows]) => [generator, rows * 2]))

test('rows of the fleet\'s keys beyond what a living generator sent: the dead one\'s rows bounded, not counted',
  () => withCrateTestDouble({ ...slowBulks, fleetRows: twice }, async (double) => {
  const { runs: [steward, second], report } = await fleet(double, { runId: 'foreign-keys', count: 2,
    kills: { 2: { at: /the load starts at/, delayMs: 2500 } } })
  assert.equal(second.signal, 'SIGKILL')
  assert.equal(steward.code, 4, steward.stderr)
  assert.match(steward.stderr,
    joined(
      /warning: the table holds [\d,]+ rows of generator 1's keys since the run's start, more than the /,
      /[\d,]+ it sent and did not see fail: .* the dead generators' rows are bounded, not counted/))
  const m = report.json
  assert.ok(m.rows_in_doubt > 0, 'what the dead generator may have sent is in doubt')
  assertSomeMatch(m.partial_reasons,
    /^generator 2 .*judged dead after [\d.]+ s of silence.*up to \d+ more after its last report/)
  assert.equal(m.rows_ok + m.rows_failed + m.rows_in_doubt, m.rows_sent)
}))

// Another writer's rows in the dead generator's share only: the living ones' counts look right. Issue 57: 1,000 rows of
// its keys written again, or more rows of new keys than it could have stored (a million in its 4 s).
const inShareOf = (generator, add) => (counts) =>
  new Map([...counts].map(([g, rows]) => [g, g === generator ? add(rows) : rows]))
for (const [what, add, warning] of [
  ['its keys written twice', (rows) => [rows + 1000, rows],
    /the table holds [\d,]+ rows of generator 2's keys since the run's start and only [\d,]+ distinct keys: a key /],
  ['more rows than it could have stored', (rows) => rows + 1_000_000,
    /the table holds [\d,]+ rows of generator 2's keys since the run's start, more than the [\d,]+ it could have /]
]) {
  test(`another writer's rows in a dead generator's share (${what}): its rows bounded and in doubt, not counted`,
    () => withCrateTestDouble({ ...slowBulks, fleetRows: inShareOf(1, add) }, async (double) => {
    const { runs: [steward, second], report } = await fleet(double, { runId: 'foreign-dead-share', count: 2,
      kills: { 2: { at: /the load starts at/, delayMs: 2500 } } })
    assert.equal(second.signal, 'SIGKILL')
    assert.equal(steward.code, 4, steward.stderr)
    assert.match(steward.stderr, warning)
    assert.match(steward.stderr, /another writer of the same keys\?\); the dead generators' rows are bounded, not /)
    const m = report.json
    assert.ok(m.rows_in_doubt > 0, 'what the dead generator may have sent is in doubt')
    assert.ok(m.rows_ok <= double.keys.size, `${m.rows_ok} ok of ${double.keys.size} rows the fleet wrote`)
    assertSomeMatch(m.partial_reasons,
      /^generator 2 .*judged dead after [\d.]+ s of silence.*up to \d+ more after its last report/)
    assert.equal(m.rows_ok + m.rows_failed + m.rows_in_doubt, m.rows_sent)
  }))
}

test('a generator of a model without row keys killed mid-run: what it may have sent since its last report is in ' +
  'doubt, bounded', () => withCrateTestDouble({ ...slowBulks, trackKeys: false }, async (double) => {
  const { runs: [steward, second], report } = await fleet(double, { runId: 'one-dies-loadtest', count: 2,
    args: ['--duration', '4s', '--model', 'loadtest', '--payload_bytes', '16'],
    kills: { 2: { at: /the load starts at/, delayMs: 2500 } } })
  assert.equal(second.signal, 'SIGKILL')
  assert.equal(steward.code, 4, steward.stderr)
  const m = report.json
  assertSomeMatch(m.partial_reasons,
    /^generator 2 .*judged dead after [\d.]+ s of silence.*up to \d+ more after its last report/)
  assert.ok(m.rows_in_doubt > 0)
  assert.equal(m.rows_ok + m.rows_failed + m.rows_in_doubt, m.rows_sent)
  assert.ok(m.reconciliation.counted >= m.rows_ok && m.reconciliation.counted <= m.rows_ok + m.rows_in_doubt,
    JSON.stringify(m.reconciliation))
}))

test('the steward and generator 2 killed: generator 3 finishes the fleet alone', () => withCrateTestDouble(slowBulks,
  async (double) => {
  const { runs: [steward, second, third], report } = await fleet(double, {
    runId: 'two-die',
    kills: { 1: { at: /the load starts at/, delayMs: 3000 }, 2: { at: /the load starts at/, delayMs: 3000 } }
  })
  assert.equal(steward.signal, 'SIGKILL')
  assert.equal(second.signal, 'SIGKILL')
  assert.equal(third.code, 4, third.stderr)
  assert.deepEqual(third.json.fleet_finish, { finished_by: 3, dead: [1, 2] })
  assert.equal(report.code, 4)
  assertCountWithinAcknowledged(report.json, double)
}))

test('the steward killed while waiting at the barrier: the others stop at once, saying so, exit 3',
  () => withCrateTestDouble({}, async (double) => {
  // Generator 3 never comes, so the steward waits at the barrier; it is killed there.
  const env = double.env(HEARTBEAT_ENV)
  const args = [...COMMON, '--duration', '4s', '--run_id', 'barrier-dies', '--barrier_timeout', '1m']
  let second
  const steward = await runTool('appClusterIngest.js', [...args, '--generator', '1/3'], {
    env,
    detached: true,
    waitFor: /prepared the tables for the fleet/,
    whileRunning: (child) => {
      second = runTool('appClusterIngest.js', [...args, '--generator', '2/3'], { env })
      setTimeout(() => process.kill(-child.pid, 'SIGKILL'), 500)
    }
  })
  assert.equal(steward.signal, 'SIGKILL')
  const other = await second
  assert.equal(other.code, 3, other.stderr)
  assert.match(other.stderr,
    /error: the steward, generator 1 \([^)]+\), stopped before the start \(silent for [^)]+\): the fleet cannot start/)
  assert.ok(other.seconds < 30, `${other.seconds} s: not the whole --barrier_timeout of 1 minute`)
  assert.equal(double.bulkRowsReceived, 0)
}))

test('a generator killed after it is done changes nothing: its result is stored, the fleet finishes whole',
  () => withCrateTestDouble(slowBulks, async (double) => {
  const { runs: [steward, second, third], report } = await fleet(double, {
    runId: 'after-done',
    args: ['--max_rows', '2000'],
    kills: { 3: { at: /done; generator 1 finishes the fleet/, delayMs: 0 } }
  })
  assert.equal(steward.code, 0, steward.stderr)
  assert.equal(second.code, 0, second.stderr)
  assert.equal(third.signal, 'SIGKILL')
  assert.equal(report.code, 0, report.stderr)
  assert.equal(report.json.rows_ok, 6000)
  assert.equal(report.json.reconciliation.verdict, 'exact')
}))

test('the steward killed after it is done, while it waits for the others: generator 2 finishes, the fleet is whole',
  () => withCrateTestDouble(slowBulks, async (double) => {
  // Generator 3 is held (SIGSTOP) for 2.5 s from half a second before its load ends, so that the steward, done, waits
  // for it and is killed waiting. With --timeout 5s no request of generator 3 times out while it is held, and it
  // is not taken for dead (5.6 s of silence).
  const { runs: [steward, second, third], report } = await fleet(double, {
    runId: 'steward-after-done',
    common: COMMON.map((a) => (a === '1s' ? '5s' : a)),
    kills: {
      1: { at: /waiting for the other generators to finish/ },
      3: { at: /the load starts at/, delayMs: 5500, signal: 'SIGSTOP', resumeAfterMs: 2500 }
    }
  })
  assert.equal(steward.signal, 'SIGKILL')
  assert.equal(second.code, 0, second.stderr)
  assert.match(second.stderr, /generator 2\/3 takes over the fleet's finish \(generator 1 stopped heartbeating\)/)
  assert.deepEqual(second.json.fleet_finish, { finished_by: 2, dead: [] }, 'the steward\'s result was whole')
  assert.equal(third.code, 0, third.stderr)
  assert.equal(report.code, 0, report.stderr)
  assert.equal(report.json.reconciliation.verdict, 'exact')
  assert.equal(report.json.rows_ok, double.keys.size)
}))

test('a generator killed before it registers, or while it waits at the barrier: the fleet does not start, exit 3',
  () => withCrateTestDouble({}, async (double) => {
  const args = ['--duration', '4s', '--barrier_timeout', '5s']
  const before = await fleet(double, { runId: 'never-registers', args, kills: { 3: { at: /benchmark, run/ } } })
  // Generator 2 comes 2.5 s late: generator 3, killed while it waits, has been silent too long to count as ready.
  const atBarrier = await fleet(double, {
    runId: 'dies-at-barrier',
    args,
    kills: { 3: { at: /waiting for every generator to be ready/ } },
    delays: { 2: 2500 }
  })
  assert.equal(before.runs[2].signal, 'SIGKILL')
  assert.match(before.runs[0].stderr,
    joined(
      /error: the start barrier of run never-registers was not complete within /,
      /--barrier_timeout 5s: generator 3 \(never registered\) of 3 not ready/))
  assert.equal(atBarrier.runs[2].signal, 'SIGKILL')
  for (const { runs } of [before, atBarrier]) {
    assert.deepEqual(runs.slice(0, 2).map((r) => r.code), [3, 3], runs.map((r) => r.stderr).join('\n'))
    assert.match(runs[1].stderr,
      /error: the start barrier of run \S+ was not complete within --barrier_timeout 5s: generator 3 /)
  }
  assert.equal(double.bulkRowsReceived, 0, 'no generator sent a row')
}))

test('every generator dead: crate-bench report says the fleet was not reconciled, and exits 4',
  () => withCrateTestDouble(slowBulks, async (double) => {
  const kill = { at: /the load starts at/, delayMs: 1500 }
  const { runs, report } = await fleet(double, { runId: 'all-die', count: 2, kills: { 1: kill, 2: kill } })
  assert.deepEqual(runs.map((r) => r.signal), ['SIGKILL', 'SIGKILL'])
  assert.equal(report.code, 4, report.stderr)
  assert.match(report.stderr,
    joined(
      /run all-die was not reconciled and has no result: every generator of its fleet died before storing one /,
      /\(doc\.crate_bench_fleet: generator 1 on [^ ]+ running, \d+ acknowledged by its last heartbeat; generator 2 /))
  assert.equal(report.stdout, '')
}))

test('a generator paused past the death rule resumes: its result is kept apart as late, the verdict stays partial',
  () => withCrateTestDouble(slowBulks, async (double) => {
  const { runs: [steward, second, third], report } = await fleet(double, {
    runId: 'one-paused',
    kills: { 2: { at: /the load starts at/, delayMs: 1500, signal: 'SIGSTOP', resumeAfterMs: 6000 } }
  })
  assert.equal(steward.code, 4, steward.stderr)
  assert.deepEqual(steward.json.fleet_finish, { finished_by: 1, dead: [2] })
  assert.equal(third.code, 0, third.stderr)
  assert.notEqual(second.signal, 'SIGKILL')
  assert.equal(report.code, 4, report.stderr)
  const m = report.json
  assert.equal(m.partial, true)
  assert.deepEqual(m.late_results.map((r) => r.generator), [2], JSON.stringify(m.late_results))
  assertSomeMatch(m.partial_reasons, /generator 2 stored its result after the fleet was finished without it/)
  // Awake, the paused generator may still send what it had queued when it stopped: rows stored after the verdict
  // counted the table, in doubt in the fleet's figures (lib/results/late-results.js). The count stays within them.
  const counted = double.keys.size
  assert.ok(counted >= m.rows_ok && counted <= m.rows_ok + m.rows_in_doubt,
    `count(*) ${counted} within [${m.rows_ok}, ${m.rows_ok} + ${m.rows_in_doubt}]`)
  assert.ok(m.reconciliation.counted <= counted && m.reconciliation.counted >= counted - m.rows_in_doubt,
    `counted ${m.reconciliation.counted} at the verdict, ${counted} now`)
  assert.notEqual(m.reconciliation.verdict, 'above', 'no excess blamed on the cluster')
  assert.equal(m.rows_ok + m.rows_failed + m.rows_in_doubt, m.rows_sent)
}))

test('the finisher paused past the rule: the takeover finishes once; the steward, back, does not finish again',
  () => withCrateTestDouble(slowBulks, async (double) => {
  const { runs: [steward, second, third], report } = await fleet(double, {
    runId: 'steward-paused',
    // Held from the moment its own result is stored, before its finish, for longer than the death rule.
    kills: { 1: { at: /result stored in/, signal: 'SIGSTOP', resumeAfterMs: 6000 } }
  })
  const finish = second.json.fleet_finish
  assert.equal(finish.finished_by, 2, `${steward.stderr}\n---\n${second.stderr}`)
  // Back, it learns the finish was taken (or its own write, timed out across the pause, ends it): no second finish.
  assert.match(steward.stderr,
    joined(
      /generator 1\/3 was silent past the death rule, and generator 2 took the fleet's finish over|/,
      /generator 1\/3: the fleet was already finished by generator 2|/,
      /error: fleet table .*: no answer from .* within /))
  assert.doesNotMatch(steward.stderr, /fleet of run steward-paused: \d of 3 generators done/, 'no second finish')
  const reconciliations = double.statementsMatching(/ ON CONFLICT DO NOTHING$/).filter((s) => s.args[1] === -3)
  assert.equal(reconciliations.length, 1, 'one verdict stored')
  assert.equal(third.code, 0, third.stderr)
  assert.equal(report.json.fleet.finished_by, 2)
  // Paused before its 'done' reached the table, the steward was judged dead: its result, stored before, is late.
  if (finish.dead.includes(1)) {
    assert.equal(second.code, 4)
    assert.deepEqual(report.json.late_results.map((r) => r.generator), [1])
  }
  assertCountWithinAcknowledged(report.json, double)
}))

test('the same generator started twice: the twin is refused alone (exit 3), the fleet runs',
  () => withCrateTestDouble(slowBulks, async (double) => {
  const running = fleet(double, { runId: 'twin', count: 2, args: ['--duration', '4s'] })
  // Once generator 2 runs (its heartbeat says so), a second generator 2 of the same run starts.
  const isRunning = (s) => Array.isArray(s.args) && s.args[0] === 'running' && s.args[3] === 'twin' && s.args[4] === 1
  while (!double.statements.some(isRunning)) await new Promise((resolve) => setTimeout(resolve, 50))
  const twin = await runTool('appClusterIngest.js', [...COMMON, '--duration', '4s', '--run_id', 'twin', '--generator',
    '2/2'], { env: double.env(HEARTBEAT_ENV) })
  assert.equal(twin.code, 3, twin.stderr)
  assert.match(twin.stderr, /generator 2\/2 of run twin has already run \(running, on /)
  const { runs: [steward, second], report } = await running
  assert.equal(steward.code, 0, steward.stderr)
  assert.equal(second.code, 0, second.stderr)
  assert.equal(report.code, 0, report.stderr)
  assertCountWithinAcknowledged(report.json, double)
}))

test('a generator whose result cannot be stored (cut off from the results table) still prints it with --json, says ' +
  'so and exits 3; the other finishes the fleet, partial (exit 4)', () => {
  let refused = false
  return withCrateTestDouble({
    trackKeys: true,
    fault: ({ bulk, stmt }) => {
      if (bulk) return { delayMs: 5 }
      if (!refused && /^INSERT INTO "doc"\."crate_bench_results"/.test(stmt)) {
        refused = true
        return { status: 503, code: 5030, message: 'the results table\'s shards are unavailable' }
      }
    }
  }, async (double) => {
    // Heartbeats too rare to carry any counts in a 3-s run: the failed generator's row has only the final counts it
    // writes itself (a heartbeat's counts may be older than its last rows: the table then held rows nobody counted).
    const { runs, report } = await runFleet({ env: double.env({ CRATE_BENCH_FLEET_HEARTBEAT_MS: '30000' }),
      common: COMMON, runId: 'result-lost', count: 2, args: ['--duration', '3s'] })
    assert.equal(refused, true)
    const lost = runs.find((r) => r.code === 3)
    assert.ok(lost, runs.map((r) => `exit ${r.code}: ${r.stderr}`).join('\n'))
    assert.match(lost.stderr, /the run finished, but its result could not be stored in doc\.crate_bench_results: /)
    assert.ok(lost.json && lost.json.rows_ok > 0, 'what it measured, on its stdout')
    const other = runs.find((r) => r !== lost)
    assert.equal(other.code, 4, `the fleet is partial: ${other.stderr}`)
    const k = runs.indexOf(lost) + 1
    assert.match(other.stderr, new RegExp(`PARTIAL RESULT: generator ${k} \\([^)]*\\) died \\(failed, no result\\)`))
    assert.deepEqual(other.json.fleet_finish.failed, [k])
    assert.equal(report.code, 4, report.stderr)
    assertCountWithinAcknowledged(report.json, double)
  })
})
