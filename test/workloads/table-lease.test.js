'use strict'

// Which run of this tool uses a table, against the CrateDB test double (which answers the lease table as the fleet
// table: one winner of ON CONFLICT DO NOTHING, real-time reads by key, optimistic updates on _seq_no).

const test = require('node:test')
const assert = require('node:assert/strict')
const { withCrateTestDouble, clientTo } = require('../helpers/crate-test-double')
const { parseTableName } = require('../../lib/data/schema')
const { takeLease, inUseMessage, holderOfRun, holderForChildren, LeaseKeeper, TTL_MS, HOLDER_ENV, RECLAIM_WAIT_MS } =
  require('../../lib/workloads/table-lease')

const TABLE = parseTableName('doc.cpu', 'table')
const grid = { host: 'vm', pid: 4242, what: 'crate-bench grid' }
const run = { host: 'vm', pid: 5151, what: 'run r2' }

async function withClient (body) {
  await withCrateTestDouble({}, async (double) => {
    const client = clientTo(double.port)
    try {
      await body(client, double)
    } finally {
      client.close()
    }
  })
}

const take = (client, holder, extra = {}) =>
  takeLease({ client, table: TABLE, holder, hostname: 'vm', alive: () => true, ...extra })

test('a table\'s lease: one holder at a time; the holder takes it again; another is told who has it', () =>
  withClient(async (client) => {
  assert.deepEqual(await take(client, grid), { taken: true })
  assert.deepEqual(await take(client, grid), { taken: true }, 'its own lease, renewed')
  const refused = await take(client, run)
  assert.deepEqual(refused.heldBy, grid)
  assert.ok(refused.renewedAgoMs >= 0 && refused.renewedAgoMs < TTL_MS, String(refused.renewedAgoMs))
  assert.match(inUseMessage(TABLE, refused), new RegExp('^table doc\\.cpu is in use by crate-bench grid of this ' +
    'tool \\(pid 4242 on vm, its lease renewed \\d+ s ago\\): it is kept; wait for that run to end \\(a lease ' +
    'nobody renews lapses after 60 s\\), give another --table, or --no-drop_table to add rows beside it$'))
}))

test('a lease lapses when its holder of this machine is gone, or when nobody renewed it for its TTL', () =>
  withClient(async (client, double) => {
  await take(client, grid)
  assert.deepEqual(await take(client, run, { alive: (pid) => pid !== grid.pid }), { taken: true }, 'holder gone')
  const elsewhere = { ...grid, host: 'other-machine' }
  await take(client, { ...run, pid: 1 }, { alive: () => false }).then((r) => assert.ok(r.taken))
  const fresh = parseTableName('doc.other', 'table')
  assert.ok((await takeLease({ client, table: fresh, holder: elsewhere, hostname: 'vm', alive: () => false })).taken)
  const held = await takeLease({ client, table: fresh, holder: run, hostname: 'vm', alive: () => false })
  assert.deepEqual(held.heldBy, elsewhere, 'a holder of another machine cannot be judged gone: its TTL rules')
  double.script.serverClockOffsetMs = TTL_MS + 1000
  assert.deepEqual(await takeLease({ client, table: fresh, holder: run, hostname: 'vm', alive: () => false }),
    { taken: true }, 'not renewed for its TTL')
}))

test('a run releases its lease at its end; a study\'s runs leave theirs to the study\'s next run', () =>
  withClient(async (client) => {
  const timers = { setInterval: () => ({}), clearInterval: () => {} }
  const own = new LeaseKeeper({ client, holder: { ...run, inherited: false }, log: () => {}, timers })
  await take(client, run)
  own.keep(TABLE)
  await own.stop()
  assert.deepEqual(await take(client, grid), { taken: true }, 'released')
  const child = new LeaseKeeper({ client, holder: { ...grid, inherited: true }, log: () => {}, timers })
  child.keep(TABLE)
  await child.stop()
  assert.deepEqual((await take(client, run)).heldBy, grid, 'the study still holds it')
}))

test('a keeper renews its leases on its timer; a renewal that fails is one warning', async () => {
  let tick = null
  const timers = { setInterval: (fn) => { tick = fn; return {} }, clearInterval: () => { tick = null } }
  const statements = []
  let fail = false
  const client = { sql: async (stmt, args) => {
    statements.push([stmt, args])
    if (fail) throw new Error('connection refused')
    return { rowcount: 1 }
  } }
  const lines = []
  const keeper = new LeaseKeeper({ client, holder: { ...run, inherited: false }, log: (l) => lines.push(l), timers })
  keeper.keep(TABLE)
  await tick()
  assert.match(statements[0][0], /^UPDATE "doc"\."crate_bench_leases" SET "at" = CURRENT_TIMESTAMP WHERE /)
  assert.deepEqual(statements[0][1], ['doc.cpu', JSON.stringify({ host: 'vm', pid: 5151, what: 'run r2' })])
  fail = true
  await tick()
  await tick()
  assert.deepEqual(lines, ['warning: could not renew the lease of doc.cpu: connection refused'])
  await keeper.stop()
  assert.equal(tick, null, 'no renewal after the end')
})

test('a forged lease renewed in the future, or of a TTL beyond the tool\'s, is cut back to the TTL from now: it ' +
  'lapses then, as the message says', () => withClient(async (client, double) => {
  await take(client, grid)
  const forger = { host: 'elsewhere', pid: 1, what: 'crate-bench grid' }
  const other = parseTableName('doc.forged', 'table')
  await client.sql('INSERT INTO "doc"."crate_bench_leases" ("table_name", "holder", "at", "ttl_ms") ' +
    'VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING', [other.display, JSON.stringify(forger),
    Date.now() + 10 * 365 * 86_400_000, 1e15])
  const held = await takeLease({ client, table: other, holder: run, hostname: 'vm', alive: () => true })
  assert.deepEqual([held.heldBy, held.renewedAgoMs], [forger, 0])
  assert.match(inUseMessage(other, held), /a lease nobody renews lapses after 60 s/)
  double.script.serverClockOffsetMs = TTL_MS + 1000
  assert.deepEqual(await takeLease({ client, table: other, holder: run, hostname: 'vm', alive: () => true }),
    { taken: true }, 'lapsed 60 s after it was cut back, its forged time and TTL notwithstanding')
}))

test('a leases table dropped under running runs: each claims its lease again at its renewal, or says it lost it; a ' +
  'run that finds the table just made while its table exists waits a renewal before deciding', () =>
  withClient(async (client, double) => {
    double.execute('CREATE TABLE doc.cpu (ts TIMESTAMP) CLUSTERED INTO 1 SHARDS WITH (number_of_replicas = \'0\')', [])
    let tick = null
    const timers = { setInterval: (fn) => { tick = fn; return {} }, clearInterval: () => { tick = null } }
    const lines = []
    const waited = []
    const wait = async (ms) => { waited.push(ms) }
    assert.deepEqual(await take(client, grid, { wait, log: (l) => lines.push(l) }), { taken: true })
    assert.deepEqual(waited, [RECLAIM_WAIT_MS], 'the first leases table made beside an existing doc.cpu: waited')
    assert.match(lines[0],
      /^the leases table doc\.crate_bench_leases was just made while doc\.cpu exists: waiting 20 s /)
    const keeper = new LeaseKeeper({ client, holder: { ...grid, inherited: false }, log: (l) => lines.push(l), timers })
    keeper.keep(TABLE)
    await client.sql('DROP TABLE "doc"."crate_bench_leases"')
    await tick()
    assert.equal(lines.at(-1), 'note: the lease of doc.cpu was gone (its leases table dropped, or its row deleted): ' +
      'claimed again')
    assert.deepEqual((await take(client, run, { wait })).heldBy, grid, 'held again: the next run is refused')
    assert.equal(waited.length, 1, 'the leases table existed: no wait')
    // Dropped again, and another run claims the lease before this one renews: lost, said, and kept for the result.
    await client.sql('DROP TABLE "doc"."crate_bench_leases"')
    assert.deepEqual(await take(client, run, { wait }), { taken: true })
    await tick()
    assert.match(lines.at(-1), /^warning: this run lost the lease of doc\.cpu to run r2 \(pid 5151 on vm\): /)
    assert.deepEqual(keeper.lost.map((l) => [l.table, l.by]), [['doc.cpu', 'run r2 (pid 5151 on vm)']])
    await keeper.stop()
  }))

test('the holder of a run: its study\'s (from the environment), else itself; a malformed holder is ignored', () => {
  const env = { [HOLDER_ENV]: JSON.stringify(grid) }
  assert.deepEqual(holderOfRun('r1', env), { ...grid, inherited: true })
  assert.equal(holderForChildren('crate-bench study', env), env[HOLDER_ENV], 'a grid inside a study: the study\'s')
  const own = holderOfRun('r1', { [HOLDER_ENV]: '{"host": "vm", "pid": -1, "what": "x"}' })
  assert.deepEqual([own.pid, own.what, own.inherited], [process.pid, 'run r1', false])
  assert.deepEqual(JSON.parse(holderForChildren('crate-bench grid', {})).what, 'crate-bench grid')
})
