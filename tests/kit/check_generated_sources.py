#!/usr/bin/env python3
"""Compiles the C++ sources of a project `sandbox init` generates against this tree's headers,
with the warnings of our own build as errors, so that a template that does not compile fails a
fast test instead of only the slow flows (run_guide.py), none of which covers every kind of
project:

  check_generated_sources.py --sandbox BIN --cxx CXX --include DIR... -- INIT_ARGS...

INIT_ARGS are `sandbox init`'s (the project is generated in a temporary directory); the guest
header of a Wasm project (NAME_guest.h) must be in one of the --include directories, so the
project is named after a guest this build compiled (wkv for wkv_guest.h).
"""
import argparse
import os
import subprocess
import sys
import tempfile


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sandbox", required=True)
    ap.add_argument("--cxx", required=True)
    ap.add_argument("--include", action="append", default=[])
    ap.add_argument("init_args", nargs="+")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="sandbox-generated-") as root:
        r = subprocess.run([os.path.abspath(args.sandbox), "init"] + args.init_args, cwd=root,
                           capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"sandbox init {' '.join(args.init_args)} failed:\n{r.stdout}{r.stderr}")
        [project] = os.listdir(root)
        project_dir = os.path.join(root, project)
        failures = 0
        sources = ["src/engine.cc", "src/main.cc", "tests/conformance_test.cc"]
        if os.path.exists(os.path.join(project_dir, "src/driver.cc")):  # a --wasmify project
            sources.append("src/driver.cc")
        for source in sources:
            command = [args.cxx, "-std=c++20", "-Wall", "-Wextra", "-Werror", "-fsyntax-only",
                       "-I", os.path.join(project_dir, "src")]
            for d in args.include:
                command += ["-I", d]
            command.append(os.path.join(project_dir, source))
            c = subprocess.run(command, capture_output=True, text=True)
            if c.returncode != 0:
                failures += 1
                print(f"{project}/{source} does not compile:\n{c.stdout}{c.stderr}")
            else:
                print(f"{project}/{source}: compiles")
        sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
