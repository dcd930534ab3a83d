#!/usr/bin/env bash
# Installs a pinned set of npm packages (a package.json plus its package-lock.json, which records
# every package's exact version and dist.integrity) into a directory of the build tree.
#
#   npm-ci.sh --project <dir with package.json and package-lock.json> --cache <dir> \
#             --dest <dir> [--stamp <file>]
#
# `npm ci` installs exactly what the lock file says and verifies each tarball's integrity; it
# refuses to run when package.json and the lock file disagree. Install scripts never run. The
# tarballs are cached in <cache>/npm-cache, so a second install needs no network.
set -euo pipefail

project="" cache="" dest="" stamp=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --project) project="$2"; shift 2 ;;
    --cache) cache="$2"; shift 2 ;;
    --dest) dest="$2"; shift 2 ;;
    --stamp) stamp="$2"; shift 2 ;;
    *) echo "npm-ci.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
for v in project cache dest; do
  [[ -n "${!v}" ]] || { echo "npm-ci.sh: --$v is required" >&2; exit 2; }
done
die() { echo "error: [npm ci $project] $*" >&2; exit 1; }
command -v npm >/dev/null || die "npm is not installed (apt-get install npm, or nodejs from the project's bootstrap)"
[[ -f "$project/package.json" && -f "$project/package-lock.json" ]] ||
  die "package.json and package-lock.json are required"

mkdir -p "$(dirname "$dest")" "$cache/npm-cache"
# Two builds of the same tree at once (two ninja processes) must not install over each other.
exec 8>"$dest.lock"
flock 8
rm -rf "$dest"
mkdir -p "$dest"
cp "$project/package.json" "$project/package-lock.json" "$dest/"
echo "-- [npm ci] installing the packages pinned in $project/package-lock.json"
if ! out=$(cd "$dest" && npm ci --ignore-scripts --no-audit --no-fund --prefer-offline \
                  --cache "$cache/npm-cache" 2>&1); then
  die "npm ci failed: $out"
fi
if [[ -n "$stamp" ]]; then
  mkdir -p "$(dirname "$stamp")"
  sha256sum "$project/package-lock.json" > "$stamp"
fi
