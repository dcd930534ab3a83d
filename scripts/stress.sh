#!/usr/bin/env bash
# Finds tests that fail only now and then, before CI does: runs the concurrency-labelled tests
# (and, in the asan build, the signal-driven ones) of the asan and tsan builds repeatedly while
# busy loops keep every core loaded, the condition under which CI's sanitizer runs failed at
# random. Stops at the first failure (ctest --repeat until-fail) and names it.
#
#   scripts/stress.sh                    # both builds, 20 rounds each, one busy loop per core
#   STRESS_REPEAT=100 STRESS_PRESETS=asan STRESS_REGEX=Deadline scripts/stress.sh
#
# STRESS_REPEAT   rounds of each test (default 20)
# STRESS_LOAD     busy loops beside the tests (default: one per core)
# STRESS_PRESETS  the builds to run, of asan and tsan (default: "asan tsan")
# STRESS_REGEX    only the tests whose name matches (ctest -R), default: all of the labels
# The builds must exist (make stress builds them first).
set -euo pipefail
cd "$(dirname "$0")/.."

repeat=${STRESS_REPEAT:-20}
load=${STRESS_LOAD:-$(nproc)}
presets=${STRESS_PRESETS:-asan tsan}
regex=${STRESS_REGEX:-}
jobs=$(nproc)

[[ "$repeat" =~ ^[1-9][0-9]*$ ]] || { echo "stress: STRESS_REPEAT must be a positive integer" >&2; exit 2; }
[[ "$load" =~ ^[0-9]+$ ]] || { echo "stress: STRESS_LOAD must be a number" >&2; exit 2; }

busy=()
stop_load() {
  if ((${#busy[@]} > 0)); then kill "${busy[@]}" 2>/dev/null || true; fi
  busy=()
}
trap stop_load EXIT INT TERM
for ((i = 0; i < load; ++i)); do
  (while :; do :; done) &
  busy+=($!)
done
echo "stress: $load busy loop(s) running; $repeat round(s) of each test" >&2

status=0
for preset in $presets; do
  case "$preset" in
    asan) labels='concurrency|signals' ;;
    tsan) labels='concurrency' ;;
    *) echo "stress: unknown preset '$preset' (asan or tsan)" >&2; exit 2 ;;
  esac
  if [[ ! -d "build/$preset" ]]; then
    echo "stress: build/$preset is missing: run make stress (it builds it)" >&2
    exit 2
  fi
  args=(--preset "$preset" -j "$jobs" -L "$labels" --repeat "until-fail:$repeat")
  [[ -n "$regex" ]] && args+=(-R "$regex")
  echo "== stress: $preset (labels $labels)" >&2
  start=$(date +%s)
  if ! ctest "${args[@]}"; then
    status=1
    echo "stress: $preset failed (see above); rerun one test with STRESS_REGEX=NAME" >&2
  fi
  echo "== stress: $preset took $(($(date +%s) - start)) s" >&2
done
exit $status
