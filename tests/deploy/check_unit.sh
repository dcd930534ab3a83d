#!/usr/bin/env bash
# Checks a unit of deploy/ as systemd would read it: `systemd-analyze verify` (syntax,
# directives, the ExecStart binary; any complaint at all) and an offline `systemd-analyze security` exposure score at
# most MAX_EXPOSURE (0-100; systemd prints it divided by ten).
#   check_unit.sh UNIT BINARY [INSTANCE]
# BINARY is this build's program, put in place of the installed /usr/bin path; a template unit
# (NAME@.service) is checked as its INSTANCE (NAME@INSTANCE.service).
set -euo pipefail
unit=$1 binary=$2 instance=${3:-}
max_exposure=${MAX_EXPOSURE:-20}
if ! command -v systemd-analyze >/dev/null; then
  echo "systemd-analyze is not installed (Debian package systemd)" >&2
  exit 1
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
name=$(basename "$unit")
[[ -n "$instance" ]] && name=${name/@./@${instance}.}
# The unit names the installed path (INSTALLED, /usr/bin/NAME by default); verify it against
# this build's binary.
installed=${INSTALLED:-/usr/bin/$(basename "$binary")}
sed "s#${installed}#${binary}#" "$unit" > "$dir/$name"
# verify exits 0 on some mistakes (an environment assignment it ignores): any output fails too.
systemd-analyze verify "$dir/$name" > "$dir/verify.txt" 2>&1 || { cat "$dir/verify.txt"; exit 1; }
if [[ -s "$dir/verify.txt" ]]; then
  cat "$dir/verify.txt"
  exit 1
fi
systemd-analyze security --offline=yes --threshold="$max_exposure" "$dir/$name" \
  > "$dir/security.txt" || { cat "$dir/security.txt"; exit 1; }
grep 'Overall exposure level' "$dir/security.txt"
