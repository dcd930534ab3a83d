#!/usr/bin/env bash
# Applies the security and bug-fix patches of Debian's python3.11 source package to the
# upstream tree: CVE-*, the upstream 3.11 backports (0NNN-3.11-*), relfile-*,
# frame_dealloc-crash, shutdown-deadlock and skip-xml-*, in the order of debian/patches/series.
# Debian's layout patches (multiarch, deb-*, distutils, ...) serve the native .deb and are
# skipped. Runs on a freshly unpacked tree (dpkg-source -x --skip-patches).
#   apply_patches.sh <source dir>
set -euo pipefail
src="${1:?usage: apply_patches.sh <source dir>}"
series="$src/debian/patches/series"
[[ -f "$series" ]] || { echo "error: $series not found" >&2; exit 1; }
count=0
while read -r p _; do
  [[ -z "$p" || "$p" == \#* ]] && continue
  [[ "$p" =~ ^(CVE-|0[0-9]{3}-3\.11-|relfile-|frame_dealloc-crash|shutdown-deadlock|skip-xml-) ]] || continue
  if ! out=$(patch -d "$src" -p1 --forward --batch -s < "$src/debian/patches/$p" 2>&1); then
    echo "error: Debian patch $p does not apply: $out" >&2
    exit 1
  fi
  count=$((count + 1))
done < "$series"
[[ $count -gt 0 ]] || { echo "error: no patch of $series matched" >&2; exit 1; }
echo "-- [python3.11] applied $count Debian security/bug-fix patches"
