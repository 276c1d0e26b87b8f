#!/usr/bin/env bash
# The measured targets of precision by design (docs/study.md, "Precision on this machine"), each a crate-bench study
# of clusters the tool starts from TARBALL; the comparisons beside a co-tenant that keeps one core busy (a busy loop
# this script starts and ends), the sizing alone (a run beside other work is busy, and a busy grid carries no figure):
#   aa      an A/A duet of 1 node (ingest, 1 process): forks until the ratio is within ±3%, 20 minutes at most (its
#           targets: the throughput ratio within ±5%, the CPU per row's within ±3%)
#   pool    thread_pool.write.size 1 against the default, duets until the ratio is within ±5%: is it found worse?
#   sizing  a sizing study of 1 node, its 2 × 2 grid raced to ±10% within 20 minutes: a figure to plan with?
#   user    an A/A duet with the options a user picks (5,000-row batches, 4 in flight, 20-s runs, the default
#           warm-up, 1 GB heaps): its targets ±3% on the throughput ratio and ±2% on the CPU per row in 20 minutes;
#           USER_BATCH_SIZE and USER_CONCURRENT_REQUESTS in the environment give other options
# Usage: bench/precision-targets.sh TARBALL OUT [aa] [pool] [sizing] [user]   (the first three by default; as root
# the nodes run
# as the user crate). Each study's folder is OUT/<target>; its time in OUT/<target>.time.
set -euo pipefail

usage="usage: $0 TARBALL OUT [aa] [pool] [sizing] [user]: each target a crate-bench study of clusters started from
TARBALL, the comparisons beside a busy loop (aa: an A/A duet to ±3%; pool: thread_pool.write.size 1 against the default;
sizing: a 2 × 2 grid of 1 node raced to ±10%; user: an A/A duet with a user's options to ±3% and ±2% on the CPU per
row), each within 20 minutes; its folder OUT/<target> (docs/study.md, \"Precision on this machine\")"
if [ "${1:-}" = --help ] || [ "${1:-}" = -h ]; then
  echo "$usage"
  exit 0
fi
if [ $# -lt 2 ]; then
  echo "$usage" >&2
  exit 2
fi
tarball=$(realpath "$1")
out=$2
shift 2
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(aa pool sizing)
tool="$(dirname "$0")/../bin/crate-bench.js"
run_as=""
[ "$(id -u)" = 0 ] && run_as=", run_as: crate"
mkdir -p "$out"

cotenant=""
trap '[ -n "$cotenant" ] && kill "$cotenant" 2>/dev/null || true' EXIT
# Ctrl-C stops the study in progress (it leaves its folder resumable) and the targets after it.
trap 'echo "interrupted: the targets left are not run" >&2; exit 4' INT TERM

write_study () {
  case "$1" in
    aa|pool)
      local precision=5%
      [ "$1" = aa ] && precision=3%
      local second="{name: b, tarball: $tarball, heap: 512m$run_as}"
      [ "$1" = pool ] && second="{name: pool1, tarball: $tarball, heap: 512m, settings: {thread_pool.write.size: 1}$run_as}"
      cat <<EOF
contenders:
  - {name: a, tarball: $tarball, heap: 512m$run_as}
  - $second
duet: true
precision: $precision
budget: 20m
run:
  workload: ingest
  args: [--processes, '1', --batch_size, '1000', --concurrent_requests, '2', --duration, 30s, --warmup, 40s,
    --monitor_interval, '0']
EOF
      ;;
    user)
      cat <<EOF
contenders:
  - {name: a, tarball: $tarball, heap: 1g$run_as}
  - {name: b, tarball: $tarball, heap: 1g$run_as}
duet: true
precision: 3%
cpu_precision: 2%
budget: 20m
run:
  workload: ingest
  args: [--processes, '1', --batch_size, '${USER_BATCH_SIZE:-5000}', --concurrent_requests,
    '${USER_CONCURRENT_REQUESTS:-4}', --duration, 20s]
EOF
      ;;
    sizing)
      cat <<EOF
cluster: {tarball: $tarball, nodes: [1], heap: 1g$run_as}
grid:
  vary: {batch_size: [1000, 5000], concurrent_requests: [1, 4]}
  duration: 15s
  precision: 10%
  budget: 20m
  args: [--processes, '1', --monitor_interval, '0']
EOF
      ;;
    *) echo "$0: unknown target '$1' (aa, pool, sizing or user)" >&2; exit 2 ;;
  esac
}

for target in "${targets[@]}"; do
  write_study "$target" > "$out/$target.yml"
  beside="alone"
  if [ "$target" != sizing ]; then
    node -e 'for (;;) {}' &
    cotenant=$!
    beside="beside a busy loop (pid $cotenant)"
  fi
  echo "== $target: $(date -u +%FT%TZ), $beside" >&2
  start=$(date +%s)
  code=0
  node "$tool" study "$out/$target.yml" --out "$out/$target" || code=$?
  if [ -n "$cotenant" ]; then
    kill "$cotenant" 2>/dev/null || true
    cotenant=""
  fi
  echo "$target: exit $code after $(( $(date +%s) - start )) s" | tee "$out/$target.time" >&2
  # bash runs no INT trap for a child that caught the signal and exited (the study's exit 4): stop here too.
  if [ "$code" = 4 ]; then
    echo "$target ended early (exit 4: interrupted or a part failed): the targets left are not run" >&2
    exit 4
  fi
done
