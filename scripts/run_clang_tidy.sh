#!/usr/bin/env bash
# Runs clang-tidy-19 (the LLVM version scripts/bootstrap.sh pins, as for clang-format) with the
# checks of .clang-tidy over the project's own code; every finding is an error (exit 1).
#
#   scripts/run_clang_tidy.sh [-j N] [--preset NAME] [--all] [FILE...]
#
# It reads build/<preset>/compile_commands.json (preset `default` unless --preset), which the
# configure step writes (CMAKE_EXPORT_COMPILE_COMMANDS is on in CMakeLists.txt): configure
# first, `cmake --preset default`.
#
# What it checks, and why only that: the translation units of src/ and tools/ (every library
# and tool of the kit), and through them every header of include/sandbox/, src/ and tools/
# (HeaderFilterRegex). These need no generated header, so a configured tree is enough, and they
# fit the CI budget: clang-tidy parses like a compiler and then runs every check over the whole
# AST, Boost and the standard library included, so a translation unit costs 1-50 s of CPU. The
# 108 units of src/ and tools/ took 705 s of CPU in one measured run (with four more checks than
# are kept now): about 6 minutes on CI's 2 cores. tests/, engines/ and bench/ (~170 more units,
# gtest and Boost heavy) would more than double it, past CI's budget. `--all`
# checks those too (it needs a full build, for the wasm2c headers the engine and test units
# include) for a local run. Never checked: the C files wasm2c generates and the engine sources
# downloaded at build time (all under build/), and the scaffold templates (not C++ until filled).
#
# FILE... checks just those files (paths in the compile database), e.g. while fixing findings.
set -euo pipefail
cd "$(dirname "$0")/.."

CLANG_TIDY=${CLANG_TIDY:-clang-tidy-19}
RUN_CLANG_TIDY=${RUN_CLANG_TIDY:-run-clang-tidy-19}
jobs=2
preset=default
scope='src|tools'
files=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    -j) jobs=$2; shift 2 ;;
    -j*) jobs=${1#-j}; shift ;;
    --preset) preset=$2; shift 2 ;;
    --all) scope='src|tools|engines|tests|bench'; shift ;;
    -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
    -*) echo "run_clang_tidy: unknown option $1" >&2; exit 2 ;;
    *) files+=("$1"); shift ;;
  esac
done

for tool in "$CLANG_TIDY" "$RUN_CLANG_TIDY"; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "run_clang_tidy: $tool not found; install it with scripts/bootstrap.sh" \
         "(Debian package clang-tidy-19)" >&2
    exit 2
  fi
done
db=build/$preset/compile_commands.json
if [[ ! -f $db ]]; then
  echo "run_clang_tidy: $db is missing; configure first: cmake --preset $preset" >&2
  exit 2
fi

# run-clang-tidy takes regular expressions over the absolute paths of the database.
root=$(pwd -P)
quote() { sed 's/[][\.*^$+?(){}|]/\\&/g' <<<"$1"; }
if [[ ${#files[@]} -gt 0 ]]; then
  patterns=()
  for f in "${files[@]}"; do patterns+=("^$(quote "$(realpath -m "$f")")\$"); done
else
  patterns=("^$(quote "$root")/($scope)/.*\\.(c|cc)\$")
fi

start=$(date +%s)
# -Wthread-safety: the lock annotations (src/base/thread_annotations.h), which the default
# preset's gcc does not check; .clang-tidy keeps them as clang-diagnostic-thread-safety*.
# -Wno-deprecated-declarations: clang flags std::get_temporary_buffer inside libstdc++ 12's
# std::stable_sort (as in the fuzz preset); -Wno-unknown-warning-option: gcc-only -W flags of the
# compile commands. Both are about the toolchain, not our code. The grep drops clang-tidy's
# per-file counts of the warnings it suppressed in system headers.
set +e +o pipefail
"$RUN_CLANG_TIDY" -clang-tidy-binary "$(command -v "$CLANG_TIDY")" -p "build/$preset" -j "$jobs" \
    -quiet -extra-arg=-Wthread-safety -extra-arg=-Wno-deprecated-declarations \
    -extra-arg=-Wno-unknown-warning-option \
    "${patterns[@]}" 2>&1 |
  grep -v -E '^[0-9]+ warnings? (and [0-9]+ errors? )?generated\.$|^Suppressed [0-9]+ warnings|^Use -header-filter=|^$'
status=${PIPESTATUS[0]}
set -e -o pipefail
elapsed=$(($(date +%s) - start))
if [[ $status -ne 0 ]]; then
  echo "run_clang_tidy: findings above (${elapsed} s); fix them, or if a check is wrong for" \
       "a line, silence it there with // NOLINT(check-name): why" >&2
  exit 1
fi
echo "run_clang_tidy: no findings (${elapsed} s, -j $jobs)"
