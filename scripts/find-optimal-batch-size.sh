#!/usr/bin/env bash
# Ingest throughput by --batch_size: where do bigger batches stop paying off?
exec node "$(dirname "$0")/../bin/crate-bench.js" sweep batch-size "$@"
