#!/usr/bin/env bash
# The highest --rate the cluster serves within its SLO: see --help, or docs/sweeps-and-capacity.md.
exec node "$(dirname "$0")/../bin/crate-bench.js" sweep capacity "$@"
