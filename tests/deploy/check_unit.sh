#!/usr/bin/env bash
# Checks deploy/sandboxd.service as systemd would read it: `systemd-analyze verify` (syntax,
# directives, the ExecStart binary) and an offline `systemd-analyze security` exposure score at
# most MAX_EXPOSURE (0-100; systemd prints it divided by ten). Usage: check_unit.sh UNIT SANDBOXD
set -euo pipefail
unit=$1 sandboxd=$2
max_exposure=${MAX_EXPOSURE:-20}
if ! command -v systemd-analyze >/dev/null; then
  echo "systemd-analyze is not installed (Debian package systemd)" >&2
  exit 1
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# The unit names the installed path; verify it against this build's binary.
sed "s#/usr/bin/sandboxd#${sandboxd}#" "$unit" > "$dir/sandboxd.service"
systemd-analyze verify "$dir/sandboxd.service"
systemd-analyze security --offline=yes --threshold="$max_exposure" "$dir/sandboxd.service" \
  > "$dir/security.txt" || { cat "$dir/security.txt"; exit 1; }
grep 'Overall exposure level' "$dir/security.txt"
