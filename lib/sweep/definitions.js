'use strict'

// The sweeps of scripts/find-*.sh: which flag each steps, through which values, on which benchmark.

const SWEEPS = {
  'batch-size': {
    script: 'find-optimal-batch-size.sh',
    param: 'batch_size',
    values: '500 1000 2000 4000 8000 16000 32000',
    app: 'appClusterIngest.js',
    summary: `Finds the batch size (rows per bulk INSERT) with the best ingest throughput. Every run drops
and re-creates the table (the benchmark's default), so each value starts from the same state.`,
    example:
      'find-optimal-batch-size.sh --values "1000 5000 10000 20000" -- --processes 4 --max_rows 1000000 --shards 12'
  },
  shards: {
    script: 'find-optimal-shards.sh',
    param: 'shards',
    values: '3 6 12 18 24 36 54',
    app: 'appClusterIngest.js',
    summary: `Finds the shard count with the best ingest throughput. The table is dropped and created with
each shard count (the benchmark drops a table it made itself; --drop_table for one it did not), so pass the
batch size you found first.`,
    example: 'find-optimal-shards.sh -- --batch_size 10000 --processes 4 --max_rows 1000000'
  },
  processes: {
    script: 'find-optimal-processes.sh',
    param: 'processes',
    values: '1 2 4 8 16 24 32 48',
    app: 'appClusterIngest.js',
    summary: `Finds the number of client processes with the best ingest throughput. --max_rows is per
process, so the total rows grow with the value; the throughput is what makes values comparable.
Keep the load generator's own CPU in view: past its cores, more processes measure the client.`,
    example: 'find-optimal-processes.sh --values "1 2 4 8" -- --batch_size 10000 --shards 12 --max_rows 500000'
  },
  saturation: {
    script: 'find-saturation.sh',
    param: 'max_rows',
    reportsSaturation: true,
    values: '1000000 2000000 4000000 8000000 16000000 32000000',
    app: 'appClusterIngest.js',
    summary: `Ramps the rows per process at fixed settings (pass the batch size, shards and processes you
found) to find where the cluster saturates: throughput stops growing or falls, and failures
(rejected writes) appear. Every value is run; failed rows are reported per value.`,
    example: 'find-saturation.sh -- --batch_size 10000 --shards 12 --processes 8'
  },
  'query-saturation': {
    script: 'find-query-saturation.sh',
    param: 'concurrent_requests',
    values: '1 2 4 8 16 32 64 128',
    app: 'appClusterAnalytical.js',
    ramp: true,
    steps: { rate: '50 100 200 400 800 1600 3200' },
    summary: `Steps the queries in flight per process (or, with --step rate, the target queries/s) of the
analytical benchmark and stops at saturation: when a step brings less than --min_gain percent more
queries/s than the step before (with --step rate: falls more than --max_shortfall_pct percent short of
its target), when more than --max_failure_pct percent of its queries fail, or when its p99 latency
passes --max_p99_ms. Pass --queries_config and the run length (--max_queries or --duration) after '--'.`,
    example: 'find-query-saturation.sh --max_p99_ms 500 -- --queries_config queries/cpu-dashboard.yml --duration 30s'
  }
}

module.exports = { SWEEPS }
