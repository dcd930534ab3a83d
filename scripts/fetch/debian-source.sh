#!/usr/bin/env bash
# Fetches one pinned Debian source package into the download cache, verifies it, and unpacks it.
#
#   debian-source.sh --name lua5.4 --version 5.4.4-3+deb12u1 --dsc-sha256 <hex> \
#                    --cache <dir> --dest <dir> [--skip-patches] [--stamp <file>]
#
# The cache keeps the .dsc and the files it lists under <cache>/debian/<name>_<version>/.
# Every run verifies the .dsc against the pinned sha256 and every listed file against the
# .dsc's Checksums-Sha256 before anything is unpacked; a mismatch is an error, never a silent
# re-download. Downloads use `apt-get source --download-only`, which needs a deb-src entry: when
# there is none and we are root, one is added (same URIs, suites, components and key as the
# existing deb entries) and `apt-get update` runs; otherwise the error says what to run.
#
# <dest> is replaced by the unpacked tree (dpkg-source -x; with --skip-patches the Debian
# patches are not applied and debian/ is left for the caller). The stamp file, written last,
# records what was unpacked.
set -euo pipefail

name="" version="" dsc_sha256="" cache="" dest="" skip_patches=0 stamp=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --name) name="$2"; shift 2 ;;
    --version) version="$2"; shift 2 ;;
    --dsc-sha256) dsc_sha256="$2"; shift 2 ;;
    --cache) cache="$2"; shift 2 ;;
    --dest) dest="$2"; shift 2 ;;
    --stamp) stamp="$2"; shift 2 ;;
    --skip-patches) skip_patches=1; shift ;;
    *) echo "debian-source.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
for v in name version dsc_sha256 cache dest; do
  [[ -n "${!v}" ]] || { echo "debian-source.sh: --${v//_/-} is required" >&2; exit 2; }
done

log() { echo "-- [fetch $name $version] $*"; }
die() { echo "error: [fetch $name $version] $*" >&2; exit 1; }

# The upstream part of a Debian version names the .dsc: epoch dropped.
dsc_version="${version#*:}"
pkgdir="$cache/debian/${name}_${dsc_version}"
dsc="$pkgdir/${name}_${dsc_version}.dsc"
mkdir -p "$pkgdir"

# Lists "sha256 size filename" for each file of the .dsc (its Checksums-Sha256 field).
dsc_files() {
  awk '/^Checksums-Sha256:/ {f=1; next} /^[^ ]/ {f=0} f && NF==3 {print $1, $2, $3}' "$1"
}

# Returns 0 when the cached .dsc and all its files are present and match.
verify_cache() {
  [[ -f "$dsc" ]] || return 1
  local got
  got=$(sha256sum "$dsc" | cut -d' ' -f1)
  if [[ "$got" != "$dsc_sha256" ]]; then
    die "$dsc has sha256 $got, expected $dsc_sha256 (the pin in the engine's CMakeLists.txt). Delete $pkgdir to fetch again; if the archive changed the package, update the pin deliberately."
  fi
  local sum size file missing=0
  while read -r sum size file; do
    if [[ ! -f "$pkgdir/$file" ]]; then missing=1; continue; fi
    got=$(sha256sum "$pkgdir/$file" | cut -d' ' -f1)
    [[ "$got" == "$sum" ]] || die "$pkgdir/$file has sha256 $got, but the .dsc says $sum. Delete $pkgdir to fetch again."
  done < <(dsc_files "$dsc")
  [[ $missing -eq 0 ]]
}

has_deb_src() {
  grep -rqsE '^[[:space:]]*(Types:.*deb-src|deb-src[[:space:]])' /etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null
}

add_deb_src() {
  local base=/etc/apt/sources.list.d/debian.sources target=/etc/apt/sources.list.d/debian-src.sources
  local hint="add a deb-src entry (as root: sed 's/^Types: deb\$/Types: deb-src/' $base > $target && apt-get update)"
  if [[ $(id -u) -ne 0 ]]; then
    die "apt has no deb-src entry and this build is not running as root; $hint, then build again."
  fi
  [[ -f "$base" ]] || die "apt has no deb-src entry and $base does not exist to derive one from; $hint."
  log "adding $target (deb-src twin of $base) and running apt-get update"
  sed 's/^Types: deb$/Types: deb-src/' "$base" > "$target.tmp"
  mv "$target.tmp" "$target"
  apt-get update -qq || die "apt-get update failed after adding $target"
}

download() {
  has_deb_src || add_deb_src
  local tmp out
  tmp=$(mktemp -d "$pkgdir/.download.XXXXXX")
  log "downloading with apt-get source --download-only ${name}=${version}"
  # An exact version (name=version) pins the package; apt warns harmlessly that it downloads
  # unsandboxed as root.
  if ! out=$(cd "$tmp" && apt-get source --download-only "${name}=${version}" 2>&1); then
    if [[ $(id -u) -eq 0 ]] && grep -q "Unable to find a source package\|deb-src" <<<"$out"; then
      log "the source index may be stale; running apt-get update and retrying"
      apt-get update -qq || true
      out=$(cd "$tmp" && apt-get source --download-only "${name}=${version}" 2>&1) || {
        rm -rf "$tmp"; die "apt-get source ${name}=${version} failed: $out"; }
    else
      rm -rf "$tmp"
      die "apt-get source ${name}=${version} failed: $out"
    fi
  fi
  local f
  for f in "$tmp"/*; do mv -f "$f" "$pkgdir/"; done
  rm -rf "$tmp"
}

# One fetch per package at a time, also across build trees sharing the cache.
exec 9>"$pkgdir/.lock"
flock 9

if ! verify_cache; then
  download
  verify_cache || die "downloaded files are incomplete: $(ls "$pkgdir")"
fi
log "verified $(basename "$dsc") (sha256 $dsc_sha256) and its files"

mkdir -p "$(dirname "$dest")"
# Two builds of the same tree at once (two ninja processes) must not unpack over each other.
exec 8>"$dest.lock"
flock 8
rm -rf "$dest"
args=(-x)
[[ $skip_patches -eq 1 ]] && args+=(--skip-patches)
log "unpacking into $dest"
# dpkg-source checks every file against the .dsc again; it cannot check the signature without
# debian-keyring, which is fine: the pinned .dsc sha256 is the trust anchor.
if ! out=$(dpkg-source "${args[@]}" "$dsc" "$dest" 2>&1); then
  die "dpkg-source failed: $out"
fi
if [[ -n "$stamp" ]]; then
  mkdir -p "$(dirname "$stamp")"
  printf '%s %s %s\n' "$name" "$version" "$dsc_sha256" > "$stamp"
fi
