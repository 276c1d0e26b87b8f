'use strict'

// The tables this tool keeps for itself in the cluster, named once: lib/cli refuses each as a run's --table, and the
// parts that write them (lib/workloads, lib/fleet's --fleet_table default) or read them (reports, the fleet's
// launcher) name the same table.

/** Where a fleet's generators coordinate: --fleet_table's default. */
const DEFAULT_FLEET_TABLE = 'doc.crate_bench_fleet'
/** Where the tool records the tables it made (lib/workloads/owned-tables.js). */
const REGISTRY_TABLE = 'doc.crate_bench_tables'
/** Which run uses a table now (lib/workloads/table-lease.js). */
const LEASES_TABLE = 'doc.crate_bench_leases'

module.exports = { DEFAULT_FLEET_TABLE, REGISTRY_TABLE, LEASES_TABLE }
