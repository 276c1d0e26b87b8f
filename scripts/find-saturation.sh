#!/usr/bin/env bash
# Ingest throughput by --max_rows at fixed settings: does the cluster hold its speed as the load grows?
set -euo pipefail
SWEEP_NAME=saturation
SWEEP_PARAM=max_rows
SWEEP_DEFAULT_VALUES="1000000 2000000 4000000 8000000 16000000 32000000"
SWEEP_APP=appClusterIngest.js
SWEEP_SUMMARY="Ramps the rows per process at fixed settings (pass the batch size, shards and processes you
found) to find where the cluster saturates: throughput stops growing or falls, and failures
(rejected writes) appear. Every value is run; failed rows are reported per value."
SWEEP_EXAMPLE="$(basename "$0") -- --batch_size 10000 --shards 12 --processes 8"
# shellcheck source-path=SCRIPTDIR source=lib/sweep.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/sweep.sh"
sweep_main "$@"
