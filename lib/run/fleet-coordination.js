'use strict'

const os = require('node:os')
const { FleetCoordinator } = require('../fleet/coordinator')
const { readMergedRun } = require('../results/stored-runs')
const { mostStoredBy } = require('../results/late-results')
const { terminalReport } = require('../reports/text')
const { comparedOptions } = require('../fleet/compared-options')
const { unitsPerRequestOf } = require('../workloads/workload')
const { describeReconciliation } = require('../results/reconcile')
const { fmt } = require('../base/format')
const { EXIT } = require('../base/errors')
const { preparedByRole, setPrepared } = require('./load-groups')

// The end-to-end tests shorten it (CRATE_BENCH_FLEET_HEARTBEAT_MS, which users never set) to find a dead generator
// without waiting.
const HEARTBEAT_MS = Number(process.env.CRATE_BENCH_FLEET_HEARTBEAT_MS) || 2000
// A living generator's heartbeat may wait up to --timeout for a busy cluster; silent for longer than that and three
// heartbeats, it has died: a death is noticed within --timeout + 10 s.
const DEAD_AFTER_HEARTBEATS = 3

/**
 * The fleet's Coordination (see lib/run/solo-coordination.js; docs/fleet.md): join after the host check, one
 * preparation for the fleet, the start barrier before go, heartbeats from then to the end of the process, and at the
 * end its own 'done' and, for the finisher (the steward, or the living generator that took the finish over when the
 * one before it died), the fleet's finish: the tables restored and counted once, against every generator's
 * acknowledged rows.
 */
class FleetCoordination {
  constructor () {
    this.finishesTablesAfterLoad = false
    this.resultWaitsForFinish = true
    this.fleet = null
    this.steward = false
    this.stewardNumber = null
    this.start = null
    this.liveTotals = null
    this.timer = null
  }

  /** The silence after which a generator is taken for dead. */
  deadAfterMs (ctx) {
    return ctx.options.connection.timeoutMs + DEAD_AFTER_HEARTBEATS * HEARTBEAT_MS
  }

  async join (ctx) {
    const { options } = ctx
    const fleet = new FleetCoordinator({
      client: ctx.client,
      table: options.fleet.table,
      runId: options.runId,
      index: options.generator.index,
      count: options.generator.count,
      host: os.hostname(),
      toolVersion: require('../../package.json').version,
      barrierTimeoutMs: options.fleet.barrierTimeoutMs,
      heartbeatMs: HEARTBEAT_MS
    })
    this.fleet = fleet
    fleet.on('finisher', ({ dead, next }) => ctx.log(`${fleet.name}: generator ${dead + 1}, which was to finish ` +
      `the fleet, stopped heartbeating; generator ${next + 1} finishes it`))
    let lastWait = ''
    fleet.on('waiting', ({ what, missing }) => {
      const line = `${fleet.name}: waiting for ${what}${missing.length ? ` (generators ${missing.join(', ')})` : ''}`
      if (line !== lastWait) ctx.log(line)
      lastWait = line
    })
    // The heartbeat carries the main group's counts from the moment its workers are told to go.
    ctx.events.on('go', ({ totals }) => { this.liveTotals = totals })
    const compared = comparedOptions(ctx.describedOptions, { seedGiven: options.fleet.seedGiven })
    const clock = await fleet.join({ compared, deadAfterMs: this.deadAfterMs(ctx) })
    ctx.log(`${fleet.name} of run ${options.runId} registered in ${options.fleet.table.display} (clock offset ` +
      `${clock.offsetMs} ms against the server, round trip ${clock.rttMs} ms)`)
  }

  /** Exactly one generator prepares; the others take what it prepared (and its seed, where theirs was not given). */
  async prepare (ctx, groups, prepare) {
    const { options } = ctx
    const outcome = await this.fleet.prepareOnce(async () => {
      await prepare()
      return preparedByRole(groups)
    }, { seed: options.seed, seedGiven: options.fleet.seedGiven })
    this.steward = outcome.steward
    if (outcome.steward) {
      ctx.log(`${this.fleet.name} prepared the tables for the fleet`)
      return
    }
    this.stewardNumber = outcome.stewardIndex + 1
    setPrepared(groups, outcome.prepared)
    if (outcome.seed !== options.seed) {
      options.seed = outcome.seed
      ctx.log(`${this.fleet.name}: seed ${outcome.seed}, the fleet's`)
    }
    ctx.log(`${this.fleet.name}: the tables are prepared`)
  }

  /** The start barrier, then heartbeats until the process ends. Returns this machine's wall-clock start. */
  async startAt (ctx) {
    const start = await this.fleet.barrier({ deadAfterMs: this.deadAfterMs(ctx) })
    const late = Date.now() - start.localStartMs
    this.start = { serverMs: start.serverStartMs, late_ms: Math.max(0, Math.round(late)) }
    ctx.log(`${this.fleet.name}: every generator is ready; the load starts at ${new Date(start.serverStartMs)
      .toISOString()} (server clock)${late > 0 ? `, ${Math.round(late)} ms late here` : ''}`)
    this.timer = setInterval(() => {
      this.fleet.beat(this.liveTotals ? countsOf(this.liveTotals) : null).catch(() => {})
    }, HEARTBEAT_MS)
    this.timer.unref()
    return start.localStartMs
  }

  /**
   * This generator's part is done. The finisher waits for the others, then finishes and reconciles for the fleet;
   * every other generator waits until the fleet is reconciled, ready to take the finish over. Its exit code is 4
   * for the finisher when a generator died; the others keep their own.
   */
  async leave (ctx, { result, code, finishTables, countFleetRows = async () => null }) {
    const counts = finalCounts(result, ctx.workload.unit)
    await this.fleet.done({ exit_code: code, started_at: result.started_at, counts })
    let left
    if (this.steward) {
      left = await this.finishFleet(ctx, finishTables, countFleetRows)
    } else {
      ctx.log(`${this.fleet.name} done; generator ${this.stewardNumber ?? '?'} finishes the fleet`)
      const outcome = await this.fleet.awaitFinish({ deadAfterMs: this.deadAfterMs(ctx) })
      if (outcome.takeOver) {
        const before = outcome.deadFinishers.map((k) => k + 1)
        ctx.log(`${this.fleet.name} takes over the fleet's finish (generator${before.length === 1 ? '' : 's'} ` +
          `${before.join(', ')} stopped heartbeating)`)
        left = await this.finishFleet(ctx, finishTables, countFleetRows)
      } else {
        ctx.log(`${this.fleet.name}: the fleet was finished by generator ${outcome.finishedBy + 1}`)
        left = { dead: [], finishedBy: outcome.finishedBy + 1 }
      }
    }
    const failed = (left.failed ?? []).map((g) => g.generator + 1)
    const fleetFinish = { finished_by: left.finishedBy, dead: left.dead.map((g) => g.generator + 1),
      ...(failed.length ? { failed } : {}) }
    // The finisher's own run may have been whole; the fleet's is not when a generator died, or failed and left no
    // result (one whose result could not be stored: its host cut off from the results table).
    const whole = left.dead.length === 0 && failed.length === 0
    return { code: whole ? code : Math.max(code, EXIT.PARTIAL), result: { fleet_finish: fleetFinish } }
  }

  /** The finisher's part: every generator done or dead, the tables restored and counted once, the fleet reconciled. */
  async finishFleet (ctx, finishTables, countFleetRows) {
    const taker = await this.fleet.finishTakenBy()
    if (taker !== null) {
      ctx.log(`${this.fleet.name} was silent past the death rule, and generator ${taker + 1} took the fleet's finish ` +
        'over: the fleet\'s verdict is its; this generator\'s result is kept apart as late')
      return { dead: [], finishedBy: taker + 1 }
    }
    const generators = await this.fleet.awaitOthers({ deadAfterMs: this.deadAfterMs(ctx) })
    // Finished meanwhile by another (this one came back late): the tables are not restored a second time.
    const already = await this.fleet.reconciledBy()
    if (already !== null) return this.superseded(ctx, already)
    const dead = generators.filter((g) => g.dead)
    // Dead, or failed before it knew its final counts (its load threw): its rows since its last heartbeat are unknown.
    const unsettled = generators.filter((g) => g.dead || (g.state === 'failed' && !g.detail.counts_final))
    const sum = (key) => generators.reduce((total, g) => total + ((g.detail.counts && g.detail.counts[key]) || 0), 0)
    // A dead generator's rows counted in the table by their keys, where the model can tell: what it stored is then
    // known exactly, and nothing of it is in doubt. Elsewhere, what it may have sent since its last heartbeat is.
    const bounds = new Map(unsettled.map((g) => [g.generator, unreportedOf(ctx, g, generators, this.start)]))
    const counted = unsettled.length > 0
      ? trustedCounts(ctx, generators, await countFleetRows(ctx.options.generator.count), bounds)
      : new Map()
    const unreported = unsettled.map((g) => ({ generator: g.generator, ...bounds.get(g.generator),
      ...(counted.has(g.generator) ? countedOf(g, counted.get(g.generator)) : {}) }))
    const found = unreported.reduce((total, u) => total + (u.found_in_table || 0), 0)
    // What a dead generator may have sent after its last heartbeat is in doubt, like a request whose answer was
    // lost: the table's count then lies within [acknowledged, acknowledged + in doubt], and no failover is blamed.
    // One whose rows were counted sent what it settled and what was found of it in the table: stored, so ok.
    const sentBy = (g) => {
      const c = g.detail.counts || { sent: 0, ok: 0, failed: 0 }
      const u = unreported.find((x) => x.generator === g.generator)
      if (u && u.stored_in_table !== undefined) return (c.ok || 0) + (c.failed || 0) + u.found_in_table
      return (c.sent || 0) + (u ? u.bound : 0)
    }
    const fleetTotals = { unitsSent: generators.reduce((total, g) => total + sentBy(g), 0),
      all: { ok: sum('ok') + found, failed: sum('failed') }, warmup: { ok: 0, failed: 0 } }
    const finished = await finishTables(fleetTotals)
    const finishedBy = ctx.options.generator.index
    const detail = {
      finished_by: finishedBy,
      generators: generators.map((g) => {
        const u = unreported.find((x) => x.generator === g.generator)
        return {
          generator: g.generator,
          host: g.host,
          state: g.dead ? 'dead' : g.state,
          counts: g.detail.counts || null,
          exit_code: g.detail.exit_code ?? null,
          ...(u ? { unreported_bound: u.bound, noticed_after_s: u.noticedAfterS } : {}),
          ...(u && u.stored_in_table !== undefined
            ? { stored_in_table: u.stored_in_table, found_in_table: u.found_in_table } : {})
        }
      }),
      dead: dead.map((g) => g.generator),
      ...finished
    }
    const stored = await this.fleet.storeReconciliation(detail)
    if (stored !== true) return this.superseded(ctx, stored)
    logFleetFinish(ctx, generators, dead, unreported, finished)
    // In a pod, the finisher's log is where a person looks first: the fleet's merged report (crate-bench fleet on
    // one machine prints its own).
    if (!process.env.CRATE_BENCH_FLEET_LOCAL) await printMergedReport(ctx)
    ctx.log(`the fleet's report: crate-bench report --results_table ${ctx.options.resultsTable.display} --run_id ` +
      `${ctx.options.runId}`)
    return { dead, failed: generators.filter((g) => !g.dead && g.state === 'failed'), finishedBy: finishedBy + 1 }
  }

  /** Another generator finished the fleet: its verdict stands, this finish is not stored. */
  superseded (ctx, finisher) {
    const by = finisher === null || finisher === undefined ? null : finisher + 1
    ctx.log(`${this.fleet.name}: the fleet was already finished by generator ${by ?? '?'}; its verdict stands, this ` +
      'finish is not stored')
    return { dead: [], finishedBy: by }
  }

  stop () {
    if (this.fleet) this.fleet.stop()
  }

  /**
   * This generator failed. Its final counts, where it knows them: its result's (its load ended and was reported), or
   * none sent (it failed before the fleet's start); a load that threw leaves only its last heartbeat's.
   */
  async failed (ctx, message, result = null) {
    const counts = result ? finalCounts(result, ctx.workload.unit)
      : (this.start ? null : { sent: 0, ok: 0, failed: 0 })
    if (this.fleet) await this.fleet.failed(message, counts).catch(() => {})
  }

  close () {
    if (this.timer) clearInterval(this.timer)
  }
}

/**
 * The fleet's rows counted by their keys (`counts`: generator → { rows, distinct }), where they can be trusted for the
 * dead generators: each generator's keys written once, every living generator's rows within what it sent and did not
 * see fail, and every dead one's within what it could have stored: what it sent and did not see fail by its last
 * heartbeat and its bound since (`bounds`). Anything else means the table holds rows of this run's span that the keys
 * cannot tell apart from this fleet's (another writer of the same keys meanwhile): then no dead generator is counted
 * exactly, its rows are bounded and in doubt, and the log says why.
 */
function trustedCounts (ctx, generators, counts, bounds) {
  if (!counts) return new Map()
  const untrusted = (why) => {
    ctx.log(`warning: ${why}: rows the keys cannot tell apart from this fleet's (another writer of the same keys?); ` +
      'the dead generators\' rows are bounded, not counted')
    return new Map()
  }
  for (const g of generators) {
    const { rows, distinct } = counts.get(g.generator) || { rows: 0, distinct: 0 }
    const unsettled = bounds.has(g.generator)
    const most = mostStoredBy(g.detail.counts, unsettled ? bounds.get(g.generator).bound : 0)
    const whose = `generator ${g.generator + 1}'s keys since the run's start`
    if (rows > distinct) return untrusted(`the table holds ${fmt(rows)} rows of ${whose} and only ${fmt(distinct)} ` +
      'distinct keys: a key written twice')
    if (rows > most) {
      return untrusted(`the table holds ${fmt(rows)} rows of ${whose}, more than the ${fmt(most)} it ` +
        (unsettled ? `could have stored before it ${g.dead ? 'died' : 'failed'}` : 'sent and did not see fail'))
    }
  }
  const rowsOf = (g) => (counts.get(g.generator) || { rows: 0 }).rows
  return new Map(generators.filter((g) => bounds.has(g.generator)).map((g) => [g.generator, rowsOf(g)]))
}

/**
 * A dead generator whose rows were counted in the table: `stored` of them are there, its last heartbeat's `ok`
 * among them; the rest it reported sent but not settled were not stored. Its bound is 0: nothing in doubt.
 */
function countedOf (g, stored) {
  const c = g.detail.counts || { sent: 0, ok: 0, failed: 0 }
  return { bound: 0, stored_in_table: stored, found_in_table: Math.max(0, stored - (c.ok || 0)) }
}

function countsOf (totals) {
  return {
    sent: totals.unitsSent,
    ok: totals.all.ok + totals.warmup.ok,
    failed: totals.all.failed + totals.warmup.failed
  }
}

/** A generator's counts for its 'done' row: the warm-up's units are in the table too. */
function finalCounts (result, unit) {
  const warm = result.warmup || {}
  return {
    sent: (result[`${unit}_sent`] || 0) + (warm[`${unit}_ok`] || 0) + (warm[`${unit}_failed`] || 0) +
      (warm[`${unit}_in_doubt`] || 0),
    ok: (result[`${unit}_ok`] || 0) + (warm[`${unit}_ok`] || 0),
    failed: (result[`${unit}_failed`] || 0) + (warm[`${unit}_failed`] || 0)
  }
}

function logFleetFinish (ctx, generators, dead, unreported, finished) {
  ctx.log(`fleet of run ${ctx.options.runId}: ${generators.length - dead.length} of ${generators.length} generators ` +
    `done${dead.length ? `; DEAD (no final report): ${dead.map((g) => g.generator + 1).join(', ')}` : ''}`)
  for (const u of unreported) {
    const g = generators.find((x) => x.generator === u.generator)
    const what = g.dead ? `was judged dead after ${fmt(u.noticedAfterS)} s of silence`
      : 'failed before it knew its final counts'
    if (u.stored_in_table !== undefined) {
      ctx.log(`fleet: generator ${u.generator + 1}${g.host ? ` (${g.host})` : ''} ${what}: its rows counted in the ` +
        'table by their keys, ' +
        `${fmt(u.stored_in_table)} ${ctx.workload.unit} stored (${fmt((g.detail.counts && g.detail.counts.ok) || 0)} ` +
        `acknowledged by its last heartbeat, ${fmt(u.found_in_table)} found in the table since); none in doubt`)
      continue
    }
    ctx.log(`fleet: generator ${u.generator + 1}${g.host ? ` (${g.host})` : ''} ${what}: the ` +
      `${fmt((g.detail.counts && g.detail.counts.ok) || 0)} ` +
      `${ctx.workload.unit} acknowledged by its last heartbeat are counted; up to ${fmt(u.bound)} it may have sent ` +
      'since are in doubt')
  }
  if (finished.reconciliation) {
    const words = describeReconciliation(finished.reconciliation, fmt)
    ctx.log(`fleet: rows in the table after refresh: ${words.cell}`)
    if (words.warning) ctx.log(words.warning)
  }
}

/**
 * What a dead generator may have sent beyond the counts of its last heartbeat, bounded from what the fleet table
 * knows. Those counts are up to a worker's report interval old when the heartbeat is written, and the silence until
 * it was judged dead follows; over that span it sent at most at its pace, taken as the fastest of its own (up to its
 * last heartbeat) and every other generator's (they run the same options against the same cluster; a generator killed
 * in its first second has no pace of its own), with a margin, plus its in-flight window. Never more than its
 * --max_rows left. A bound too wide only widens the doubt; one too narrow would blame the cluster for the excess.
 */
function unreportedOf (ctx, g, generators, fleetStart) {
  const { options } = ctx
  const counts = g.detail.counts || { sent: 0 }
  const startMs = fleetStart ? fleetStart.serverMs : null
  // A row's counts are of when they were taken (reported_at_server_ms), which its write may follow by a while (the
  // server's "at"): the pace and what was sent unreported run from then.
  const countedAt = (row) => row.detail.reported_at_server_ms ?? row.last_heard_server_ms
  const runningS = (row) => (startMs !== null && countedAt(row) != null
    ? Math.max(0, (countedAt(row) - startMs) / 1000) : 0)
  const paceOf = (row) => {
    const sent = (row.detail.counts && row.detail.counts.sent) || 0
    return sent > 0 && runningS(row) > 0 ? sent / runningS(row) : 0
  }
  const pace = Math.max(...generators.map(paceOf)) * PACE_MARGIN
  const countsAgeS = g.last_heard_server_ms != null && countedAt(g) != null
    ? Math.max(0, (g.last_heard_server_ms - countedAt(g)) / 1000) : 0
  const silentS = (g.silent_ms || 0) / 1000
  const staleS = Math.min(runningS(g), COUNTS_LAG_S)
  const unitsPerRequest = unitsPerRequestOf(ctx.workload, options)
  const window = options.concurrentRequests * options.processes * unitsPerRequest
  let bound = Math.ceil(pace * (staleS + countsAgeS + silentS)) + window
  const limit = ctx.workload.countLimit ? ctx.workload.countLimit(options) : Number.MAX_SAFE_INTEGER
  if (limit !== Number.MAX_SAFE_INTEGER) bound = Math.min(bound, Math.max(0, limit * options.processes - counts.sent))
  return { bound, noticedAfterS: Math.round(silentS * 10) / 10 }
}

// A worker reports its counts to its master every second; a heartbeat carries the master's totals, so its counts
// may be that old (and a little more, for the message).
const COUNTS_LAG_S = 1.5
// A pace is an average: a generator may have sent faster than it, for the seconds that matter.
const PACE_MARGIN = 1.5

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

module.exports = { FleetCoordination, unreportedOf }
