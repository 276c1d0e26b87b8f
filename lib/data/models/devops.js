'use strict'

const { MEASUREMENTS, DevopsRowWriter, columnDefinitions, insertColumns } = require('../generators/devops')

// TSBS devops: nine tables, one per measurement, named after it in the schema of --schema.
// Requests go round-robin over the tables, so they fill at the same pace.
module.exports = {
  name: 'devops',
  describe:
    'TSBS devops: nine tables (cpu, mem, disk, diskio, kernel, net, redis, postgresl, nginx), 101 field values per ' +
    'host and interval',
  defaultTable: null,
  tables: (options) =>
    MEASUREMENTS.map((measurement) => {
      const table = {
        schema: options.schema,
        table: measurement.name,
        sql: `"${options.schema}"."${measurement.name}"`,
        display: `${options.schema}.${measurement.name}`
      }
      return {
        label: table.display,
        table,
        columns: columnDefinitions(measurement),
        insertColumns: insertColumns(measurement),
        fieldsPerRow: measurement.fields.length,
        measurement
      }
    }),
  rowWriter: (spec, options, worker, startMs) =>
    new DevopsRowWriter({
      measurement: spec.measurement,
      seed: options.seed,
      scale: options.scale,
      workerIndex: worker.workerIndex,
      workerCount: worker.workerCount,
      startMs,
      intervalMs: options.intervalMs
    })
}
