#!/usr/bin/env bash
# Cross-builds CPython for wasm32-wasi (configure + make), for the reactor link in
# CMakeLists.txt. The build python must be the same 3.11 (Debian's python3.11 is 3.11.2).
#
#   build_cpython.sh --src <dir> --build <dir> --cc "<compiler command>" --build-python <path>
#                    --config-cache <file> --source-id <id> --deps <dir> [--jobs N]
#                    [--stamp <file>]
#
# --deps is the prefix build_wasi_libs.sh installed zlib, bzip2, liblzma and SQLite into; its
# include/ and lib/ are handed to configure (by a path relative to the build directory, so the
# configure cache stays independent of where the build tree is), which then builds the zlib,
# _bz2, _lzma and _sqlite3 modules into libpython.
#
# --source-id names the inputs (source pin, patches, compiler command, flags; the CMake side
# uses the configure cache key); when it differs from the one the build directory was made
# from, the build directory is emptied first, so new inputs never mix with old objects.
#
# configure's answers are cached in --config-cache (a file in the download cache whose name
# is a hash of everything that can change them: source, patches, compiler, wasi-libc, flags),
# so a clean build of the same inputs skips most of configure's ~700 link tests. The compile
# goes through the compiler command given (ccache in front of clang when available). The full
# logs stay in <build>/configure.log and <build>/make.log; the console gets progress lines.
set -euo pipefail

src="" build="" cc="" build_python="" config_cache="" source_id="" deps="" jobs=2 stamp=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --src) src="$2"; shift 2 ;;
    --build) build="$2"; shift 2 ;;
    --cc) cc="$2"; shift 2 ;;
    --build-python) build_python="$2"; shift 2 ;;
    --config-cache) config_cache="$2"; shift 2 ;;
    --source-id) source_id="$2"; shift 2 ;;
    --deps) deps="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    --stamp) stamp="$2"; shift 2 ;;
    *) echo "build_cpython.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
for v in src build cc build_python config_cache source_id deps; do
  [[ -n "${!v}" ]] || { echo "build_cpython.sh: --${v//_/-} is required" >&2; exit 2; }
done
log() { echo "-- [cpython] $*"; }
die() { echo "error: [cpython] $*" >&2; exit 1; }

"$build_python" -c 'import sys; assert sys.version_info[:2] == (3, 11), sys.version' 2>/dev/null ||
  die "$build_python is not a Python 3.11 (the cross build needs the same version); install python3.11"

mkdir -p "$build" "$(dirname "$config_cache")"
# Two builds of the same tree at once (two ninja processes) must not share a configure run.
exec 8>"$build.lock"
flock 8
cd "$build"
if [[ "$(cat .source-id 2>/dev/null)" != "$source_id" ]]; then
  find . -mindepth 1 -delete
  echo "$source_id" > .source-id
fi

# Flags clang >= 16 turned into errors that CPython 3.11 still trips over (Debian's wasi-libc
# defines the CLOCK_* constants as pointers, which timemodule.c passes as integers).
extra_cflags="-Wno-int-conversion -Wno-incompatible-function-pointer-types"

# configure runs by a relative path: the build then names its sources relative to the build
# directory, so nothing in the module depends on where the build tree is.
src_rel=$(realpath --relative-to="$build" "$src")
deps_rel=$(realpath --relative-to="$build" "$deps")
for lib in z bz2 lzma sqlite3; do
  [[ -f "$deps/lib/lib$lib.a" ]] || die "$deps/lib/lib$lib.a is missing (build_wasi_libs.sh builds it)"
done
# __DATE__/__TIME__ (sys.version) come from the source's changelog, not the clock, so the module
# is reproducible (clang honours SOURCE_DATE_EPOCH).
SOURCE_DATE_EPOCH=$(dpkg-parsechangelog -l "$src/debian/changelog" -S Timestamp) ||
  die "cannot read the release date from $src/debian/changelog"
export SOURCE_DATE_EPOCH

if [[ ! -f Makefile || ! -f config.status || "$src/configure" -nt config.status ]]; then
  if [[ -f "$config_cache" ]]; then
    log "configure (answers cached in $config_cache)"
    cp "$config_cache" config.cache
  else
    log "configure (first run for these inputs: about 5 minutes; the answers will be cached)"
    rm -f config.cache
  fi
  start=$(date +%s)
  # Progress: one line per 50 checks.
  # --- configure recipe (CMakeLists.txt hashes this text into the configure cache key) ---
  if ! CONFIG_SITE="$src/Tools/wasm/config.site-wasm32-wasi" \
       CC="$cc" CPP="$cc -E" AR="${AR:-llvm-ar}" RANLIB="${RANLIB:-llvm-ranlib}" READELF=true \
       PKG_CONFIG_PATH="" PKG_CONFIG_LIBDIR=/nonexistent \
       ZLIB_CFLAGS="-I$deps_rel/include" ZLIB_LIBS="-L$deps_rel/lib -lz" \
       BZIP2_CFLAGS="-I$deps_rel/include" BZIP2_LIBS="-L$deps_rel/lib -lbz2" \
       LIBLZMA_CFLAGS="-I$deps_rel/include" LIBLZMA_LIBS="-L$deps_rel/lib -llzma" \
       LIBSQLITE3_CFLAGS="-I$deps_rel/include" LIBSQLITE3_LIBS="-L$deps_rel/lib -lsqlite3" \
       "$src_rel/configure" --cache-file=config.cache \
         --host=wasm32-unknown-wasi --build="$("$src/config.guess")" \
         --with-build-python="$build_python" --disable-ipv6 --without-ensurepip \
         --disable-test-modules --prefix=/ 2>&1 |
  # --- end of the configure recipe ---
       tee configure.log |
       awk '/^checking / { n++; if (n % 50 == 0) { printf "-- [cpython] configure: %d checks\n", n; fflush() } }'
  then
    tail -30 configure.log >&2
    die "configure failed; the whole log is $build/configure.log"
  fi
  [[ -f Makefile ]] || die "configure did not write a Makefile; see $build/configure.log"
  log "configure took $(( $(date +%s) - start )) s"
  cp config.cache "$config_cache.tmp.$$" && mv -f "$config_cache.tmp.$$" "$config_cache"
fi

# configure silently leaves a module out when its library check fails: insist on them.
for m in ZLIB _BZ2 _LZMA _SQLITE3; do
  grep -q "^MODULE_${m}_STATE=yes" Makefile ||
    die "configure did not enable the $m module ($(grep "^MODULE_${m}_STATE=" Makefile)); see $build/config.log"
done

start=$(date +%s)
log "make -j$jobs (about 2-3 minutes without ccache hits)"
# Progress: the source file of each compile command.
set +e
make -j"$jobs" EXTRA_CFLAGS="$extra_cflags" 2>&1 |
  tee make.log |
  awk '/ -c / { for (i = NF; i > 0; i--) if ($i ~ /\.c$/) { print "-- [cpython] compiling " $i; fflush(); break } }'
rc=${PIPESTATUS[0]}
set -e
if [[ $rc -ne 0 ]]; then
  grep -B2 -A8 -E "error:|Error [0-9]" make.log | tail -60 >&2
  die "make failed; the whole log is $build/make.log"
fi
log "make took $(( $(date +%s) - start )) s"
for f in libpython3.11.a Modules/_decimal/libmpdec/libmpdec.a Modules/expat/libexpat.a; do
  [[ -f "$f" ]] || die "make did not produce $f"
done
if [[ -n "$stamp" ]]; then
  touch "$stamp"
fi
