#!/usr/bin/env bash
# The micro-benchmarks of the project, one after the other (about five minutes on two cores):
#   bench/run.sh [BUILD_DIR]        (default build/default; `make bench-micro` builds first)
# The per-language table against the upstream and process-spawn models is bench/run
# (`make bench`, bench/results.md).
# Each prints its figures next to a baseline measured in the same run, and its targets:
#   stateless_http  calc `1+1` over HTTP (1/8/64 connections) against GET /interpreter
#   wasm            the pipeline's CPU cost against native gcc -O2, instantiate+free, fuel cost
#   contexts        a 32 MiB image with a one-page change: step, cold restore, bytes per step
#   languages       each language engine: stateless 1+1, a CPU workload against the native
#                   interpreter, context snapshot/step/restore
#   snapshot        micro-benchmarks of hashing, chunk planning and zstd (Google Benchmark)
# Run one alone with its own command below.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$(cd "${1:-$root/build/default}" && pwd)"

section() { printf '\n==== %s ====\n' "$1"; }

section "stateless_http (bench/stateless_http/run.sh)"
"$root/bench/stateless_http/run.sh" "$build"
section "wasm ($build/bench/wasm/bench_wasm)"
"$build/bench/wasm/bench_wasm"
section "contexts ($build/bench/contexts/contexts-bench)"
# It measures the tests' kv engine: a build without the tests has neither.
if [[ -x $build/bench/contexts/contexts-bench ]]; then
  "$build/bench/contexts/contexts-bench"
else
  echo "skipped: this build has no tests, so no kv engine (SANDBOX_BUILD_TESTS=OFF)"
fi
section "languages (bench/languages/run.sh)"
BUILD_DIR="$build" "$root/bench/languages/run.sh"
section "snapshot ($build/bench/snapshot/snapshot_bench)"
"$build/bench/snapshot/snapshot_bench"
