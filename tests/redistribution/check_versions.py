#!/usr/bin/env python3
"""Checks that every program prints the project's version (docs/redistribution.md#versions):

  check_versions.py --version X.Y.Z PROGRAM...

Each `PROGRAM --version` must exit 0 and print exactly "<program name> X.Y.Z" on stdout, and
nothing on stderr, even though some of them otherwise require options or a subcommand.
"""
import argparse
import os
import re
import subprocess
import sys


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--version", required=True)
    parser.add_argument("programs", nargs="+")
    args = parser.parse_args()
    failures = []
    if not re.fullmatch(r"[0-9]+\.[0-9]+\.[0-9]+", args.version):
        failures.append(f"the project's version {args.version!r} is not MAJOR.MINOR.PATCH")
    for program in args.programs:
        name = os.path.basename(program)
        result = subprocess.run([program, "--version"], capture_output=True, text=True,
                                timeout=30)
        expected = f"{name} {args.version}\n"
        if result.returncode != 0:
            failures.append(f"{name} --version exited {result.returncode}: {result.stderr}")
        if result.stdout != expected:
            failures.append(f"{name} --version printed {result.stdout!r}, expected {expected!r}")
        if result.stderr:
            failures.append(f"{name} --version wrote to stderr: {result.stderr!r}")
        print(f"{name} --version: {result.stdout.strip()!r}")
    if failures:
        print("\n".join(failures), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
