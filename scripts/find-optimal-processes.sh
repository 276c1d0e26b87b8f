#!/usr/bin/env bash
# Ingest throughput by --processes: how many client processes does the cluster absorb?
exec node "$(dirname "$0")/../bin/crate-bench.js" sweep processes "$@"
