# shellcheck shell=bash
# Shared by scripts/find-*.sh. A sweep script sets the SWEEP_* variables below and calls
# sweep_main "$@"; this file parses the arguments, runs the benchmark once per value with --json,
# and hands the results to lib/sweep-report.js for the CSV, the table, the chart and the sweet spot.
#
#   SWEEP_NAME            file name stem of the outputs, e.g. batch-size
#   SWEEP_PARAM           the benchmark flag being swept, e.g. batch_size
#   SWEEP_DEFAULT_VALUES  the values tried when --values is not given
#   SWEEP_APP             appClusterIngest.js or appClusterAnalytical.js
#   SWEEP_SUMMARY         one paragraph for --help
#   SWEEP_EXAMPLE         one example command line for --help
#   SWEEP_RAMP            1: stop at saturation (lib/sweep-report.js check) instead of trying every value
#   SWEEP_STEPS           optional, for ramps: other flags --step may choose, as "flag=default values;..."


SWEEP_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
SWEEP_REPORT="$SWEEP_ROOT/lib/sweep-report.js"

# Exit codes, as the benchmarks' own: scripts that call a sweep can tell these apart.
SWEEP_EXIT_USAGE=2
SWEEP_EXIT_CANNOT_RUN=3
SWEEP_EXIT_INTERRUPTED=4

sweep_usage() {
  local script
  script="$(basename "$0")"
  cat <<USAGE
Usage: $script [options] [-- benchmark options]

$SWEEP_SUMMARY

Runs 'node $SWEEP_APP --$SWEEP_PARAM VALUE --json' once per value, with the benchmark options
after '--' passed to every run unchanged. A run that reports failed rows or queries is kept: past
saturation the cluster rejects work, and that is data. The sweep stops with an error when the
benchmark cannot run at all (bad options, cluster unreachable: its exit codes 2 and 3).

Options:
  --values "V1 V2 ..."   values of --$SWEEP_PARAM to try, in order
                         (default: $SWEEP_DEFAULT_VALUES)
  --out DIR              where to write the results (default: sweep-results/$SWEEP_NAME-<time>)
  --threshold PCT        a value is the sweet spot when larger values gain less than PCT percent
                         more throughput (default: 5)
  --repeat N             run each value N times; the median run stands for the value and the
                         table shows the range (default: 1; use 3 on a noisy setup)
USAGE
  if [[ "${SWEEP_RAMP:-0}" == 1 ]]; then
    cat <<USAGE
  --min_gain PCT         stop when a step brings less than PCT percent more throughput (default: 5)
  --max_failure_pct PCT  stop when more than PCT percent of a step's queries fail (default: 1)
  --max_p99_ms MS        a value with a p99 latency over MS is never the sweet spot; a ramp stops there (default: no limit)
USAGE
  fi
  if [[ -n "${SWEEP_STEPS:-}" ]]; then
    cat <<USAGE
  --step FLAG            the flag to step: $SWEEP_PARAM (default) or $(sweep_step_names)
  --max_shortfall_pct PCT
                         with --step rate: stop when a step achieves more than PCT percent under its
                         target rate (default: 1); the --min_gain rule does not apply then
USAGE
    local entry
    local -a entries
    IFS=';' read -r -a entries <<< "$SWEEP_STEPS"
    for entry in "${entries[@]}"; do
      echo "                         default values with --step ${entry%%=*}: ${entry#*=}"
    done
  fi
  cat <<USAGE
  -h, --help             this text

Writes DIR/$SWEEP_NAME.csv (one row per value: value, seconds, count, throughput, % change from
the value before, p99 latency, failed count, exit code), DIR/$SWEEP_NAME.svg (throughput and p99
against the value, sweet spot marked), DIR/$SWEEP_NAME.jsonl (every run's full --json result) and
DIR/runs/ (each run's report and result), and prints the table with the best value and the sweet spot.
Connection settings come from .env or CRATE_* variables, as for the benchmarks.

Exit codes: 0 sweep finished (runs may have failures: see the failed column), 2 bad options
(the script's or the benchmark's), 3 the benchmark could not run (cluster unreachable, rejected
credentials), 4 interrupted (the report covers the values finished).

Example:
  $SWEEP_EXAMPLE
USAGE
}

sweep_die() {
  local code="$1"
  shift
  echo "$(basename "$0"): error: $*" >&2
  exit "$code"
}

sweep_require_number() {
  [[ "$2" =~ ^[0-9]+(\.[0-9]+)?$ ]] || sweep_die "$SWEEP_EXIT_USAGE" "$1 must be a non-negative number, not '$2'"
}

# --step FLAG: sweep another flag, with its own default values, from SWEEP_STEPS.
sweep_choose_step() {
  local entry
  local -a entries
  IFS=';' read -r -a entries <<< "$SWEEP_STEPS"
  for entry in "${entries[@]}"; do
    if [[ "${entry%%=*}" == "$1" ]]; then
      SWEEP_PARAM="$1"
      SWEEP_DEFAULT_VALUES="${entry#*=}"
      return
    fi
  done
  [[ "$1" == "$SWEEP_PARAM" ]] || sweep_die "$SWEEP_EXIT_USAGE" "--step must be $SWEEP_PARAM or $(sweep_step_names), not '$1'"
}

sweep_step_names() {
  local entry names=""
  local -a entries
  IFS=';' read -r -a entries <<< "$SWEEP_STEPS"
  for entry in "${entries[@]}"; do names="${names:+$names, }${entry%%=*}"; done
  echo "$names"
}

sweep_main() {
  local values="$SWEEP_DEFAULT_VALUES" out="" threshold=5 repeat=1
  local min_gain=5 max_failure_pct=1 max_p99_ms="" max_shortfall_pct=1 values_given=0
  local -a fixed=()
  while [[ $# -gt 0 ]]; do
    case "$1" in
      -h|--help) sweep_usage; exit 0 ;;
      --values) [[ $# -ge 2 ]] || sweep_die "$SWEEP_EXIT_USAGE" "--values needs a list"; values="$2"; values_given=1; shift 2 ;;
      --step)
        [[ -n "${SWEEP_STEPS:-}" ]] || sweep_die "$SWEEP_EXIT_USAGE" "--step applies to find-query-saturation.sh only"
        [[ $# -ge 2 ]] || sweep_die "$SWEEP_EXIT_USAGE" "--step needs a flag name"
        sweep_choose_step "$2"
        [[ $values_given == 1 ]] || values="$SWEEP_DEFAULT_VALUES"
        shift 2 ;;
      --out) [[ $# -ge 2 ]] || sweep_die "$SWEEP_EXIT_USAGE" "--out needs a directory"; out="$2"; shift 2 ;;
      --threshold) [[ $# -ge 2 ]] || sweep_die "$SWEEP_EXIT_USAGE" "--threshold needs a number"; sweep_require_number --threshold "$2"; threshold="$2"; shift 2 ;;
      --repeat)
        [[ $# -ge 2 ]] || sweep_die "$SWEEP_EXIT_USAGE" "--repeat needs a count"
        [[ "$2" =~ ^[1-9][0-9]*$ ]] || sweep_die "$SWEEP_EXIT_USAGE" "--repeat must be a whole number of at least 1, not '$2'"
        repeat="$2"; shift 2 ;;
      --min_gain|--max_failure_pct|--max_p99_ms|--max_shortfall_pct)
        # --max_p99_ms also rules values out as the sweet spot of every sweep; the rest are ramp rules.
        [[ "${SWEEP_RAMP:-0}" == 1 || "$1" == --max_p99_ms ]] || sweep_die "$SWEEP_EXIT_USAGE" "$1 applies to ramps (find-query-saturation.sh) only"
        [[ $# -ge 2 ]] || sweep_die "$SWEEP_EXIT_USAGE" "$1 needs a number"
        sweep_require_number "$1" "$2"
        case "$1" in
          --min_gain) min_gain="$2" ;;
          --max_failure_pct) max_failure_pct="$2" ;;
          --max_p99_ms) max_p99_ms="$2" ;;
          --max_shortfall_pct) max_shortfall_pct="$2" ;;
        esac
        shift 2 ;;
      --) shift; fixed=("$@"); break ;;
      *) sweep_die "$SWEEP_EXIT_USAGE" "unknown option '$1' (benchmark options go after '--'; see --help)" ;;
    esac
  done

  local -a value_list
  read -r -a value_list <<< "$values"
  [[ ${#value_list[@]} -gt 0 ]] || sweep_die "$SWEEP_EXIT_USAGE" "--values is empty"
  local v
  # Every value is checked before the first run, as the benchmark will take it: a rate is a
  # positive number, everything else swept a whole number of at least 1.
  for v in "${value_list[@]}"; do
    if [[ "$SWEEP_PARAM" == rate ]]; then
      [[ "$v" =~ ^[0-9]+(\.[0-9]+)?$ && ! "$v" =~ ^0+(\.0+)?$ ]] || sweep_die "$SWEEP_EXIT_USAGE" "'$v' is not a value for --$SWEEP_PARAM: give positive numbers"
    else
      [[ "$v" =~ ^[1-9][0-9]*$ ]] || sweep_die "$SWEEP_EXIT_USAGE" "'$v' is not a value for --$SWEEP_PARAM: give whole numbers of at least 1"
    fi
  done
  local arg
  for arg in "${fixed[@]}"; do
    case "$arg" in
      --"$SWEEP_PARAM"|--"$SWEEP_PARAM"=*) sweep_die "$SWEEP_EXIT_USAGE" "--$SWEEP_PARAM is what this script sweeps: give its values with --values" ;;
      --json|--json=*) sweep_die "$SWEEP_EXIT_USAGE" "--json is added by the sweep; leave it out" ;;
    esac
  done
  command -v node > /dev/null || sweep_die "$SWEEP_EXIT_CANNOT_RUN" "node is not on PATH"

  [[ -n "$out" ]] || out="sweep-results/$SWEEP_NAME-$(date +%Y%m%d-%H%M%S)"
  mkdir -p "$out/runs" 2>/dev/null || sweep_die "$SWEEP_EXIT_USAGE" "--out '$out': cannot create that directory"
  local jsonl="$out/$SWEEP_NAME.jsonl"
  : > "$jsonl"

  # Ctrl-C reaches the running benchmark too; it stops, prints what it measured and exits 4. The
  # sweep records that run, skips the values left and still writes its report.
  local interrupted=0
  trap 'interrupted=1' INT TERM

  local count=${#value_list[@]} index=0 recorded=0 rc reason stopped_because=""
  local fixed_text="${fixed[*]}"
  local times=""
  [[ $repeat == 1 ]] || times=", $repeat runs each"
  echo "$SWEEP_NAME sweep: --$SWEEP_PARAM ${value_list[*]}$times${fixed_text:+ (with $fixed_text)}; results in $out" >&2
  local r run_name
  for v in "${value_list[@]}"; do
    index=$((index + 1))
    for ((r = 1; r <= repeat; r++)); do
      run_name="$SWEEP_PARAM-$v"
      if [[ $repeat -gt 1 ]]; then
        run_name="$run_name-$r"
        echo "[$index/$count] --$SWEEP_PARAM $v (run $r of $repeat)" >&2
      else
        echo "[$index/$count] --$SWEEP_PARAM $v" >&2
      fi
      rc=0
      node "$SWEEP_ROOT/$SWEEP_APP" "${fixed[@]}" "--$SWEEP_PARAM" "$v" --json \
        > "$out/runs/$run_name.json" 2> "$out/runs/$run_name.log" || rc=$?
      case "$rc" in
        0|1|4)
          node "$SWEEP_REPORT" record --file "$jsonl" --parameter "$SWEEP_PARAM" --value "$v" --exit_code "$rc" \
            --result "$out/runs/$run_name.json" || sweep_die "$SWEEP_EXIT_CANNOT_RUN" "could not record the run at --$SWEEP_PARAM $v"
          recorded=$((recorded + 1)) ;;
        *)
          local last_error
          last_error="$(grep -m1 'error:' "$out/runs/$run_name.log" || tail -n1 "$out/runs/$run_name.log")"
          echo "$(basename "$0"): error: the benchmark could not run at --$SWEEP_PARAM $v (exit code $rc): ${last_error:-no output}" >&2
          if [[ $recorded -gt 0 ]]; then
            sweep_report "$jsonl" "$out" "$threshold" "$fixed_text" "stopped at $v: the benchmark could not run" || true
          fi
          # Bad benchmark options stay exit 2; anything else (unreachable, killed) is 3.
          [[ $rc == "$SWEEP_EXIT_USAGE" ]] || rc=$SWEEP_EXIT_CANNOT_RUN
          exit "$rc" ;;
      esac
      [[ $interrupted == 0 ]] || break
    done
    if [[ $interrupted == 1 ]]; then
      stopped_because="interrupted at $v"
      break
    fi
    if [[ "${SWEEP_RAMP:-0}" == 1 ]]; then
      rc=0
      reason="$(node "$SWEEP_REPORT" check --file "$jsonl" --min_gain "$min_gain" --max_failure_pct "$max_failure_pct" --max_shortfall_pct "$max_shortfall_pct" ${max_p99_ms:+--max_p99_ms "$max_p99_ms"})" || rc=$?
      if [[ $rc == 10 ]]; then
        stopped_because="saturated: $reason"
        echo "$stopped_because" >&2
        break
      elif [[ $rc != 0 ]]; then
        sweep_die "$SWEEP_EXIT_CANNOT_RUN" "the saturation check failed at --$SWEEP_PARAM $v"
      fi
    fi
  done
  trap - INT TERM

  sweep_report "$jsonl" "$out" "$threshold" "$fixed_text" "$stopped_because" "$max_p99_ms" || sweep_die "$SWEEP_EXIT_CANNOT_RUN" "could not write the report"
  [[ $interrupted == 0 ]] || exit "$SWEEP_EXIT_INTERRUPTED"
}

sweep_report() {
  local jsonl="$1" out="$2" threshold="$3" fixed_text="$4" note="$5" max_p99_ms="${6:-}"
  local subtitle="${fixed_text:+with $fixed_text}"
  [[ -z "$note" ]] || subtitle="${subtitle:+$subtitle; }$note"
  node "$SWEEP_REPORT" report --file "$jsonl" --parameter "$SWEEP_PARAM" --out "$out/$SWEEP_NAME" \
    --threshold "$threshold" --subtitle "$subtitle" ${max_p99_ms:+--max_p99_ms "$max_p99_ms"} > "$out/$SWEEP_NAME.summary.json" --json
}
