#!/usr/bin/env python3
"""Configure this source tree with one Wasm tool missing or wrong at a time and check that
configure stops with a message naming the Debian package to install (and only that one: the
machine's other tools pass their checks). See cmake/SandboxToolchain.cmake, and
src/playground/CMakeLists.txt for npm."""
import concurrent.futures
import os
import sys
import tempfile

from configure_run import argument_parser, configure


def fake_tool(directory, name, output):
    """An executable script printing `output` for any arguments."""
    path = os.path.join(directory, name)
    with open(path, "w") as f:
        f.write("#!/bin/sh\ncat <<'OUT'\n" + output + "\nOUT\n")
    os.chmod(path, 0o755)
    return path


def configure_without_extras(args, build_dir, options):
    """Configure only (no tests, benchmarks or install rules): its exit code and output on one
    line (CMake wraps long messages)."""
    code, output = configure(args, build_dir, ["-DSANDBOX_BUILD_TESTS=OFF",
                                               "-DSANDBOX_BUILD_BENCH=OFF",
                                               "-DSANDBOX_INSTALL=OFF"] + options)
    return code, " ".join(output.split())


def main():
    args = argument_parser().parse_args()

    with tempfile.TemporaryDirectory(prefix="sandbox-configure-") as tmp:
        tools = os.path.join(tmp, "tools")
        empty = os.path.join(tmp, "empty-prefix")
        os.makedirs(tools)
        os.makedirs(empty)
        old_wasm2c = fake_tool(tools, "wasm2c", "1.0.30")
        old_clang = fake_tool(tools, "clang-19", "Debian clang version 14.0.6\nTarget: x86_64")
        engines_off = ["-DSANDBOX_BUILD_ENGINES=OFF"]
        # (name, options, the package the message must name, the package names it must not)
        cases = [
            ("old wasm2c", engines_off + ["-DSANDBOX_WASM2C=" + old_wasm2c],
             ["wabt", "version '1.0.30'", "1.0.32"], ["clang-19", "wasi-libc", "binaryen"]),
            ("missing wasm2c", engines_off + ["-DSANDBOX_WASM2C=" + os.path.join(tmp, "gone")],
             ["wabt", "does not exist"], ["clang-19", "wasi-libc", "binaryen"]),
            ("clang 14 as clang-19", engines_off + ["-DSANDBOX_CLANG_WASM=" + old_clang],
             ["package clang-19", "is not clang 19"], ["wabt", "wasi-libc", "binaryen"]),
            ("no wasi-libc", engines_off + ["-DSANDBOX_WASI_LIBC_PREFIX=" + empty],
             ["package wasi-libc"], ["wabt", "clang-19", "binaryen"]),
            # A language engine needs binaryen; configure stops before fetching the engine.
            ("missing wasm-opt", ["-DSANDBOX_BUILD_ENGINES=ON", "-DSANDBOX_ENGINES=lua",
                                  "-DSANDBOX_WASM_OPT=" + os.path.join(tmp, "no-wasm-opt")],
             ["package binaryen", "-DSANDBOX_BUILD_ENGINES=OFF"], ["wabt", "wasi-libc"]),
            # The Playground's bundle (src/playground) needs npm; its own headline.
            ("missing npm", engines_off + ["-DSANDBOX_NPM=" + os.path.join(tmp, "no-npm")],
             ["package npm"], ["wabt", "clang-19", "wasi-libc", "binaryen"],
             "The Playground (web/playground) is bundled at build time"),
        ]
        failures = []

        def run(index_case):
            index, (name, options, want, unwanted, *headline) = index_case
            headline = headline[0] if headline else "The Wasm toolchain is incomplete"
            rc, out = configure_without_extras(args, os.path.join(tmp, f"build{index}"), options)
            problems = []
            if rc == 0:
                problems.append("configure succeeded")
            if headline not in out:
                problems.append("no toolchain message")
            problems += [f"'{w}' missing from the message" for w in want if w not in out]
            problems += [f"'{u}' reported although installed" for u in unwanted
                         if f"package {u}" in out]
            return name, problems, out

        with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
            for name, problems, out in pool.map(run, enumerate(cases)):
                print(f"{name}: {'ok' if not problems else '; '.join(problems)}")
                if problems:
                    failures.append(name)
                    print(out[-3000:])
        return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
