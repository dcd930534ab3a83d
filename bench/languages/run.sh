#!/usr/bin/env bash
# Runs languages-bench, then times the same CPU workloads natively (Debian's lua5.4, python3.11,
# perl, node 20 for JavaScript, a native ruby when installed) and in the same prebuilt .wasm under
# node's V8 (node:wasi), and prints each engine's workload time as a ratio to the native one
# (target: within 2x). Native times are best of 3 with the interpreter's start-up subtracted, the
# engine's are the best of 3 evaluations (languages-bench), so both count the program alone.
#   bench/languages/run.sh [languages-bench arguments...]
# BUILD_DIR defaults to build/default.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="${BUILD_DIR:-$root/build/default}"

out="$(mktemp)"
trap 'rm -f "$out"' EXIT
"$build/bench/languages/languages-bench" "$@" | tee "$out"

# The engine's best workload time for a language, from languages-bench's output.
engine_ms() {
  awk -v lang="$1" '$1 == lang && $2 == "workload" { for (i = 1; i <= NF; i++) if ($i == "best") print $(i + 1) }' "$out"
}
ratios=()
# native LANGUAGE VERSION-TEXT COMMAND...: prints the native time and remembers the ratio.
native() {
  local lang="$1" version="$2"
  shift 2
  local total startup program engine
  total=$(best_ms "$@" "$here/workloads/$(workload_of "$lang")")
  local empty
  case "$lang" in
    lua | ruby) empty=(-e "") ;; python) empty=(-c pass) ;; javascript) empty=(-e 0) ;; perl) empty=(-e 1) ;;
  esac
  startup=$(best_ms "$@" "${empty[@]}")
  program=$(( total > startup ? total - startup : 1 ))
  echo "$lang native $version: $total ms, start-up alone $startup ms, program $program ms"
  engine=$(engine_ms "$lang")
  if [[ -n "$engine" ]]; then
    ratios+=("$(awk -v l="$lang" -v e="$engine" -v n="$program" -v v="$version" 'BEGIN {
      r = e / n; printf "  %-10s %8.1f ms / %6d ms (%s) = %5.2fx  %s", l, e, n, v, r, (r <= 2 ? "ok" : "MISSED") }')")
  fi
}
workload_of() {
  case "$1" in
    lua) echo cpu.lua ;; python) echo cpu.py ;; javascript) echo cpu.js ;;
    perl) echo cpu.pl ;; ruby) echo cpu.rb ;;
  esac
}

# Best of 3 wall-clock runs of a command, in ms (interpreter start-up included).
best_ms() {
  local best="" start end ms
  for _ in 1 2 3; do
    start=$(date +%s%N)
    "$@" >/dev/null
    end=$(date +%s%N)
    ms=$(( (end - start) / 1000000 ))
    if [[ -z "$best" || $ms -lt $best ]]; then best=$ms; fi
  done
  echo "$best"
}

echo "native baselines (best of 3 wall-clock runs, start-up measured separately):"
if command -v lua5.4 >/dev/null; then
  native lua "lua $(lua5.4 -v 2>&1 | cut -d' ' -f2)" lua5.4
else
  echo "lua    native: lua5.4 not installed (apt-get install lua5.4)"
fi
py=/usr/bin/python3.11
[[ -x $py ]] || py=$(command -v python3.11 || true)
if [[ -n "$py" ]]; then
  native python "python $($py -c 'import sys; print(sys.version.split()[0])')" "$py"
fi
if command -v node >/dev/null; then
  native javascript "node $(node --version), V8 JIT" node
fi
if command -v perl >/dev/null; then
  native perl "perl $(perl -e 'print substr($^V, 1)')" perl
fi
if command -v ruby >/dev/null; then
  native ruby "ruby $(ruby -e 'print RUBY_VERSION')" ruby
else
  echo "ruby   native: not installed (apt-get install ruby); compared under node:wasi below"
fi
if command -v node >/dev/null; then
  ruby_wasm="$build/engines/ruby/npm/package/dist/ruby+stdlib.wasm"
  perl_wasm="$build/engines/perl/npm/package/dist/esm/zeroperl.wasm"
  if [[ -f "$ruby_wasm" ]]; then
    echo "ruby   node $(node --version) (V8, node:wasi), same ruby+stdlib.wasm: " \
         "$(node --no-warnings "$here/node_wasi.mjs" ruby "$ruby_wasm" "$here/workloads/cpu.rb") ms (eval only)"
  fi
  if [[ -f "$perl_wasm" ]]; then
    echo "perl   node $(node --version) (V8, node:wasi), same zeroperl.wasm: " \
         "$(node --no-warnings "$here/node_wasi.mjs" perl "$perl_wasm" "$here/workloads/cpu.pl") ms (eval only)"
  fi
fi

echo "CPU workload, engine / native (target <= 2x):"
for r in "${ratios[@]}"; do echo "$r"; done
