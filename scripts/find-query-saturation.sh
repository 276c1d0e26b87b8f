#!/usr/bin/env bash
# Query throughput by --concurrent_requests: where does more concurrency stop buying queries/s?
set -euo pipefail
SWEEP_NAME=query-saturation
SWEEP_PARAM=concurrent_requests
SWEEP_DEFAULT_VALUES="1 2 4 8 16 32 64 128"
SWEEP_APP=appClusterAnalytical.js
SWEEP_RAMP=1
SWEEP_STEPS="rate=50 100 200 400 800 1600 3200"
SWEEP_SUMMARY="Steps the queries in flight per process (or, with --step rate, the target queries/s) of the
analytical benchmark and stops at saturation: when a step brings less than --min_gain percent more
queries/s than the step before (with --step rate: falls more than --max_shortfall_pct percent short of
its target), when more than --max_failure_pct percent of its queries fail, or when its p99 latency
passes --max_p99_ms. Pass --queries_config and the run length (--max_queries or --duration) after '--'."
SWEEP_EXAMPLE="$(basename "$0") --max_p99_ms 500 -- --queries_config queries/cpu-dashboard.yml --duration 30s"
# shellcheck source-path=SCRIPTDIR source=lib/sweep.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/sweep.sh"
sweep_main "$@"
