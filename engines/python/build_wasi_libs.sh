#!/usr/bin/env bash
# Cross-builds the C libraries behind CPython's zlib, _bz2, _lzma and _sqlite3 modules for
# wasm32-wasi, from the Debian source packages CMakeLists.txt fetched, with the compiler command
# CPython itself is built with. Installs static libraries and headers into <prefix>/{lib,include},
# which build_cpython.sh hands to CPython's configure (docs/languages.md, Python section).
#
#   build_wasi_libs.sh --cc "<compiler command>" --prefix <dir> --zlib <src> --bzip2 <src>
#                      --xz <src> --sqlite <src> --sqlite-compat <header> [--jobs N]
#                      [--stamp <file>]
#
# zlib and bzip2 are a fixed list of C files; liblzma goes through its own configure (threads,
# the xz tools and NLS off); SQLite's amalgamation is generated on the host (tclsh, the host cc)
# and compiled with the WASI settings below. The logs stay in <prefix>/*.log.
set -euo pipefail

cc="" prefix="" zlib="" bzip2="" xz="" sqlite="" sqlite_compat="" jobs=2 stamp=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --cc) cc="$2"; shift 2 ;;
    --prefix) prefix="$2"; shift 2 ;;
    --zlib) zlib="$2"; shift 2 ;;
    --bzip2) bzip2="$2"; shift 2 ;;
    --xz) xz="$2"; shift 2 ;;
    --sqlite) sqlite="$2"; shift 2 ;;
    --sqlite-compat) sqlite_compat="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    --stamp) stamp="$2"; shift 2 ;;
    *) echo "build_wasi_libs.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
for v in cc prefix zlib bzip2 xz sqlite sqlite_compat; do
  [[ -n "${!v}" ]] || { echo "build_wasi_libs.sh: --${v//_/-} is required" >&2; exit 2; }
done
log() { echo "-- [python libs] $*"; }
die() { echo "error: [python libs] $*" >&2; exit 1; }
command -v tclsh >/dev/null || die "tclsh is needed to generate SQLite's amalgamation; install tcl (scripts/bootstrap.sh)"
command -v cc >/dev/null || die "a host C compiler (cc) is needed for SQLite's generators"

# Third-party code: its warnings are not ours to fix.
cflags="-O2 -w"
ar="${AR:-llvm-ar}"
mkdir -p "$prefix"
prefix=$(realpath "$prefix")
exec 8>"$prefix.lock"
flock 8
rm -rf "$prefix/lib" "$prefix/include" "$prefix/obj"
mkdir -p "$prefix/lib" "$prefix/include" "$prefix/obj"
start=$(date +%s)

# Compiles the given sources (extra flags first, then --) into one static library.
archive() {
  local name="$1"; shift
  local flags=()
  while [[ "$1" != "--" ]]; do flags+=("$1"); shift; done
  shift
  local objdir="$prefix/obj/$name" src objects=()
  mkdir -p "$objdir"
  for src in "$@"; do objects+=("$objdir/$(basename "${src%.c}").o"); done
  printf '%s\n' "$@" | xargs -P "$jobs" -I{} sh -c \
    'exec '"$cc $cflags"' "$@" -c "{}" -o "'"$objdir"'/$(basename "{}" .c).o"' _ "${flags[@]}" ||
    die "compiling $name failed"
  "$ar" rcs "$prefix/lib/lib$name.a" "${objects[@]}"
}

log "zlib"
zsrc=()
for f in adler32 compress crc32 deflate gzclose gzlib gzread gzwrite infback inffast inflate \
         inftrees trees uncompr zutil; do
  zsrc+=("$zlib/$f.c")
done
archive z -DHAVE_UNISTD_H -DHAVE_STDARG_H -- "${zsrc[@]}"
cp "$zlib/zlib.h" "$zlib/zconf.h" "$prefix/include/"

log "bzip2"
bsrc=()
for f in blocksort huffman crctable randtable compress decompress bzlib; do bsrc+=("$bzip2/$f.c"); done
archive bz2 -D_FILE_OFFSET_BITS=64 -- "${bsrc[@]}"
cp "$bzip2/bzlib.h" "$prefix/include/"

log "liblzma (configure + make)"
mkdir -p "$prefix/obj/xz"
(
  cd "$prefix/obj/xz"
  CC="$cc" CFLAGS="$cflags" AR="$ar" RANLIB="${RANLIB:-llvm-ranlib}" \
    "$xz/configure" --host=wasm32-unknown-wasi --build="$("$xz/build-aux/config.guess")" \
      --disable-threads --disable-shared --enable-static --disable-xz --disable-xzdec \
      --disable-lzmadec --disable-lzmainfo --disable-lzma-links --disable-scripts --disable-doc \
      --disable-nls --disable-rpath > "$prefix/xz-configure.log" 2>&1 ||
    { tail -20 "$prefix/xz-configure.log" >&2; die "liblzma's configure failed; see $prefix/xz-configure.log"; }
  # The autotools never run again: the tree's generated files are used as shipped.
  make -C src/liblzma -j"$jobs" ACLOCAL=true AUTOCONF=true AUTOMAKE=true AUTOHEADER=true \
    > "$prefix/xz-make.log" 2>&1 ||
    { grep -i -m10 -A3 "error" "$prefix/xz-make.log" >&2 || true; die "liblzma's make failed; see $prefix/xz-make.log"; }
)
cp "$prefix/obj/xz/src/liblzma/.libs/liblzma.a" "$prefix/lib/"
cp -r "$xz/src/liblzma/api/lzma.h" "$xz/src/liblzma/api/lzma" "$prefix/include/"

log "sqlite3 (amalgamation on the host, then the wasm32-wasi compile)"
mkdir -p "$prefix/obj/sqlite-host"
(
  cd "$prefix/obj/sqlite-host"
  env -u CC -u CFLAGS "$sqlite/configure" --disable-tcl --disable-readline \
    > "$prefix/sqlite-configure.log" 2>&1 ||
    die "SQLite's host configure failed; see $prefix/sqlite-configure.log"
  make sqlite3.c > "$prefix/sqlite-make.log" 2>&1 ||
    die "generating SQLite's amalgamation failed; see $prefix/sqlite-make.log"
)
# No threads in the guest; no mmap and no shared memory, so no WAL; no dlopen. WASI has no file
# locks at all (no fcntl F_SETLK), so the default VFS is unix-none: one guest process owns its
# /workspace, and the rollback journal still makes each transaction atomic. Temporary tables
# and sort spills stay in memory (the guest may have no writable temporary directory). The
# feature flags after those are Debian's (debian/rules), so SQL behaves as in libsqlite3-0.
archive sqlite3 -include "$sqlite_compat" -D_WASI_EMULATED_GETPID -DSQLITE_THREADSAFE=0 \
  -DSQLITE_OMIT_LOAD_EXTENSION -DSQLITE_OMIT_WAL -DSQLITE_MAX_MMAP_SIZE=0 \
  '-DSQLITE_DEFAULT_UNIX_VFS="unix-none"' -DSQLITE_TEMP_STORE=2 \
  -DSQLITE_SECURE_DELETE -DSQLITE_ENABLE_COLUMN_METADATA -DSQLITE_ENABLE_FTS3 \
  -DSQLITE_ENABLE_FTS3_PARENTHESIS -DSQLITE_ENABLE_RTREE=1 -DSQLITE_SOUNDEX=1 \
  -DSQLITE_ENABLE_DBSTAT_VTAB -DSQLITE_LIKE_DOESNT_MATCH_BLOBS -DSQLITE_USE_URI=1 \
  -DSQLITE_MAX_VARIABLE_NUMBER=250000 \
  -- "$prefix/obj/sqlite-host/sqlite3.c"
cp "$prefix/obj/sqlite-host/sqlite3.h" "$prefix/include/"

for f in libz.a libbz2.a liblzma.a libsqlite3.a; do
  [[ -s "$prefix/lib/$f" ]] || die "$f was not produced"
done
log "built in $(( $(date +%s) - start )) s"
if [[ -n "$stamp" ]]; then
  touch "$stamp"
fi
