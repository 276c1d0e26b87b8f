#!/usr/bin/env bash
# Ingest throughput by --max_rows at fixed settings: does the cluster hold its speed as the load grows?
exec node "$(dirname "$0")/../bin/crate-bench.js" sweep saturation "$@"
