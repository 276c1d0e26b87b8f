#!/usr/bin/env bash
# Ingest throughput by --processes: how many client processes does the cluster absorb?
set -euo pipefail
SWEEP_NAME=processes
SWEEP_PARAM=processes
SWEEP_DEFAULT_VALUES="1 2 4 8 16 24 32 48"
SWEEP_APP=appClusterIngest.js
SWEEP_SUMMARY="Finds the number of client processes with the best ingest throughput. --max_rows is per
process, so the total rows grow with the value; the throughput is what makes values comparable.
Keep the load generator's own CPU in view: past its cores, more processes measure the client."
SWEEP_EXAMPLE="$(basename "$0") --values \"1 2 4 8\" -- --batch_size 10000 --shards 12 --max_rows 500000"
# shellcheck source-path=SCRIPTDIR source=lib/sweep.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/sweep.sh"
sweep_main "$@"
