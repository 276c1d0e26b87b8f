'use strict'

const { FatalError } = require('../base/errors')
const { mainGroup, outcomeOf } = require('./load-groups')
const { createResultsTableSql, COLUMNS_SQL, resultsTableProblem } = require('../results/store')

// The stages around the load that touch the cluster's tables: prepare (create, results table) and finish
// (settings restored, counts, a fleet's tables).

// Once a run is abandoned (Ctrl-C twice), what the master still sends (the table's reset) may
// not wait for a whole --timeout.
const ABANDONED_STATEMENT_TIMEOUT_MS = 5000

/** The results table, then each group's tables (the companion's first): DDL once, before any worker starts. */
async function prepare (ctx, groups) {
  const { client, options, log } = ctx
  const sqlOrFail = async (stmt, args, what) => {
    try {
      return await client.sql(stmt, args)
    } catch (error) {
      throw new FatalError(`${what}: ${error.message}`)
    }
  }
  // Before any load: a results table that cannot be created or take the run's row must not cost a whole run.
  if (options.resultsTable) await prepareResultsTable(options.resultsTable, sqlOrFail)
  for (const g of [...groups].reverse()) {
    g.prepared = await g.workload.prepare({ client, options: g.options, log, sqlOrFail,
      stopped: () => ctx.interrupts.interrupted })
  }
}

async function prepareResultsTable (table, sqlOrFail) {
  await sqlOrFail(createResultsTableSql(table), undefined, `cannot create the results table ${table.display}`)
  const answer = await sqlOrFail(
    COLUMNS_SQL,
    [table.schema, table.table],
    `cannot read the columns of ${table.display}`
  )
  const problem = resultsTableProblem(answer.rows.map(([name]) => name), table)
  if (problem) throw new FatalError(problem)
}

/**
 * Restores what prepare changed (refresh_interval) whatever happened, then refreshes and counts
 * when the load ran to its end or was stopped cleanly; an interrupt during the finish skips the
 * counting that is left, never the restore.
 */
async function finish (ctx, groups, load) {
  // A host gone silent during the load is left out now, in one short round, not a --timeout per statement after.
  if (load && load.loadStarted && ctx.interrupts.count < 2) await ctx.client.probeHosts()
  const interruptsAtStart = ctx.interrupts.count
  const shouldCount = () => Boolean(load && load.loadStarted) &&
    ctx.interrupts.count === interruptsAtStart && interruptsAtStart <= 1
  const client = ctx.interrupts.count >= 2 ? withTimeout(ctx.client, ABANDONED_STATEMENT_TIMEOUT_MS) : ctx.client
  await finishGroups(ctx, groups, client, (g) => {
    const outcome = outcomeOf(g)
    return {
      totals: outcome.totals,
      // Workers that died before their final report: what they sent after their last delta is unknown here.
      lostWorkers: outcome.workers.filter((w) => w.exit && !w.reported)
        .map((w) => ({ index: w.index, unitsSent: w.totals.unitsSent, seconds: w.totals.seconds,
          silentS: w.silentMs === null ? null : w.silentMs / 1000, fastestAnswerMs: fastestAnswerMs(w.totals) })),
      shouldCount
    }
  })
}

/** The quickest answer a worker got, in milliseconds (null before any): how fast its request slots can turn over. */
function fastestAnswerMs (totals) {
  const latency = totals.all && totals.all.latency
  return latency && latency.totalCount > 0 ? latency.minNonZeroValue / 1000 : null
}

/**
 * A fleet finisher's finish: each group's own finish (refresh_interval restored, the table refreshed and counted) on
 * the counts of every generator. Returns what the main group's added.
 */
async function finishFleetTables (ctx, groups, fleetTotals) {
  await finishGroups(ctx, groups, ctx.client, (g) => ({
    totals: fleetTotals,
    lostWorkers: [],
    // The companion's counts are not these: its table is restored, not counted.
    shouldCount: () => g.role === 'main' && !ctx.interrupts.interrupted
  }))
  return mainGroup(groups).finished
}

/**
 * What each generator of the fleet wrote into the main group's table since the run's start, counted by the rows' keys
 * after a REFRESH (a Map of generator index → rows); null where the workload's rows cannot tell, or the count fails.
 */
async function countFleetRows (ctx, groups, generatorCount) {
  const main = mainGroup(groups)
  if (!main.workload.countFleetRows || !main.prepared) return null
  try {
    for (const table of main.workload.writtenTables(main.options)) await ctx.client.sql(`REFRESH TABLE ${table.sql}`)
    return await main.workload.countFleetRows({ client: ctx.client, options: main.options,
      prepared: main.prepared, generatorCount })
  } catch (error) {
    ctx.log(`warning: could not count the generators' rows in the table: ${error.message}`)
    return null
  }
}

/** Each prepared group's workload.finish, the companion's tables first as they were prepared; sets its `finished`. */
async function finishGroups (ctx, groups, client, inputsOf) {
  for (const g of [...groups].reverse()) {
    if (!g.prepared) continue
    const inputs = inputsOf(g)
    g.finished = await g.workload.finish({ client, options: g.options, prepared: g.prepared, log: ctx.log, ...inputs })
  }
}

function withTimeout (client, timeoutMs) {
  return { sql: (stmt, args, options = {}) => client.sql(stmt, args, { ...options, timeoutMs }) }
}

module.exports = { prepare, finish, finishFleetTables, countFleetRows }
