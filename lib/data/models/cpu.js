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
   * The count of the rows load generator `generator.index` of `generator.count` wrote into `table`: its rows are
   * those whose index i = step · scale + host (step = (ts − start) / interval, host the number in host_N) is
   * generator.index modulo the fleet's size (lib/workloads/ingest-source.js). A fleet's finisher asks it of a
   * generator that died, so that what the table holds of it is counted, not bounded. One scan of the table.
   */
  generatorRowsSql: (table, options, startMs, generator) => ({
    sql: `SELECT count(*) FROM ${table.sql} WHERE ((CAST((CAST(EXTRACT(EPOCH FROM "ts") * 1000 AS BIGINT) - ?) / ? ` +
      'AS BIGINT) * ? + CAST(substr("tags"[\'hostname\'], 6) AS BIGINT)) % ?) = ?',
    args: [startMs, options.intervalMs, options.scale, generator.count, generator.index]
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
