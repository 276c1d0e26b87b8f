#!/usr/bin/env bash
# Ingest throughput by --shards: how many shards keep every node's write threads busy?
exec node "$(dirname "$0")/../bin/crate-bench.js" sweep shards "$@"
