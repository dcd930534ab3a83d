#!/usr/bin/env bash
# Runs languages-bench, then times the same CPU workloads natively (Debian's lua5.4, python3.11,
# perl, node 20 for JavaScript, a native ruby when installed) and in the same prebuilt .wasm under
# node's V8 (node:wasi), and prints each engine's workload time as a ratio to the native one
# (target: within 2x). Native times are taken inside the interpreter around the compilation and
# run of the workload (best of 5), the engine's are the best of 5 evaluations (languages-bench),
# so neither counts an interpreter's start-up.
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
# native LANGUAGE VERSION-TEXT COMMAND...: times the workload inside the native interpreter
# (COMMAND reads the workload's path as its last argument and prints the milliseconds its
# compilation and run took: no interpreter start-up), best of 5, and remembers the ratio.
native() {
  local lang="$1" version="$2" best="" ms engine
  shift 2
  for _ in 1 2 3 4 5; do
    ms=$("$@" "$here/workloads/$(workload_of "$lang")" 2>/dev/null)
    if [[ -z "$best" ]] || awk -v a="$ms" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$ms; fi
  done
  echo "$lang native $version: $best ms"
  engine=$(engine_ms "$lang")
  if [[ -n "$engine" ]]; then
    ratios+=("$(awk -v l="$lang" -v e="$engine" -v n="$best" -v v="$version" 'BEGIN {
      r = e / n; printf "  %-10s %8.1f ms / %7.1f ms (%s) = %5.2fx  %s", l, e, n, v, r, (r <= 2 ? "ok" : "MISSED") }')")
  fi
}
workload_of() {
  case "$1" in
    lua) echo cpu.lua ;; python) echo cpu.py ;; javascript) echo cpu.js ;;
    perl) echo cpu.pl ;; ruby) echo cpu.rb ;;
  esac
}

# Each interpreter compiles and runs the workload file, timed around both (like the engine's
# evaluation), and prints the milliseconds.
lua_timed() {  # lua's -e runs before the script's arguments are set: the path goes in the chunk
  lua5.4 -e "local t = os.clock(); assert(loadfile([[$1]]))()
    io.write(string.format('%.2f', (os.clock() - t) * 1000))"
}
py_timed=(-c 'import sys, time
t = time.perf_counter(); exec(compile(open(sys.argv[1]).read(), sys.argv[1], "exec"), {})
print("%.2f" % ((time.perf_counter() - t) * 1000))')
js_timed=(-e 'const src = require("fs").readFileSync(process.argv[1], "utf8");
const t = performance.now(); (0, eval)(src); console.log((performance.now() - t).toFixed(2));')
pl_timed=(-MTime::HiRes=time -e 'my $src = do { local $/; open my $f, "<", $ARGV[0] or die; <$f> };
my $t = time; eval $src; die $@ if $@; printf "%.2f", (time - $t) * 1000;')
rb_timed=(-e 'src = File.read(ARGV[0]); t = Process.clock_gettime(Process::CLOCK_MONOTONIC)
eval(src, TOPLEVEL_BINDING); printf("%.2f", (Process.clock_gettime(Process::CLOCK_MONOTONIC) - t) * 1000)')

echo "native baselines (the workload timed inside the interpreter, best of 5):"
if command -v lua5.4 >/dev/null; then
  native lua "lua $(lua5.4 -v 2>&1 | cut -d' ' -f2)" lua_timed
else
  echo "lua    native: lua5.4 not installed (apt-get install lua5.4)"
fi
py=/usr/bin/python3.11
[[ -x $py ]] || py=$(command -v python3.11 || true)
if [[ -n "$py" ]]; then
  native python "python $($py -c 'import sys; print(sys.version.split()[0])')" "$py" "${py_timed[@]}"
fi
if command -v node >/dev/null; then
  # V8 with its JIT, and V8's own interpreter alone (--jitless): QuickJS is an interpreter.
  native javascript "node $(node --version), V8 JIT" node "${js_timed[@]}"
  native javascript "node $(node --version) --jitless, V8 interpreter" node --jitless "${js_timed[@]}"
fi
if command -v perl >/dev/null; then
  native perl "perl $(perl -e 'print substr($^V, 1)')" perl "${pl_timed[@]}"
fi
if command -v ruby >/dev/null; then
  native ruby "ruby $(ruby -e 'print RUBY_VERSION')" ruby "${rb_timed[@]}"
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
