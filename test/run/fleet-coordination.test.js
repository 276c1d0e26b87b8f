'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { unreportedOf } = require('../../lib/run/fleet-coordination')

// A generator judged dead: what it may have sent since its counts were taken, bounded (the rest of its rows are in
// doubt, or its rows counted by their keys within that bound).
const ctx = { options: { concurrentRequests: 2, processes: 1, batchSize: 500 },
  workload: { unit: 'rows', countLimit: () => Number.MAX_SAFE_INTEGER } }
const START = 1_000_000

/** A fleet row as awaitOthers gives it: its counts taken at `countedS`, its write landed at `heardS` (s from start). */
const row = (generator, { sent, countedS, heardS, silentS = null }) => ({ generator, state: 'running',
  detail: { counts: { sent, ok: sent, failed: 0 }, reported_at_server_ms: START + countedS * 1000 },
  last_heard_server_ms: START + heardS * 1000, dead: silentS !== null, silent_ms: silentS === null ? null
    : silentS * 1000 })

test('a dead generator\'s bound runs from when its counts were taken, not from when their write landed', () => {
  // Both sent 1,000 rows a second. Generator 2's last heartbeat landed at 30 s, carrying counts of 15 s (its writes
  // queued behind a busy cluster); judged dead 6 s after it.
  const other = row(0, { sent: 30_000, countedS: 30, heardS: 30 })
  const late = row(1, { sent: 15_000, countedS: 15, heardS: 30, silentS: 6 })
  const { bound, noticedAfterS } = unreportedOf(ctx, late, [other, late], { serverMs: START })
  // 1,000 rows/s × 1.5 (pace margin) × (1.5 s counts lag + 15 s between counts and write + 6 s silent) + 1,000 in
  // flight: the 21,000 it may have sent since its counts, and more.
  assert.equal(bound, Math.ceil(1500 * 22.5) + 1000)
  assert.ok(bound >= 21_000)
  assert.equal(noticedAfterS, 6, 'its silence, as judged')
  // Counts written as soon as taken: only the lag and the silence.
  const prompt = row(1, { sent: 15_000, countedS: 15, heardS: 15, silentS: 6 })
  assert.equal(unreportedOf(ctx, prompt, [other, prompt], { serverMs: START }).bound, Math.ceil(1500 * 7.5) + 1000)
})

/** The finisher's part over a stub fleet table whose generators are `generators`; what it stored and counted. */
async function finishOver (generators) {
  const { FleetCoordination } = require('../../lib/run/fleet-coordination')
  const coordination = new FleetCoordination()
  const stored = {}
  coordination.start = { serverMs: START, late_ms: 0 }
  coordination.fleet = {
    finishTakenBy: async () => null,
    awaitOthers: async () => generators,
    reconciledBy: async () => null,
    storeReconciliation: async (detail) => { stored.detail = detail; return true }
  }
  const lines = []
  const finishCtx = { ...ctx, log: (line) => lines.push(line),
    options: { ...ctx.options, runId: 'r', generator: { index: 0, count: generators.length },
      connection: { timeoutMs: 1000 }, resultsTable: { sql: '"doc"."results"', display: 'doc.results' } },
    client: { sql: async () => { throw new Error('no results table here') } } }
  await coordination.finishFleet(finishCtx, async (totals) => { stored.totals = totals; return {} }, async () => null)
  return { ...stored, lines }
}

test('a generator that failed before it knew its final counts: what it sent since its last heartbeat is in doubt; ' +
  'one whose failed row carries its final counts has nothing unreported', async () => {
  const done = { ...row(0, { sent: 30_000, countedS: 30, heardS: 30 }), state: 'done' }
  // Its load threw at 20 s; its last heartbeat had counted 15,000 at 15 s.
  const threw = { ...row(1, { sent: 15_000, countedS: 15, heardS: 20 }), state: 'failed' }
  const unsettled = await finishOver([done, threw])
  const bound = unsettled.detail.generators[1].unreported_bound
  assert.ok(bound >= 5000, `up to the 5,000 it sent between 15 s and 20 s, and more: ${bound}`)
  assert.equal(unsettled.totals.unitsSent, 30_000 + 15_000 + bound)
  assert.ok(unsettled.lines.some((l) => /generator 2 failed before it knew its final counts: the 15,000 rows /.test(l)),
    unsettled.lines.join('\n'))
  // Its result could not be stored: its failed row says its final counts.
  const final = { ...threw, detail: { ...threw.detail, counts: { sent: 20_000, ok: 19_900, failed: 0 },
    counts_final: true } }
  const settled = await finishOver([done, final])
  assert.equal(settled.detail.generators[1].unreported_bound, undefined)
  assert.equal(settled.totals.unitsSent, 50_000)
})
