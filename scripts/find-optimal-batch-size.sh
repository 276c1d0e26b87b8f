#!/usr/bin/env bash
# Ingest throughput by --batch_size: where do bigger batches stop paying off?
set -euo pipefail
SWEEP_NAME=batch-size
SWEEP_PARAM=batch_size
SWEEP_DEFAULT_VALUES="500 1000 2000 4000 8000 16000 32000"
SWEEP_APP=appClusterIngest.js
SWEEP_SUMMARY="Finds the batch size (rows per bulk INSERT) with the best ingest throughput. Every run drops
and re-creates the table (the benchmark's default), so each value starts from the same state."
SWEEP_EXAMPLE="$(basename "$0") --values \"1000 5000 10000 20000\" -- --processes 4 --max_rows 1000000 --shards 12"
# shellcheck source-path=SCRIPTDIR source=lib/sweep.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/sweep.sh"
sweep_main "$@"
