'use strict'

// The fleet's coordination against the CrateDB test double, which answers the fleet table as captures 65–74 show
// (a search sees only refreshed rows, a primary-key read sees every write, ON CONFLICT DO NOTHING has one winner).
// Several coordinators in one process are several generators; the clock is injected where time matters.

const test = require('node:test')
const assert = require('node:assert/strict')
const { withCrateTestDouble } = require('../helpers/crate-test-double')
const { CrateClient } = require('../../lib/cluster/http-client')
const { parseHosts } = require('../../lib/cluster/connection')
const { FleetCoordinator } = require('../../lib/fleet/coordinator')
const { comparedOptions, differences } = require('../../lib/fleet/compared-options')
const { measureClockOffset } = require('../../lib/fleet/clock-offset')
const { parseTableName } = require('../../lib/data/schema')
const { joined, assertSomeMatch } = require('../helpers/patterns')

const TABLE = parseTableName('doc.fleet_test', 'fleet_table')

function generators (double, count, extra = {}) {
  return Array.from({ length: count }, (_, index) => new FleetCoordinator({
    client: new CrateClient({ hosts: parseHosts(`127.0.0.1:${double.port}`, double.port, false), user: 'crate',
      password: '', timeoutMs: 5000 }),
    table: TABLE,
    runId: 'r1',
    index,
    count,
    host: `gen-${index}`,
    toolVersion: '1.0.0',
    barrierTimeoutMs: 5000,
    pollMs: 10,
    ...extra
  }))
}

const closeAll = (gens) => gens.forEach((g) => g.client.close())

/** Every generator registered, one after another, and past the preparation (the first one prepares). */
async function joinAndPrepare (gens) {
  for (const g of gens) await g.join({ compared: {} })
  for (const g of gens) await g.prepareOnce(async () => ({}), { seed: 1, seedGiven: true })
}


test('three generators: one prepares, the others take what it prepared; all get one start on the server clock',
  () => withCrateTestDouble({}, async (double) => {
  const gens = generators(double, 3)
  try {
    await Promise.all(gens.map((g) => g.join({ compared: { batch_size: 1000 } })))
    let preparations = 0
    const prepare = async () => { preparations++; return { startTime: 'T' } }
    const outcomes = await Promise.all(gens.map((g) => g.prepareOnce(prepare, { seed: 7, seedGiven: true })))
    assert.equal(preparations, 1, 'exactly one generator prepares')
    assert.equal(outcomes.filter((o) => o.steward).length, 1)
    assert.deepEqual(outcomes.map((o) => o.prepared), [{ startTime: 'T' }, { startTime: 'T' }, { startTime: 'T' }])
    const starts = await Promise.all(gens.map((g) => g.barrier({ leadMs: 100 })))
    assert.equal(new Set(starts.map((s) => s.serverStartMs)).size, 1, 'one start instant')
    const claims = double.statementsMatching(/ ON CONFLICT DO NOTHING$/).map((s) => s.args[1])
    assert.deepEqual(claims.filter((generator) => generator === -1).length, 3, 'each tried to claim the preparation')
    await Promise.all(gens.map((g, i) => g.done({ counts: { sent: 10 * i, ok: 10 * i, failed: 0 } })))
    const steward = gens[outcomes.findIndex((o) => o.steward)]
    const all = await steward.awaitOthers({ deadAfterMs: 60_000 })
    assert.deepEqual(all.map((g) => [g.generator, g.state, g.dead]), [[0, 'done', false], [1, 'done', false], [2,
      'done', false]])
  } finally {
    closeAll(gens)
  }
}))

test('a generator whose options differ from the steward\'s is refused, naming each difference; a seed left to chance ' +
  'is the fleet\'s', () => withCrateTestDouble({}, async (double) => {
  const [steward, other, third] = generators(double, 3)
  try {
    await steward.join({ compared: { batch_size: 1000, model: 'cpu', seed: 5 } })
    await other.join({ compared: { batch_size: 5000, model: 'cpu', seed: 6 } })
    await third.join({ compared: { batch_size: 1000, model: 'cpu' } })
    await steward.prepareOnce(async () => ({}), { seed: 5, seedGiven: true })
    await assert.rejects(other.prepareOnce(async () => ({}), { seed: 6, seedGiven: true }), (error) => {
      assert.equal(error.exitCode, 2)
      assert.match(error.message,
        joined(
          /generator 2\/3 does not run the fleet's options \(those of generator 1 on /,
          /gen-0\): batch_size: 5000 here, 1000 there; seed: 6 here, 5 there/))
      return true
    })
    const adopted = await third.prepareOnce(async () => ({}), { seed: 99, seedGiven: false })
    assert.equal(adopted.seed, 5)
  } finally {
    closeAll([steward, other, third])
  }
}))

test('a start barrier not complete in --barrier_timeout fails, naming the generators missing and why',
  () => withCrateTestDouble({}, async (double) => {
  let now = 1_000_000
  const clock = () => now
  const sleep = async (ms) => { now += ms }
  const gens = generators(double, 3, { clock, sleep, barrierTimeoutMs: 60_000, pollMs: 1000 })
  try {
    await gens[0].join({ compared: {} })
    await gens[1].join({ compared: {} })
    await gens[0].prepareOnce(async () => ({}), { seed: 1, seedGiven: true })
    await assert.rejects(gens[0].barrier(), (error) => {
      assert.equal(error.exitCode, 3)
      assert.match(error.message,
        joined(
          /^the start barrier of run r1 was not complete within --barrier_timeout 1m: generators 2 /,
          /\(registered, silent for (59|60)(\.\d+)?s on gen-1\), 3 \(never registered\) of 3 not ready$/))
      return true
    })
    // The silence is measured on the server's clock (the row's write time), so real milliseconds pass in it too.
    assert.ok(now >= 1_060_000, 'it waited the whole timeout, on the injected clock')
  } finally {
    closeAll(gens)
  }
}))

test('the waiting ends when the steward cannot prepare: its error reaches every generator',
  () => withCrateTestDouble({}, async (double) => {
  const gens = generators(double, 2)
  try {
    await Promise.all(gens.map((g) => g.join({ compared: {} })))
    const [first, second] = await Promise.allSettled(gens.map((g) => g.prepareOnce(async () => {
      throw new Error('cannot create table doc.cpu: permission denied')
    }, { seed: 1, seedGiven: true })))
    const failures = [first, second].map((r) => r.reason.message)
    assert.ok(failures.includes('cannot create table doc.cpu: permission denied'))
    assertSomeMatch(failures,
      /^generator \d \(gen-\d\) could not prepare the tables: cannot create table doc\.cpu: permission denied$/)
  } finally {
    closeAll(gens)
  }
}))

test('a generator silent for longer than the limit is dead; one that never registered too',
  () => withCrateTestDouble({}, async (double) => {
  let now = 5_000_000
  const gens = generators(double, 3, { clock: () => now, sleep: async (ms) => { now += ms }, pollMs: 1000 })
  try {
    await gens[0].join({ compared: {} })
    await gens[1].join({ compared: {} })
    await gens[1].beat({ sent: 100, ok: 90, failed: 0 })
    await gens[0].done({ counts: { sent: 10, ok: 10, failed: 0 } })
    const all = await gens[0].awaitOthers({ deadAfterMs: 30_000 })
    assert.deepEqual(all.map((g) => [g.generator, g.state, g.dead]), [[0, 'done', false], [1, 'running', true], [2,
      'missing', true]])
    assert.deepEqual(all[1].detail.counts, { sent: 100, ok: 90, failed: 0 }, 'its last counts are known')
  } finally {
    closeAll(gens)
  }
}))

/** `fn(g, updates)` for a generator joined to a double whose first UPDATE takes 300 ms before it is applied. */
function withSlowFirstUpdate (fn) {
  let updates = 0
  const fault = ({ stmt }) => (/^UPDATE/.test(stmt) && ++updates === 1 ? { delayMs: 300 } : undefined)
  return withCrateTestDouble({ fault }, async (double) => {
    const [g] = generators(double, 1)
    try {
      await g.join({ compared: {} })
      await fn(g, () => updates)
    } finally {
      g.client.close()
    }
  })
}

test('a count still on its way when the generator is done does not overwrite done: its own writes go in order',
  () => withSlowFirstUpdate(async (g) => {
    // The count is the slow UPDATE; 'done' is sent right after it.
    const counting = g.beat({ sent: 5, ok: 5, failed: 0 })
    await g.done({ counts: { sent: 10, ok: 10, failed: 0 } })
    await counting
    const row = await g.readRow(0)
    assert.equal(row.state, 'done')
    assert.deepEqual(row.detail.counts, { sent: 10, ok: 10, failed: 0 })
  }))

test('a failed generator\'s row carries the final counts it knows, and no heartbeat after it makes it running again',
  () => withSlowFirstUpdate(async (g) => {
    await g.beat({ sent: 5, ok: 5, failed: 0 })
    await g.failed('error: the result could not be stored', { sent: 10, ok: 9, failed: 1 })
    await g.beat({ sent: 11, ok: 11, failed: 0 })
    const row = await g.readRow(0)
    assert.equal(row.state, 'failed')
    assert.deepEqual(row.detail.counts, { sent: 10, ok: 9, failed: 1 })
    assert.equal(row.detail.error, 'error: the result could not be stored')
  }))

test('a heartbeat while one is still on its way is skipped, never queued behind it: no write lands far later than ' +
  'the counts it carries', () => withSlowFirstUpdate(async (g, updates) => {
  const slow = g.beat({ sent: 5, ok: 5, failed: 0 })
  await g.beat({ sent: 6, ok: 6, failed: 0 })
  await g.beat({ sent: 7, ok: 7, failed: 0 })
  await slow
  assert.equal(updates(), 1, 'the beats during the slow one sent nothing')
  assert.deepEqual((await g.readRow(0)).detail.counts, { sent: 5, ok: 5, failed: 0 })
  await g.beat({ sent: 8, ok: 8, failed: 0 })
  assert.deepEqual((await g.readRow(0)).detail.counts, { sent: 8, ok: 8, failed: 0 }, 'the next one goes')
}))

test('the clock offset against CURRENT_TIMESTAMP: the server 5 s ahead is +5 s here, within half a round trip',
  () => withCrateTestDouble({ serverClockOffsetMs: 5000 }, async (double) => {
  const [g] = generators(double, 1)
  try {
    const { offsetMs, rttMs } = await measureClockOffset(g.client)
    assert.ok(Math.abs(offsetMs - 5000) <= rttMs / 2 + 1, `offset ${offsetMs} ms, round trip ${rttMs} ms`)
  } finally {
    g.client.close()
  }
}))

test('compared options leave out what is each generator\'s own; differences read as words', () => {
  const described = { hosts: ['a'], generator: { index: 1, count: 2 }, batch_size: 100, model: 'cpu', seed: 3,
    report: 'x.html', run_id: 'r' }
  assert.deepEqual(comparedOptions(described), { batch_size: 100, model: 'cpu', seed: 3 })
  assert.deepEqual(comparedOptions(described, { seedGiven: false }), { batch_size: 100, model: 'cpu' })
  assert.deepEqual(differences({ a: 1, b: 'x' }, { a: 2, c: true }), ['a: 1 here, 2 there',
    'b: "x" here, (not set) there', 'c: (not set) here, true there'])
})

/** A client that counts the REFRESH statements its generator sends. */
function countingRefreshes (g) {
  g.refreshes = 0
  const sql = g.client.sql.bind(g.client)
  g.client.sql = (stmt, args) => {
    if (/^REFRESH TABLE/.test(stmt)) g.refreshes++
    return sql(stmt, args)
  }
  return g
}

test('the steward dead after the load: the lowest living generator takes the finish over, the others wait for it',
  () => withCrateTestDouble({}, async (double) => {
  let now = 7_000_000
  const clock = () => now
  const sleep = async (ms) => { now += ms; await new Promise(setImmediate) }
  const gens = generators(double, 3, { clock, sleep, pollMs: 1000 }).map(countingRefreshes)
  try {
    await joinAndPrepare(gens)
    await gens[0].beat({ sent: 50, ok: 40, failed: 0 })
    now += 30_001
    await gens[1].done({ counts: { sent: 100, ok: 100, failed: 0 } })
    await gens[2].done({ counts: { sent: 100, ok: 100, failed: 0 } })
    const handOvers = []
    gens[2].on('finisher', (e) => handOvers.push(e))
    const taken = await gens[1].awaitFinish({ deadAfterMs: 30_000 })
    assert.deepEqual(taken, { takeOver: true, deadFinishers: [0] })
    const waiting = gens[2].awaitFinish({ deadAfterMs: 30_000 })
    const all = await gens[1].awaitOthers({ deadAfterMs: 30_000 })
    assert.deepEqual(all.map((g) => [g.generator, g.state, g.dead]), [[0, 'running', true], [1, 'done', false], [2,
      'done', false]])
    assert.ok(all[0].silent_ms > 30_000, 'how long the death took to notice')
    await gens[1].storeReconciliation({ finished_by: 1 })
    assert.deepEqual(await waiting, { finishedBy: 1 })
    assert.deepEqual(handOvers, [{ dead: 0, next: 1 }])
    assert.equal(gens[2].refreshes, 0, 'a generator that does not finish reads rows by their whole key only')
    const takeovers = double.statementsMatching(/ ON CONFLICT DO NOTHING$/).filter((s) => s.args[1] === -100)
    assert.equal(takeovers.length, 1, 'one claim of the finish, by the generator that took it over')
  } finally {
    closeAll(gens)
  }
}))

test('two generators claiming the finish of a dead steward: one wins, the other waits for it',
  () => withCrateTestDouble({}, async (double) => {
  let now = 8_000_000
  const sleep = async (ms) => { now += ms; await new Promise(setImmediate) }
  // Polls of 100 ms: the winner stays alive, on the injected clock, for the whole wait of the loser.
  const gens = generators(double, 3, { clock: () => now, sleep, pollMs: 100 })
  try {
    await joinAndPrepare(gens)
    now += 30_001
    // Generator 3 saw generator 2 silent a moment ago too: both take themselves for the lowest living.
    await gens[2].done({ counts: { sent: 1, ok: 1, failed: 0 } })
    const wonByThree = await gens[2].awaitFinish({ deadAfterMs: 30_000 })
    assert.equal(wonByThree.takeOver, true)
    await gens[1].done({ counts: { sent: 1, ok: 1, failed: 0 } })
    const second = gens[1].awaitFinish({ deadAfterMs: 30_000 })
    await gens[2].storeReconciliation({ finished_by: 2 })
    assert.deepEqual(await second, { finishedBy: 2 }, 'the claim has one winner; the loser waits for it')
  } finally {
    closeAll(gens)
  }
}))

test('a generator that went silent while it waited at the barrier is not ready; a restarted pod takes its place',
  () => withCrateTestDouble({}, async (double) => {
  let now = 9_000_000
  const sleep = async (ms) => { now += ms; await new Promise(setImmediate) }
  const [steward, evicted] = generators(double, 2, { clock: () => now, sleep, pollMs: 1000, barrierTimeoutMs: 20_000 })
  const [, restarted] = generators(double, 2, { clock: () => now, sleep, pollMs: 1000 })
  try {
    await steward.join({ compared: {} })
    await evicted.join({ compared: {} })
    await steward.prepareOnce(async () => ({}), { seed: 1, seedGiven: true })
    await evicted.prepareOnce(async () => ({}), { seed: 1, seedGiven: true })
    await evicted.writeOwnRow('ready', evicted.detail)
    now += 10_000
    await assert.rejects(steward.barrier({ deadAfterMs: 5000 }),
      /generator 2 \(ready, silent for \d+(\.\d+)?s on gen-1\) of 2 not ready/)
    assert.equal((await steward.readRow(-2)).state, 'aborted', 'the start row says why')
  } finally {
    closeAll([steward, evicted])
  }
  try {
    // Another run, on the real clock: the pod comes back before the fleet started, and the fleet starts with it.
    const [s2, e2] = generators(double, 2, { pollMs: 10, runId: 'r2' })
    const [, back] = generators(double, 2, { pollMs: 10, runId: 'r2' })
    await s2.join({ compared: {} })
    await e2.join({ compared: {} })
    await s2.prepareOnce(async () => ({}), { seed: 1, seedGiven: true })
    await e2.prepareOnce(async () => ({}), { seed: 1, seedGiven: true })
    await e2.writeOwnRow('ready', e2.detail)
    await new Promise((resolve) => setTimeout(resolve, 100))
    await back.join({ compared: {}, deadAfterMs: 50 })
    await back.prepareOnce(async () => ({}), { seed: 1, seedGiven: true })
    const starts = await Promise.all([
      s2.barrier({ deadAfterMs: 5000, leadMs: 100 }),
      back.barrier({ deadAfterMs: 5000, leadMs: 100 })
    ])
    assert.equal(starts[0].serverStartMs, starts[1].serverStartMs)
    closeAll([s2, e2, back])
  } finally {
    restarted.client.close()
  }
}))

test('a generator still heartbeating at the barrier cannot be replaced by a second pod of the same index',
  () => withCrateTestDouble({}, async (double) => {
  const [steward, first] = generators(double, 2)
  const [, twin] = generators(double, 2)
  try {
    await steward.join({ compared: {} })
    await first.join({ compared: {} })
    await first.writeOwnRow('ready', { ...first.detail, reported_at_server_ms: Date.now() })
    await assert.rejects(twin.join({ compared: {}, deadAfterMs: 60_000 }),
      /generator 2\/2 of run r1 has already run \(ready, on gen-1\)/)
    // Refused, the twin has no row of its own: its failure is never written over the original's.
    await twin.failed('refused')
    assert.equal((await first.readRow(1)).state, 'ready', 'the original is untouched')
  } finally {
    closeAll([steward, first, twin])
  }
}))

test('twelve generators arriving one after another: only the steward refreshes the fleet table, ' +
  'a few times per arrival', () => withCrateTestDouble({}, async (double) => {
  // Arrivals every 2 polls of the steward, as pods a second apart against its 500 ms poll are.
  const gens = generators(double, 12, { pollMs: 20, barrierTimeoutMs: 30_000 }).map(countingRefreshes)
  try {
    const arrivals = gens.map(async (g, i) => {
      await new Promise((resolve) => setTimeout(resolve, i * 40))
      await g.join({ compared: {} })
      await g.prepareOnce(async () => ({}), { seed: 1, seedGiven: true })
      return g.barrier({ leadMs: 50, deadAfterMs: 30_000 })
    })
    const starts = await Promise.all(arrivals)
    assert.equal(new Set(starts.map((s) => s.serverStartMs)).size, 1)
    await Promise.all(gens.map((g) => g.done({ counts: { sent: 1, ok: 1, failed: 0 } })))
    const waiting = gens.slice(1).map((g) => g.awaitFinish({ deadAfterMs: 30_000 }))
    await gens[0].awaitOthers({ deadAfterMs: 30_000 })
    await gens[0].storeReconciliation({ finished_by: 0 })
    await Promise.all(waiting)
    assert.deepEqual(gens.slice(1).map((g) => g.refreshes), Array(11).fill(0), 'the others read rows by key only')
    const total = double.statementsMatching(/^REFRESH TABLE "doc"\."fleet_test"$/).length
    assert.ok(total <= 40, `${total} REFRESH statements on the fleet table`)
  } finally {
    closeAll(gens)
  }
}))

test('a finisher paused past the death rule comes back: the takeover stands, it does not finish a second time',
  () => withCrateTestDouble({}, async (double) => {
  let now = 10_000_000
  const sleep = async (ms) => { now += ms; await new Promise(setImmediate) }
  const gens = generators(double, 2, { clock: () => now, sleep, pollMs: 1000 })
  try {
    await joinAndPrepare(gens)
    await gens[0].beat({ sent: 10, ok: 10, failed: 0 })
    // The steward is paused (SIGSTOP) past the rule; generator 2 takes its finish over and stores the verdict.
    now += 30_001
    await gens[1].done({ counts: { sent: 10, ok: 10, failed: 0 } })
    assert.equal((await gens[1].awaitFinish({ deadAfterMs: 30_000 })).takeOver, true)
    assert.equal(await gens[1].storeReconciliation({ finished_by: 1, dead: [0] }), true)
    // The steward resumes: before finishing it learns that generator 2 took its finish.
    assert.equal(await gens[0].finishTakenBy(), 1)
    assert.equal(await gens[1].finishTakenBy(), null, 'generator 2 finishes its own')
    // A finisher that reaches the store anyway (the narrow race): the first verdict stays.
    assert.equal(await gens[0].storeReconciliation({ finished_by: 0, dead: [] }), 1)
    assert.deepEqual((await gens[0].readRow(-3)).detail, { finished_by: 1, dead: [0] })
  } finally {
    closeAll(gens)
  }
}))
