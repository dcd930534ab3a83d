#!/usr/bin/env bash
# Fetches one pinned Debian source package into the download cache, verifies it, and unpacks it.
#
#   debian-source.sh --name lua5.4 --version 5.4.4-3+deb12u1 --dsc-sha256 <hex> \
#                    --cache <dir> --dest <dir> [--skip-patches] [--stamp <file>]
#
# The cache keeps the .dsc and the files it lists under <cache>/debian/<name>_<version>/.
# Every run verifies the .dsc against the pinned sha256 and every listed file against the
# .dsc's Checksums-Sha256 before anything is unpacked; a mismatch is an error, never a silent
# re-download.
#
# Downloads first try `apt-get source --download-only`, which finds versions of the suites apt
# knows (stable) and needs a deb-src entry: when there is none and we are root, one is added
# (same URIs, suites, components and key as the existing deb entries) and `apt-get update` runs.
# A version apt does not know (testing, unstable, or any suite this machine does not list) is
# then fetched from the archives' pools, which every suite shares: the mirrors apt is configured
# with, then deb.debian.org's debian and debian-security (SANDBOX_DEBIAN_MIRRORS, space
# separated, replaces that list; SANDBOX_DEBIAN_APT=0 skips apt, as tests/fetch does). A testing
# or unstable version leaves the pools some time after a newer one replaces it; then the build
# stops with a message naming the pin to update (docs/languages.md#archive-churn).
#
# <dest> is replaced by the unpacked tree (dpkg-source -x; with --skip-patches the Debian
# patches are not applied and debian/ is left for the caller). The stamp file, written last,
# records what was unpacked.
set -euo pipefail
# pool_archives, pool_download
source "$(dirname "${BASH_SOURCE[0]}")/debian-archives.sh"

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

# apt-get source into $1; prints apt's output and fails when apt cannot find the version.
download_with_apt() {
  local into="$1" out
  if [[ "${SANDBOX_DEBIAN_APT:-1}" == 0 ]]; then
    echo "apt skipped (SANDBOX_DEBIAN_APT=0)"
    return 1
  fi
  if ! has_deb_src; then
    if [[ $(id -u) -ne 0 || ! -f /etc/apt/sources.list.d/debian.sources ]]; then
      echo "apt has no deb-src entry (not root, or no debian.sources to derive one from)"
      return 1
    fi
    add_deb_src >&2
  fi
  log "downloading with apt-get source --download-only ${name}=${version}" >&2
  # An exact version (name=version) pins the package; apt warns harmlessly that it downloads
  # unsandboxed as root.
  if out=$(cd "$into" && apt-get source --download-only "${name}=${version}" 2>&1); then
    return 0
  fi
  if [[ $(id -u) -eq 0 ]] && grep -q "Unable to find a source package\|deb-src" <<<"$out"; then
    log "the source index may be stale; running apt-get update and retrying" >&2
    apt-get update -qq >&2 || true
    out=$(cd "$into" && apt-get source --download-only "${name}=${version}" 2>&1) && return 0
  fi
  echo "$out"
  return 1
}

# A source package's directory in a pool: lib* packages sit under their first four letters.
pool_dir() {
  local prefix="${name:0:1}"
  [[ "$name" == lib* ]] && prefix="${name:0:4}"
  echo "pool/main/$prefix/$name"
}

# Downloads the .dsc and its files from the first archive whose pool has them, into $1; lists
# the URLs it tried in $2.
download_from_pools() {
  local into="$1" tried="$2" base url got sum size file
  while read -r base; do
    url="$base/$(pool_dir)/$(basename "$dsc")"
    echo "$url" >>"$tried"
    pool_download "$url" "$into/$(basename "$dsc")" || continue
    got=$(sha256sum "$into/$(basename "$dsc")" | cut -d' ' -f1)
    [[ "$got" == "$dsc_sha256" ]] ||
      die "$url has sha256 $got, expected $dsc_sha256 (the pin in the engine's CMakeLists.txt): the archive holds a different .dsc under this version; update the pin deliberately (docs/languages.md#archive-churn)."
    log "downloading from $base/$(pool_dir)"
    while read -r sum size file; do
      curl -fsSL --retry 2 --connect-timeout 20 -o "$into/$file" "$base/$(pool_dir)/$file" ||
        die "$base/$(pool_dir)/$file: download failed (the .dsc lists it)"
    done < <(dsc_files "$into/$(basename "$dsc")")
    return 0
  done < <(pool_archives)
  return 1
}

download() {
  local tmp apt_out f
  tmp=$(mktemp -d "$pkgdir/.download.XXXXXX")
  if ! apt_out=$(download_with_apt "$tmp"); then
    rm -rf "$tmp"; tmp=$(mktemp -d "$pkgdir/.download.XXXXXX")
    log "apt cannot fetch ${name}=${version}; trying the archives' pools"
    if ! download_from_pools "$tmp" "$tmp.tried"; then
      local tried
      tried=$(cat "$tmp.tried"); rm -rf "$tmp" "$tmp.tried"
      die "version $version of $name is in none of the archives tried: it has left Debian (a testing or unstable version does, some time after a newer one replaces it). Update the pin: in the engine's CMakeLists.txt set VERSION to a version the archive holds (listed at https://tracker.debian.org/pkg/$name, or by 'rmadison $name') and DSC_SHA256 to the sha256 of that version's .dsc, check what the new version changes, and build again (docs/languages.md#archive-churn).
apt-get source said: $(tail -n 3 <<<"$apt_out")
pool URLs tried:
$tried"
    fi
  fi
  for f in "$tmp"/*; do mv -f "$f" "$pkgdir/"; done
  rm -rf "$tmp" "$tmp.tried"
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
