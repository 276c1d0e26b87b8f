#!/usr/bin/env bash
# Query throughput by --concurrent_requests: where does more concurrency stop buying queries/s?
exec node "$(dirname "$0")/../bin/crate-bench.js" sweep query-saturation "$@"
