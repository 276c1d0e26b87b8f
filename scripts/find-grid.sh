#!/usr/bin/env bash
# Every cell of a grid of settings (batch size × requests in flight, …): the best, the plateau, the cell to run.
exec node "$(dirname "$0")/../bin/crate-bench.js" sweep grid "$@"
