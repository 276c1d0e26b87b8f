'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { checkTargetTables, leaveAsFound, othersHoldLeases } = require('../../lib/sweep/target-tables')
const { parseTableName } = require('../../lib/data/schema')

/**
 * A cluster's tables as a fake `sql` answers about them: `tables` a Set of names (doc.cpu), `registry` the tool's
 * record of what it made (name → row count), `counts` each table's rows, `leases` rows of [holder, at, ttl].
 */
function fakeCluster ({ tables = [], registry = {}, counts = {}, leases = [], now = 1_000_000 } = {}) {
  const state = { tables: new Set(tables), registry: new Map(Object.entries(registry)), counts, leases, said: [] }
  state.sql = async (stmt, args = []) => {
    state.said.push(stmt)
    if (/FROM information_schema\.tables/.test(stmt)) {
      return { rows: state.tables.has(`${args[0]}.${args[1]}`) ? [[4, '0-1']] : [] }
    }
    if (/^CREATE TABLE IF NOT EXISTS "doc"\."crate_bench_tables"/.test(stmt)) {
      state.tables.add('doc.crate_bench_tables')
      return { rowcount: 1 }
    }
    if (/^SELECT table_name, run_id, row_count FROM "doc"\."crate_bench_tables"/.test(stmt)) {
      return { rows: state.registry.has(args[0]) ? [[args[0], 'run-1', state.registry.get(args[0])]] : [] }
    }
    if (/^REFRESH TABLE/.test(stmt)) return { rowcount: 1 }
    let m
    if ((m = /^SELECT count\(\*\) FROM "(\w+)"\."(\w+)"$/.exec(stmt))) {
      return { rows: [[counts[`${m[1]}.${m[2]}`] ?? 0]] }
    }
    if ((m = /^DROP TABLE IF EXISTS "(\w+)"\."(\w+)"$/.exec(stmt))) {
      state.tables.delete(`${m[1]}.${m[2]}`)
      return { rowcount: 1 }
    }
    if (/^DELETE FROM "doc"\."crate_bench_tables"/.test(stmt)) {
      state.registry.delete(args[0])
      return { rowcount: 1 }
    }
    if (/^SELECT "holder", "at", "ttl_ms", CURRENT_TIMESTAMP FROM/.test(stmt)) {
      return { rows: state.leases.map(([holder, at, ttl]) => [holder, at, ttl, now]) }
    }
    throw new Error(`unexpected: ${stmt}`)
  }
  return state
}

const cpu = { ...parseTableName('doc.cpu'), dropTable: 'auto' }

test('before any load: a table of the user\'s is refused, named; one the tool made and nobody wrote since is the ' +
  'study\'s; nothing is dropped', async () => {
  const user = fakeCluster({ tables: ['doc.cpu'] })
  const refused = await checkTargetTables([cpu], user.sql)
  assert.match(refused.refused, /^table doc\.cpu exists and this tool did not make it: it is kept; /)
  assert.deepEqual(refused.bookkeeping.map((t) => t.display), ['doc.crate_bench_tables', 'doc.crate_bench_leases'])
  const tools = fakeCluster({ tables: ['doc.cpu', 'doc.crate_bench_tables', 'doc.crate_bench_leases'],
    registry: { 'doc.cpu': 10 }, counts: { 'doc.cpu': 10 } })
  const plan = await checkTargetTables([cpu], tools.sql)
  assert.deepEqual([plan.refused, plan.made.map((t) => t.display), plan.bookkeeping], [null, ['doc.cpu'], []])
  assert.equal(tools.said.some((s) => /^DROP/.test(s)), false, 'a check drops nothing')
  // The user's table and --no-drop_table: its rows are added to, and it stays theirs.
  const adding = await checkTargetTables([{ ...cpu, dropTable: false }], fakeCluster({ tables: ['doc.cpu'] }).sql)
  assert.deepEqual([adding.refused, adding.made], [null, []])
})

test('at the end: what the study made is dropped and forgotten, the bookkeeping too unless another run holds a ' +
  'lease; keep_tables names each with its DROP', async () => {
  const cluster = fakeCluster({ tables: ['doc.cpu', 'doc.crate_bench_tables', 'doc.crate_bench_leases'],
    registry: { 'doc.cpu': 10 } })
  const tools = ['doc.crate_bench_tables', 'doc.crate_bench_leases'].map((n) => parseTableName(n))
  const plan = { made: [cpu], bookkeeping: tools }
  const kept = await leaveAsFound(plan, cluster.sql, { keep: true, where: 'own' })
  assert.deepEqual(kept, ['kept in own (keep_tables: true): doc.cpu (DROP TABLE "doc"."cpu";), ' +
    'doc.crate_bench_tables (DROP TABLE "doc"."crate_bench_tables";), doc.crate_bench_leases (DROP TABLE ' +
    '"doc"."crate_bench_leases";)'])
  // Another run's live lease keeps the bookkeeping (its own lease, this process's, does not).
  cluster.leases.push([JSON.stringify({ host: 'other', pid: 7, what: 'run' }), 999_000, 60_000])
  cluster.leases.push([JSON.stringify({ host: 'me', pid: 1, what: 'study' }), 999_000, 60_000])
  const lines = await leaveAsFound(plan, cluster.sql, { where: 'own', hostname: 'me', pid: 1 })
  assert.deepEqual(lines, ['dropped in own what this study made there: doc.cpu', 'kept in own: ' +
    'doc.crate_bench_tables, doc.crate_bench_leases (another run holds a lease on a table of this tool there)'])
  assert.equal(cluster.registry.has('doc.cpu'), false, 'forgotten in the registry')
  cluster.leases.length = 1
  cluster.leases[0][1] = 900_000 // lapsed: renewed 100 s ago, a TTL of 60 s
  assert.equal(await othersHoldLeases(cluster.sql, { hostname: 'me', pid: 1 }), false)
  assert.deepEqual(await leaveAsFound(plan, cluster.sql, { where: 'own', hostname: 'me', pid: 1 }),
    ['dropped in own what this study made there: doc.crate_bench_tables, doc.crate_bench_leases'])
  assert.deepEqual([...cluster.tables], [])
  assert.deepEqual(await leaveAsFound(plan, cluster.sql, { where: 'own' }), [], 'nothing left to say')
})
