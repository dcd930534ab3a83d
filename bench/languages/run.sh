#!/usr/bin/env bash
# Runs languages-bench, then times the same CPU workloads natively (Debian's lua5.4, python3.11,
# perl, node 20 for JavaScript, a native ruby when installed) and in the same prebuilt .wasm under
# node's V8 (node:wasi), and prints each engine's workload time as a ratio to the native one
# (target: within 2x). Native times are taken inside the interpreter around the compilation and
# run of the workload, the engine's around its evaluation (languages-bench --cpu-only), so
# neither counts an interpreter's start-up; the two alternate three times and each keeps its best.
#   bench/languages/run.sh [languages-bench arguments...]
# BUILD_DIR defaults to build/default.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="${BUILD_DIR:-$root/build/default}"

"$build/bench/languages/languages-bench" "$@"

# The engine's best workload time for a language (languages-bench --cpu-only).
engine_ms() {
  "$build/bench/languages/languages-bench" --cpu-only "$1" |
    awk -v lang="$1" '$1 == lang && $2 == "workload" { for (i = 1; i <= NF; i++) if ($i == "best") print $(i + 1) }'
}
# The native interpreter's best of 5 (COMMAND reads the workload's path as its last argument and
# prints the milliseconds its compilation and run took: no interpreter start-up).
native_ms() {
  local lang="$1" best="" ms
  shift
  for _ in 1 2 3 4 5; do
    ms=$("$@" "$here/workloads/$(workload_of "$lang")" 2>/dev/null)
    best=$(min "$best" "$ms")
  done
  echo "$best"
}
min() { awk -v a="$1" -v b="$2" 'BEGIN { print (a == "" || b + 0 < a + 0) ? b : a }'; }
ratios=()
# native LANGUAGE VERSION-TEXT COMMAND...: the engine and the native interpreter, alternately
# three times (the machine's speed drifts: each side keeps its best), and the ratio.
native() {
  local lang="$1" version="$2" engine program
  shift 2
  engine=$(engine_ms "$lang")
  program=$(native_ms "$lang" "$@")
  if [[ -z "$engine" ]]; then
    echo "$lang native $version: $program ms (the engine is not built)"
    return
  fi
  for _ in 2 3; do
    engine=$(min "$engine" "$(engine_ms "$lang")")
    program=$(min "$program" "$(native_ms "$lang" "$@")")
  done
  echo "$lang native $version: $program ms (engine $engine ms)"
  # The 2x target is for the engines built from source; ruby and perl run prebuilt modules
  # (ruby.wasm, zeroperl) whose speed is theirs: their ratio is reported, not judged.
  local judged=1
  [[ $lang == ruby || $lang == perl ]] && judged=0
  ratios+=("$(awk -v l="$lang" -v e="$engine" -v n="$program" -v v="$version" -v j="$judged" 'BEGIN {
    r = e / n; verdict = !j ? "(prebuilt module: no target)" : (r <= 2 ? "ok" : "MISSED")
    printf "  %-10s %8.1f ms / %7.1f ms (%s) = %5.2fx  %s", l, e, n, v, r, verdict }')")
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

echo "CPU workload: the engine (best of 5 evaluations) and the native interpreter (the workload"
echo "timed inside it, best of 5), alternately three times:"
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

echo "CPU workload, engine / native (target for the engines built from source: <= 2x):"
for r in "${ratios[@]}"; do echo "$r"; done
