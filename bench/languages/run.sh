#!/usr/bin/env bash
# Runs languages-bench, then times the same CPU workloads natively (Debian's perl, a native ruby
# when installed) and in the same prebuilt .wasm under node's V8 (node:wasi), for comparison.
#   bench/languages/run.sh [languages-bench arguments...]
# BUILD_DIR defaults to build/default.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="${BUILD_DIR:-$root/build/default}"

"$build/bench/languages/languages-bench" "$@"

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

echo "native and V8 baselines (best of 3; native times include interpreter start-up):"
if command -v lua5.4 >/dev/null; then
  echo "lua    native $(lua5.4 -v 2>&1 | cut -d' ' -f2): $(best_ms lua5.4 "$here/workloads/cpu.lua") ms" \
       "(start-up alone $(best_ms lua5.4 -e '') ms)"
else
  echo "lua    native: lua5.4 not installed (apt-get install lua5.4)"
fi
py=/usr/bin/python3.11
[[ -x $py ]] || py=$(command -v python3.11 || true)
if [[ -n "$py" ]]; then
  echo "python native $($py -c 'import sys; print(sys.version.split()[0])'): $(best_ms "$py" "$here/workloads/cpu.py") ms" \
       "(start-up alone $(best_ms "$py" -c pass) ms)"
fi
if command -v node >/dev/null; then
  echo "javascript node $(node --version) (V8 JIT): $(best_ms node "$here/workloads/cpu.js") ms" \
       "(start-up alone $(best_ms node -e 0) ms)"
fi
if command -v perl >/dev/null; then
  echo "perl   native $(perl -e 'print substr($^V, 1)'): $(best_ms perl "$here/workloads/cpu.pl") ms" \
       "(start-up alone $(best_ms perl -e 1) ms)"
fi
if command -v ruby >/dev/null; then
  echo "ruby   native $(ruby -e 'print RUBY_VERSION'): $(best_ms ruby "$here/workloads/cpu.rb") ms" \
       "(start-up alone $(best_ms ruby -e 1) ms)"
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
