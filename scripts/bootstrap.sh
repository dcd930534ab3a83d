#!/usr/bin/env bash
# Installs every Debian package the build and the tests need. Idempotent: when everything is
# already installed it prints nothing and exits at once. Run as root or with sudo available.
set -euo pipefail

packages=(
  # C++ toolchain and build
  build-essential cmake ninja-build ccache pkg-config git
  # libraries the project links
  libboost1.81-dev libboost-json1.81-dev libboost-url1.81-dev
  libcli11-dev libspdlog-dev libfmt-dev libsqlite3-dev libzstd-dev libpq-dev libxxhash-dev
  # line editing and history of `sandbox repl`
  libedit-dev
  # the seccomp filter of the worker processes (src/isolation, found with pkg-config)
  libseccomp-dev
  # tests and benchmarks
  libgtest-dev libgmock-dev libbenchmark-dev python3 tmux curl
  # bench/run draws its table as a PNG chart
  gnuplot-nox
  # the Wasm pipeline: guests compiled with clang-19 against wasi-libc, fuel pass, wasm2c
  clang-19 lld-19 wasi-libc libclang-rt-19-dev-wasm32 binaryen wabt
  # fetching and building engines from Debian source packages
  dpkg-dev python3.11 make patch xz-utils
  # the Python engine: SQLite's amalgamation is generated with tclsh, the time-zone database
  # compiled with zic
  tcl libc-bin
  # PostgreSQL backend tests
  postgresql
  # deploy/'s systemd units are checked with systemd-analyze
  systemd
  # the cluster test (tests/cluster) runs deploy/nginx in front of several sandboxd nodes; Debian
  # 12's nginx has the upstream hash module built in
  nginx
  # style checks (scripts/check_format.sh, scripts/run_clang_tidy.sh): one pinned LLVM version,
  # since another clang-format major version formats some constructs differently
  clang-format-19 clang-tidy-19
  # libFuzzer runtime (and ASan/UBSan) for the fuzz preset (scripts/run_fuzzers.sh)
  libclang-rt-19-dev
  # native interpreters bench/languages and the differential corpus (tests/differential)
  # compare the engines with (python3.11 above; the corpus runs /usr/bin/python3.11)
  lua5.4 ruby perl
  # the Playground's browser test (tests/playground): Debian's chromium, driven by playwright-core
  chromium
)

# The JavaScript engine's build and the Playground's (src/playground: CodeMirror bundled by
# esbuild, playwright-core for its browser test) run npm. A machine that already has node and npm
# (e.g. from nodesource) keeps them; otherwise Debian's.
if ! command -v npm >/dev/null 2>&1; then
  packages+=(nodejs npm)
fi

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "installed" ]] || missing+=("$p")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

SUDO=""
[[ $(id -u) -eq 0 ]] || SUDO="sudo"
echo "bootstrap: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
