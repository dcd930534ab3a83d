#!/usr/bin/env bash
# Fetches one pinned npm package tarball into the download cache, verifies it, and unpacks it.
#
#   npm-package.sh --spec @6over3/zeroperl-ts@1.0.10 --integrity sha512-<base64> \
#                  --cache <dir> --dest <dir> [--stamp <file>]
#
# The tarball is kept as <cache>/npm/<name>-<version>.tgz (a scoped name's '/' becomes '-').
# Every run checks it against the pinned dist.integrity (Subresource-Integrity form, sha512)
# before unpacking; a mismatch is an error. A missing tarball is fetched with `npm pack`, which
# only talks to the configured registry. <dest> is replaced by the tarball's contents (the
# `package/` folder of an npm tarball); the stamp file is written last.
set -euo pipefail

spec="" integrity="" cache="" dest="" stamp=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --spec) spec="$2"; shift 2 ;;
    --integrity) integrity="$2"; shift 2 ;;
    --cache) cache="$2"; shift 2 ;;
    --dest) dest="$2"; shift 2 ;;
    --stamp) stamp="$2"; shift 2 ;;
    *) echo "npm-package.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
for v in spec integrity cache dest; do
  [[ -n "${!v}" ]] || { echo "npm-package.sh: --$v is required" >&2; exit 2; }
done

log() { echo "-- [fetch $spec] $*"; }
die() { echo "error: [fetch $spec] $*" >&2; exit 1; }

# name@version, where name may be @scope/name; the version must be exact.
name="${spec%@*}"
version="${spec##*@}"
[[ -n "$name" && "$name" != "$spec" && "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+ ]] ||
  die "the spec must be name@exact-version"
algo="${integrity%%-*}"
[[ "$algo" == "sha512" ]] || die "only sha512 integrity is supported (got '$algo')"
command -v npm >/dev/null || die "npm is not installed (apt-get install npm, or nodejs from the project's bootstrap)"

dir="$cache/npm"
mkdir -p "$dir"
tgz="$dir/$(tr '/' '-' <<<"${name#@}")-$version.tgz"
want=$(base64 -d <<<"${integrity#*-}" | od -An -v -tx1 | tr -d ' \n')

exec 9>"$tgz.lock"
flock 9

verify() {
  local got
  got=$(sha512sum "$1" | cut -d' ' -f1)
  [[ "$got" == "$want" ]]
}

if [[ -f "$tgz" ]] && ! verify "$tgz"; then
  die "$tgz does not match the pinned integrity $integrity. Delete it to fetch again; if the registry changed the package, update the pin deliberately."
fi
if [[ ! -f "$tgz" ]]; then
  tmp=$(mktemp -d "$dir/.download.XXXXXX")
  log "downloading with npm pack"
  if ! out=$(npm pack "$spec" --pack-destination "$tmp" --cache "$cache/npm-cache" \
                 --ignore-scripts --silent 2>&1); then
    rm -rf "$tmp"
    die "npm pack failed: $out"
  fi
  got=$(ls "$tmp"/*.tgz 2>/dev/null | head -1)
  [[ -n "$got" ]] || { rm -rf "$tmp"; die "npm pack produced no tarball: $out"; }
  if ! verify "$got"; then
    rm -rf "$tmp"
    die "the registry's tarball does not match the pinned integrity $integrity"
  fi
  mv "$got" "$tgz"
  rm -rf "$tmp"
fi
log "verified $(basename "$tgz") ($integrity)"

mkdir -p "$(dirname "$dest")"
exec 8>"$dest.lock"
flock 8
rm -rf "$dest"
mkdir -p "$dest"
tar xzf "$tgz" -C "$dest" --no-same-owner
if [[ -n "$stamp" ]]; then
  mkdir -p "$(dirname "$stamp")"
  printf '%s %s\n' "$spec" "$integrity" > "$stamp"
fi
