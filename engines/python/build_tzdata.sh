#!/usr/bin/env bash
# Compiles the IANA time-zone database of Debian's tzdata source package with the host's zic, as
# Debian's debian/rules does (tzdata.zi with the backward links and the backzone data), into
# <out>: one TZif file per zone, which make_stdlib_zip.py packs as the guest's `tzdata` package.
#
#   build_tzdata.sh --src <tzdata source dir> --out <dir>
set -euo pipefail
src="" out=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --src) src="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    *) echo "build_tzdata.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[[ -n "$src" && -n "$out" ]] || { echo "usage: build_tzdata.sh --src <dir> --out <dir>" >&2; exit 2; }
die() { echo "error: [tzdata] $*" >&2; exit 1; }
zic=$(command -v zic || echo /usr/sbin/zic)
[[ -x "$zic" ]] || die "zic (package libc-bin) is needed to compile the time-zone database"
[[ -f "$src/version" ]] || die "$src is not a tzdata source tree (no version file)"

work="$out.work"
rm -rf "$work" "$out"
cp -a "$src" "$work"
make -C "$work" AWK=awk BACKWARD=backward PACKRATDATA=backzone PACKRATLIST=zone.tab \
  VERSION_DEPS= tzdata.zi > "$work.log" 2>&1 || die "make tzdata.zi failed; see $work.log"
"$zic" -d "$out" -L /dev/null "$work/tzdata.zi" 2>>"$work.log" || die "zic failed; see $work.log"
[[ -f "$out/Europe/Paris" && -f "$out/UTC" ]] || die "zic produced no Europe/Paris or UTC in $out"
rm -rf "$work"
echo "-- [tzdata] $(cat "$src/version"): $(find "$out" -type f | wc -l) zones in $out"
