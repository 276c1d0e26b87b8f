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
