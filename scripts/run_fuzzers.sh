#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz (the `fuzz` preset: clang-19, ASan+UBSan) and runs
# each for a bounded time against a copy of its committed seed corpus, so nothing is written into
# the tree. Fails when a target crashes, leaks, times out or runs out of memory; the input that
# did it is kept in build/fuzz/fuzz-out/<target>/ (minimize it with
# `build/fuzz/tests/fuzz/<target> -minimize_crash=1 -runs=10000 FILE`, then commit it to
# tests/fuzz/corpus/<target>/ as a regression input).
#
#   FUZZ_SECONDS   seconds per target (default 20)
#   FUZZ_TARGETS   space-separated subset of targets (default: all)
#   FUZZ_JOBS      build parallelism (default 2)
#
# Prints one line per target: its result, executions, exec/s, coverage (edges) and corpus size.
set -uo pipefail

cd "$(dirname "$0")/.."
root=$PWD
seconds=${FUZZ_SECONDS:-20}
jobs=${FUZZ_JOBS:-2}
all_targets=(fuzz_runtime_requests fuzz_sandbox_requests fuzz_workspace fuzz_wasi fuzz_snapshot
             fuzz_zip_archive fuzz_wasm_binary fuzz_http_requests fuzz_event_stream
             fuzz_mcp_requests fuzz_worker_messages fuzz_channel_frames)
read -r -a targets <<<"${FUZZ_TARGETS:-${all_targets[*]}}"

export CCACHE_BASEDIR=$root CCACHE_NOHASHDIR=true
# Symbolized stacks in crash reports.
if [[ -z ${ASAN_SYMBOLIZER_PATH:-} ]] && command -v llvm-symbolizer >/dev/null; then
  export ASAN_SYMBOLIZER_PATH=$(command -v llvm-symbolizer)
fi
start=$(date +%s)
if ! cmake --preset fuzz >/dev/null; then
  echo "run_fuzzers: configuring the fuzz preset failed" >&2
  exit 1
fi
if ! cmake --build build/fuzz -j "$jobs" --target "${targets[@]}" >build/fuzz/fuzz-build.log 2>&1; then
  tail -50 build/fuzz/fuzz-build.log >&2
  echo "run_fuzzers: building the fuzz targets failed (build/fuzz/fuzz-build.log)" >&2
  exit 1
fi
echo "run_fuzzers: built in $(($(date +%s) - start)) s; ${seconds} s per target"

out=$root/build/fuzz/fuzz-out
failed=0
for target in "${targets[@]}"; do
  work=$out/$target
  rm -rf "$work"
  mkdir -p "$work/corpus" "$work/artifacts"
  cp -r "tests/fuzz/corpus/$target/." "$work/corpus/"
  log=$work/fuzz.log
  # detect_leaks stays on; the target's threads (HTTP server, SQLite) are created once and
  # never torn down, so exit-time leak checks would only see what they still hold.
  "build/fuzz/tests/fuzz/$target" "$work/corpus" \
    -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
    -artifact_prefix="$work/artifacts/" >"$log" 2>&1
  status=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  units=$(find "$work/corpus" -type f | wc -l)
  if [[ $status -eq 0 ]]; then
    result=ok
  else
    result=FAILED
    failed=1
  fi
  printf '%-24s %-6s execs=%-9s exec/s=%-6s cov=%-6s corpus=%s\n' \
    "$target" "$result" "${execs:-?}" "${speed:-?}" "${cov:-?}" "$units"
  if [[ $status -ne 0 ]]; then
    grep -aE 'ERROR|SUMMARY|==[0-9]+==|check failed|answered|Test unit written' "$log" | head -20 | sed 's/^/    /'
    echo "    log: $log"
  fi
done
echo "run_fuzzers: done in $(($(date +%s) - start)) s"
exit $failed
