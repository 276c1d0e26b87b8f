#!/usr/bin/env bash
# Ingest throughput by --shards: how many shards keep every node's write threads busy?
set -euo pipefail
SWEEP_NAME=shards
SWEEP_PARAM=shards
SWEEP_DEFAULT_VALUES="3 6 12 18 24 36 54"
SWEEP_APP=appClusterIngest.js
SWEEP_SUMMARY="Finds the shard count with the best ingest throughput. The table is dropped and created with
each shard count (the benchmark's default --drop_table), so pass the batch size you found first."
SWEEP_EXAMPLE="$(basename "$0") -- --batch_size 10000 --processes 4 --max_rows 1000000"
# shellcheck source-path=SCRIPTDIR source=lib/sweep.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/sweep.sh"
sweep_main "$@"
