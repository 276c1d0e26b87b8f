'use strict'

const { CpuRowGenerator, INSERT_COLUMNS, METRICS_PER_ROW, columnDefinitions } = require('../generators/cpu')

// The TSBS cpu-only table: host tags, ts and ten usage_* metrics. The default model.
module.exports = {
  name: 'cpu',
  describe: 'TSBS cpu-only: one table, tags + ts + 10 usage_* metrics',
  defaultTable: 'doc.cpu',
  tables: (options) => [
    {
      label: options.table.display,
      table: options.table,
      columns: columnDefinitions(),
      insertColumns: INSERT_COLUMNS,
      fieldsPerRow: METRICS_PER_ROW
    }
  ],
  /**
   * The rows each load generator of a fleet of `generatorCount` wrote into `table` since `startMs`, one row
   * [generator, rows, distinct keys] per generator that has any: a row's index i = step · scale + host (step = (ts −
   * start) / interval, host the number in host_N) is its generator's index modulo the fleet's size
   * (lib/workloads/ingest-source.js). Rows before this run's start are left out by `ts >= start`: their step is
   * negative, and CrateDB's modulo of a negative index is ≤ 0, which would credit them to generator 0. A generator
   * writes each of its indexes once: more rows than distinct indexes are another writer's. A fleet's finisher asks it
   * when a generator died, so that what the table holds of it is counted, not bounded. One scan.
   */
  fleetRowsSql: (table, options, startMs, generatorCount) => ({
    sql: 'SELECT "i" % ? AS generator, count(*), count(DISTINCT "i") FROM (SELECT ' +
      '(CAST((CAST(EXTRACT(EPOCH FROM "ts") * 1000 AS BIGINT) - ?) / ? AS BIGINT) * ? + ' +
      `CAST(substr("tags"['hostname'], 6) AS BIGINT)) AS "i" FROM ${table.sql} WHERE "ts" >= ?) AS "keys" GROUP BY 1`,
    args: [generatorCount, startMs, options.intervalMs, options.scale, startMs]
  }),
  rowWriter: (spec, options, worker, startMs) =>
    new CpuRowGenerator({
      seed: options.seed,
      scale: options.scale,
      workerIndex: worker.workerIndex,
      workerCount: worker.workerCount,
      startMs,
      intervalMs: options.intervalMs,
      extraTagsLength: options.extraTagsLength
    })
}
