#!/usr/bin/env bash
# Fetches one pinned file from the Debian archives' pools into the download cache, verifies it,
# and unpacks it: for a version whose .dsc this machine's mirror lacks, or a binary package.
#
#   debian-pool-file.sh --path pool/main/l/lua5.4/lua5.4_5.4.9.orig.tar.gz --sha256 <hex> \
#                       --cache <dir> --dest <dir> [--strip-components <n>] \
#                       [--quilt-patches <debian dir>] [--stamp <file>]
#
# The file is kept as <cache>/debian-pool/<path>. Every run checks it against the pinned sha256
# before anything is unpacked; a mismatch is an error, never a silent re-download. A missing
# file is fetched from the first archive whose pool holds it (debian-archives.sh: apt's mirrors,
# then deb.debian.org's debian and debian-security; SANDBOX_DEBIAN_MIRRORS replaces the list). A
# testing or unstable file leaves the pools some time after a newer version replaces it; then
# the build stops with a message naming the pin to update (docs/languages.md#archive-churn).
#
# <dest> is replaced by the file's contents: a .deb is unpacked with dpkg-deb -x (its data, not
# its control files), a tarball with tar (--strip-components drops leading directories), any
# other file is copied. --quilt-patches applies <debian dir>/patches/series to the unpacked tree
# in order (patch -p1), as dpkg-source does for a 3.0 (quilt) package, and copies <debian dir>
# to <dest>/debian. The stamp file, written last, records what was unpacked.
set -euo pipefail
# pool_archives, pool_download
source "$(dirname "${BASH_SOURCE[0]}")/debian-archives.sh"

path="" sha256="" cache="" dest="" strip=0 quilt="" stamp=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --path) path="$2"; shift 2 ;;
    --sha256) sha256="$2"; shift 2 ;;
    --cache) cache="$2"; shift 2 ;;
    --dest) dest="$2"; shift 2 ;;
    --strip-components) strip="$2"; shift 2 ;;
    --quilt-patches) quilt="$2"; shift 2 ;;
    --stamp) stamp="$2"; shift 2 ;;
    *) echo "debian-pool-file.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
for v in path sha256 cache dest; do
  [[ -n "${!v}" ]] || { echo "debian-pool-file.sh: --$v is required" >&2; exit 2; }
done

file_name="$(basename "$path")"
log() { echo "-- [fetch $file_name] $*"; }
die() { echo "error: [fetch $file_name] $*" >&2; exit 1; }

[[ "$path" =~ ^pool/[^/]+/[^/]+/[^/]+/[^/]+$ && "$path" != *..* ]] ||
  die "--path must be a file in a pool, pool/<component>/<prefix>/<source>/<file> (got '$path')"
[[ "$sha256" =~ ^[0-9a-f]{64}$ ]] || die "--sha256 must be 64 lowercase hex digits (got '$sha256')"
[[ "$strip" =~ ^[0-9]+$ ]] || die "--strip-components must be a number (got '$strip')"

cached="$cache/debian-pool/$path"
mkdir -p "$(dirname "$cached")"

sha_of() { sha256sum "$1" | cut -d' ' -f1; }

# One fetch per file at a time, also across build trees sharing the cache.
exec 9>"$cached.lock"
flock 9

if [[ -f "$cached" ]]; then
  got=$(sha_of "$cached")
  [[ "$got" == "$sha256" ]] ||
    die "$cached has sha256 $got, expected $sha256 (the pin in the engine's CMakeLists.txt). Delete it to fetch again; if the archive changed the file, update the pin deliberately."
else
  tmp=$(mktemp "$cached.download.XXXXXX")
  tried=""
  found=0
  while read -r base; do
    url="$base/$path"
    tried+="$url"$'\n'
    pool_download "$url" "$tmp" || continue
    got=$(sha_of "$tmp")
    if [[ "$got" != "$sha256" ]]; then
      rm -f "$tmp"
      die "$url has sha256 $got, expected $sha256 (the pin in the engine's CMakeLists.txt): the archive holds a different file under this name; update the pin deliberately (docs/languages.md#archive-churn)."
    fi
    log "downloaded from $base"
    found=1
    break
  done < <(pool_archives)
  if [[ $found -eq 0 ]]; then
    rm -f "$tmp"
    die "$path is in none of the archives tried: it has left Debian (a testing or unstable version does, some time after a newer one replaces it). Update the pin: in the engine's CMakeLists.txt set the PATH of $file_name to the file of a version the archive holds (listed at https://tracker.debian.org/pkg/$(basename "$(dirname "$path")"), or by 'rmadison $(basename "$(dirname "$path")")') and its SHA256 to that file's sha256 (the suite's Sources or Packages index lists it), check what the new version changes, and build again (docs/languages.md#archive-churn).
pool URLs tried:
${tried%$'\n'}"
  fi
  mv -f "$tmp" "$cached"
fi
log "verified $path (sha256 $sha256)"

mkdir -p "$(dirname "$dest")"
# Two builds of the same tree at once (two ninja processes) must not unpack over each other.
exec 8>"$dest.lock"
flock 8
rm -rf "$dest"
mkdir -p "$dest"
log "unpacking into $dest"
case "$file_name" in
  *.deb|*.udeb)
    out=$(dpkg-deb -x "$cached" "$dest" 2>&1) || die "dpkg-deb -x failed: $out" ;;
  *.tar|*.tar.gz|*.tgz|*.tar.xz|*.tar.bz2|*.tar.zst)
    out=$(tar -xf "$cached" -C "$dest" --strip-components="$strip" --no-same-owner 2>&1) ||
      die "tar failed: $out" ;;
  *)
    cp "$cached" "$dest/$file_name" ;;
esac

if [[ -n "$quilt" ]]; then
  [[ -f "$quilt/patches/series" ]] || die "--quilt-patches $quilt has no patches/series"
  rm -rf "$dest/debian"
  cp -R "$quilt" "$dest/debian"
  while read -r patch _; do
    [[ -z "$patch" || "$patch" == \#* ]] && continue
    out=$(patch -d "$dest" -p1 -N -s -f --no-backup-if-mismatch <"$quilt/patches/$patch" 2>&1) ||
      die "Debian patch $patch does not apply: $out"
  done <"$quilt/patches/series"
  log "applied $(grep -cvE '^[[:space:]]*(#|$)' "$quilt/patches/series") Debian patches"
fi

if [[ -n "$stamp" ]]; then
  mkdir -p "$(dirname "$stamp")"
  printf '%s %s\n' "$path" "$sha256" >"$stamp"
fi
