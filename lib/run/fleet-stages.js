'use strict'

const os = require('node:os')
const { FleetCoordinator } = require('../fleet/coordinator')
const { readMergedRun, terminalReport } = require('../reports/command')
const { comparedOptions } = require('../fleet/compared-options')
const { describeReconciliation } = require('../results/reconcile')
const { fmt } = require('../base/format')

// The stages a generator of a fleet adds to the pipeline (see docs/fleet.md): join after the host check, one
// preparation for the fleet, the start barrier before go, counts while loading, and at the end its own 'done' and,
// for the steward (the generator that prepared), the fleet's finish: the tables restored and counted once, against
// every generator's acknowledged rows.

// The end-to-end tests shorten it (CRATE_BENCH_FLEET_HEARTBEAT_MS, which users never set) to find a dead generator
// without waiting 20 s.
const HEARTBEAT_MS = Number(process.env.CRATE_BENCH_FLEET_HEARTBEAT_MS) || 5000
// A generator that has not reported for this long (beyond --timeout) while the others are done has died.
const DEAD_AFTER_HEARTBEATS = 4

async function joinFleet (ctx) {
  const { options } = ctx
  const fleet = new FleetCoordinator({
    client: ctx.client,
    table: options.fleet.table,
    runId: options.runId,
    index: options.generator.index,
    count: options.generator.count,
    host: os.hostname(),
    toolVersion: require('../../package.json').version,
    barrierTimeoutMs: options.fleet.barrierTimeoutMs
  })
  ctx.fleet = fleet
  let lastWait = ''
  fleet.on('waiting', ({ what, missing }) => {
    const line = `${fleet.name}: waiting for ${what}${missing.length ? ` (generators ${missing.join(', ')})` : ''}`
    if (line !== lastWait) ctx.log(line)
    lastWait = line
  })
  const compared = comparedOptions(ctx.describedOptions, { seedGiven: options.fleet.seedGiven })
  const clock = await fleet.join({ compared })
  ctx.log(`${fleet.name} of run ${options.runId} registered in ${options.fleet.table.display} (clock offset ` +
    `${clock.offsetMs} ms against the server, round trip ${clock.rttMs} ms)`)
}

/** Exactly one generator prepares; the others take what it prepared (and its seed, where theirs was not given). */
async function prepareInFleet (ctx, prepare) {
  const { options } = ctx
  const outcome = await ctx.fleet.prepareOnce(async () => {
    await prepare(ctx)
    return { main: ctx.prepared, companion: ctx.companionPrepared }
  }, { seed: options.seed, seedGiven: options.fleet.seedGiven })
  ctx.steward = outcome.steward
  if (outcome.steward) {
    ctx.log(`${ctx.fleet.name} prepared the tables for the fleet`)
    return
  }
  ctx.fleetSteward = outcome.stewardIndex + 1
  ctx.prepared = outcome.prepared.main
  ctx.companionPrepared = outcome.prepared.companion
  if (outcome.seed !== options.seed) {
    options.seed = outcome.seed
    ctx.log(`${ctx.fleet.name}: seed ${outcome.seed}, the fleet's`)
  }
  ctx.log(`${ctx.fleet.name}: the tables are prepared`)
}

/** The start barrier, then the counts every few seconds. Returns this machine's wall-clock start. */
async function fleetBarrier (ctx) {
  const start = await ctx.fleet.barrier()
  const late = Date.now() - start.localStartMs
  ctx.fleetStart = { serverMs: start.serverStartMs, late_ms: Math.max(0, Math.round(late)) }
  ctx.log(`${ctx.fleet.name}: every generator is ready; the load starts at ${new Date(start.serverStartMs)
    .toISOString()} (server clock)${late > 0 ? `, ${Math.round(late)} ms late here` : ''}`)
  const timer = setInterval(() => {
    const totals = ctx.liveTotals
    if (totals) ctx.fleet.heartbeat(countsOf(totals)).catch(() => {})
  }, HEARTBEAT_MS)
  timer.unref()
  ctx.stopHeartbeat = () => clearInterval(timer)
  return start.localStartMs
}

function countsOf (totals) {
  return {
    sent: totals.unitsSent,
    ok: totals.all.ok + totals.warmup.ok,
    failed: totals.all.failed + totals.warmup.failed
  }
}

/** This generator's part is done; the steward waits for the others, then finishes and reconciles for the fleet. */
async function leaveFleet (ctx, result, exitCode, finishWorkload) {
  if (ctx.stopHeartbeat) ctx.stopHeartbeat()
  const unit = ctx.workload.unit
  const warm = result.warmup || {}
  await ctx.fleet.done({
    exit_code: exitCode,
    started_at: result.started_at,
    counts: {
      sent: (result[`${unit}_sent`] || 0) + (warm[`${unit}_ok`] || 0) + (warm[`${unit}_failed`] || 0) +
        (warm[`${unit}_in_doubt`] || 0),
      ok: (result[`${unit}_ok`] || 0) + (warm[`${unit}_ok`] || 0),
      failed: (result[`${unit}_failed`] || 0) + (warm[`${unit}_failed`] || 0)
    }
  })
  if (!ctx.steward) {
    ctx.log(`${ctx.fleet.name} done; generator ${stewardNumber(ctx)} finishes the fleet`)
    return
  }
  const deadAfterMs = Math.max(DEAD_AFTER_HEARTBEATS * HEARTBEAT_MS, ctx.options.connection.timeoutMs + HEARTBEAT_MS)
  const generators = await ctx.fleet.awaitOthers({ deadAfterMs })
  const dead = generators.filter((g) => g.dead)
  const sum = (key) => generators.reduce((total, g) => total + ((g.detail.counts && g.detail.counts[key]) || 0), 0)
  const sent = sum('sent')
  const ok = sum('ok')
  const failed = sum('failed')
  // The workload's finish, on the fleet's counts: restores what the steward changed, counts the tables once.
  const fleetTotals = { unitsSent: sent, all: { ok, failed }, warmup: { ok: 0, failed: 0 } }
  const lost = dead.map((g) => ({
    index: `generator ${g.generator + 1}${g.host ? ` (${g.host})` : ''}`,
    unitsSent: (g.detail.counts && g.detail.counts.sent) || 0,
    seconds: g.detail.reported_at_server_ms && ctx.fleetStart
      ? Math.max(1, (g.detail.reported_at_server_ms - ctx.fleetStart.serverMs) / 1000) : 1
  }))
  const finished = await finishWorkload(fleetTotals, lost)
  const detail = {
    generators: generators.map((g) => ({ generator: g.generator, host: g.host, state: g.dead ? 'dead' : g.state,
      counts: g.detail.counts || null, exit_code: g.detail.exit_code ?? null })),
    dead: dead.map((g) => g.generator),
    ...finished
  }
  await ctx.fleet.storeReconciliation(detail)
  ctx.log(`fleet of run ${ctx.options.runId}: ${generators.length - dead.length} of ${generators.length} generators ` +
    `done${dead.length ? `; DEAD (no final report): ${dead.map((g) => g.generator + 1).join(', ')}` : ''}`)
  if (finished.reconciliation) {
    const words = describeReconciliation(finished.reconciliation, fmt)
    ctx.log(`fleet: rows in the table after refresh: ${words.cell}`)
    if (words.warning) ctx.log(words.warning)
  }
  // In a pod, the steward's log is where a person looks first: the fleet's merged report (crate-bench fleet on one
  // machine prints its own).
  if (!process.env.CRATE_BENCH_FLEET_LOCAL) await printMergedReport(ctx)
  ctx.log(`the fleet's report: crate-bench report --results_table ${ctx.options.resultsTable.display} --run_id ` +
    `${ctx.options.runId}`)
  return { dead }
}

async function printMergedReport (ctx) {
  const { resultsTable, runId } = ctx.options
  try {
    await ctx.client.sql(`REFRESH TABLE ${resultsTable.sql}`)
    const { result } = await readMergedRun(ctx.client, resultsTable, runId)
    ctx.log(`\nthe fleet's merged report (run ${runId}):\n${terminalReport(result)}`)
  } catch (error) {
    ctx.log(`warning: the fleet's merged report could not be made here: ${error.message}`)
  }
}

const stewardNumber = (ctx) => (ctx.fleetSteward ?? '?')

module.exports = { joinFleet, prepareInFleet, fleetBarrier, leaveFleet }
