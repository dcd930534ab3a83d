#!/usr/bin/env bash
# Checks that the project's own C and C++ files are formatted by .clang-format (Google base,
# 100 columns), with the one clang-format version the project pins: clang-format-19 (installed
# by scripts/bootstrap.sh; another major version formats some constructs differently, so CI and
# contributors must run the same one).
#
#   scripts/check_format.sh         list the files that differ; exit 1 if any does
#   scripts/check_format.sh --fix   rewrite those files in place
#
# Checked: the files git tracks, and the new ones it would (untracked and not ignored, so a file
# is checked before its first commit), under bench/ engines/ include/ src/ tests/ tools/ ending
# in .c, .cc, .h. Left out: build outputs and engine sources downloaded at build time (never tracked),
# what .clang-format-ignore lists (read here, so editors that run clang-format on save and this
# check skip the same files): the fuzz corpora, the scaffold templates, and the guest sources of
# the big engines (the reasons are in that file).
set -euo pipefail
cd "$(dirname "$0")/.."

CLANG_FORMAT=${CLANG_FORMAT:-clang-format-19}
fix=0
case "${1:-}" in
  --fix) fix=1 ;;
  "") ;;
  *) echo "usage: $0 [--fix]" >&2; exit 2 ;;
esac

if ! command -v "$CLANG_FORMAT" >/dev/null 2>&1; then
  echo "check_format: $CLANG_FORMAT not found; install it with scripts/bootstrap.sh" \
       "(Debian package clang-format-19)" >&2
  exit 2
fi

# .clang-format-ignore (globs, one per line, # comments) as grep patterns anchored at the root.
ignored_patterns() {
  sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' .clang-format-ignore |
    sed -e 's/[.]/[.]/g' -e 's/[*]/[^\/]*/g' -e 's/^/^/' -e 's/$/$/'
}

mapfile -t files < <(git ls-files --cached --others --exclude-standard -- 'bench/*.c' 'bench/*.cc' 'bench/*.h' \
    'engines/*.c' 'engines/*.cc' 'engines/*.h' 'include/*.h' \
    'src/*.c' 'src/*.cc' 'src/*.h' 'tests/*.c' 'tests/*.cc' 'tests/*.h' \
    'tools/*.c' 'tools/*.cc' 'tools/*.h' |
  grep -v -f <(ignored_patterns) || true)

if [[ $fix -eq 1 ]]; then
  printf '%s\0' "${files[@]}" | xargs -0 -n 32 -P 2 "$CLANG_FORMAT" -i
  echo "check_format: formatted ${#files[@]} files with $CLANG_FORMAT"
  exit 0
fi

# clang-format names each differing file in its "FILE:LINE:COL: error: code should be
# clang-formatted" lines (one process at a time, so those lines never interleave). Any other
# failure (a bad .clang-format, a missing file) stops the check instead of passing it.
status=0
out=$(printf '%s\0' "${files[@]}" | xargs -0 "$CLANG_FORMAT" --dry-run -Werror 2>&1) || status=$?
mapfile -t bad < <(sed -n \
  's/^\([^ :]*\):[0-9]*:[0-9]*: error: code should be clang-formatted.*/\1/p' <<<"$out" | sort -u)
if [[ $status -ne 0 && ${#bad[@]} -eq 0 ]]; then
  echo "$out" >&2
  echo "check_format: $CLANG_FORMAT failed (exit $status)" >&2
  exit 2
fi
if [[ ${#bad[@]} -gt 0 ]]; then
  printf '%s\n' "${bad[@]}"
  echo "check_format: ${#bad[@]} of ${#files[@]} files are not formatted as .clang-format" \
       "says ($CLANG_FORMAT); fix them with: scripts/check_format.sh --fix" >&2
  exit 1
fi
echo "check_format: ${#files[@]} files formatted ($CLANG_FORMAT)"
