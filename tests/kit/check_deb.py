#!/usr/bin/env python3
"""Builds the kit's Debian package with CPack and checks what a user of it relies on:

  check_deb.py --build-dir BUILD --version X.Y.Z [--absent-file NAME]... [--absent-text TEXT]...

  - the package's Version is the project's, X.Y.Z;
  - the package holds the programs, the public headers (the generated version.h too), the CMake
    package, and in /usr/share/doc/sandbox-workers the licence, THIRD_PARTY_NOTICES and the
    copyright file (the licence followed by the notices: docs/redistribution.md);
  - it holds no file named NAME and no CMake file of it mentions TEXT (the tests' own engines,
    which the install leaves out: engines/engines.cmake, DEFAULT TEST);
  - every shared library each installed program loads belongs to a Debian package that the
    package's Depends bring in (the Depends and, recursively, their dependencies as installed
    on this machine), so installing the .deb on a clean Debian 12 is enough to run them.
The package is built in a temporary directory, not in BUILD.
"""
import argparse
import glob
import os
import re
import subprocess
import sys
import tempfile

EXPECTED_FILES = [
    "usr/bin/sandbox",
    "usr/bin/sandboxd",
    "usr/bin/sandbox-runtime",
    "usr/bin/sandbox-wasmc",
    "usr/include/sandbox/engine.h",
    "usr/include/sandbox/runtime.h",
    "usr/include/sandbox/version.h",
    "usr/include/sandbox/wasm.h",
    "usr/include/sandbox/wasm/instance.h",
    "usr/share/doc/sandbox-workers/LICENSE",
    "usr/share/doc/sandbox-workers/THIRD_PARTY_NOTICES",
    "usr/share/doc/sandbox-workers/copyright",
    "usr/lib/cmake/sandbox/sandboxConfig.cmake",
    "usr/lib/cmake/sandbox/SandboxWasm.cmake",
]


def run(args, **kwargs):
    return subprocess.run(args, check=True, capture_output=True, text=True, **kwargs).stdout


def package_names(field):
    """The package names of a Depends-style field; alternatives all count."""
    names = []
    for clause in field.split(","):
        for alternative in clause.split("|"):
            name = re.sub(r"\(.*?\)|\[.*?\]", "", alternative).strip().split(":")[0]
            if name:
                names.append(name)
    return names


def installed_closure(roots):
    """The roots and everything they depend on, as installed here (virtual names resolved
    through Provides)."""
    providers = {}
    for line in run(["dpkg-query", "-W", "-f", "${Package}\t${Provides}\n"]).splitlines():
        package, _, provides = line.partition("\t")
        for name in package_names(provides):
            providers.setdefault(name, []).append(package)
    seen, todo = set(), list(roots)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        try:
            fields = run(["dpkg-query", "-W", "-f", "${Depends},${Pre-Depends}", name])
        except subprocess.CalledProcessError:
            todo.extend(providers.get(name, []))  # a virtual package
            continue
        todo.extend(package_names(fields))
    return seen


def owner(path):
    """The Debian package that installed a library path (merged /usr: try both spellings)."""
    candidates = {path, os.path.realpath(path)}
    for p in list(candidates):
        if p.startswith("/usr/"):
            candidates.add(p[4:])
        else:
            candidates.add("/usr" + p)
    for p in candidates:
        result = subprocess.run(["dpkg", "-S", p], capture_output=True, text=True)
        if result.returncode == 0:
            return result.stdout.split(":")[0].strip()
    return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build-dir", required=True)
    parser.add_argument("--version", required=True)
    parser.add_argument("--absent-file", action="append", default=[])
    parser.add_argument("--absent-text", action="append", default=[])
    args = parser.parse_args()
    failures = []
    with tempfile.TemporaryDirectory(prefix="check-deb-") as tmp:
        config = os.path.join(args.build_dir, "CPackConfig.cmake")
        run(["cpack", "-G", "DEB", "--config", config, "-B", tmp])
        debs = glob.glob(os.path.join(tmp, "*.deb"))
        if len(debs) != 1:
            sys.exit(f"expected one .deb in {tmp}, found {debs}")
        deb = debs[0]
        version = run(["dpkg-deb", "-f", deb, "Version"]).strip()
        if version != args.version:
            failures.append(f"the package's Version is {version}, not the project's "
                            f"{args.version}")
        depends = package_names(run(["dpkg-deb", "-f", deb, "Depends"]))
        print(f"{os.path.basename(deb)}: Depends {', '.join(depends)}")
        closure = installed_closure(depends)

        root = os.path.join(tmp, "root")
        run(["dpkg-deb", "-x", deb, root])
        for f in EXPECTED_FILES:
            if not os.path.isfile(os.path.join(root, f)):
                failures.append(f"missing from the package: /{f}")
        doc = os.path.join(root, "usr/share/doc/sandbox-workers")
        if all(os.path.isfile(os.path.join(doc, f))
               for f in ("LICENSE", "THIRD_PARTY_NOTICES", "copyright")):
            with open(os.path.join(doc, "copyright"), encoding="utf-8") as f:
                copyright_text = f.read()
            for f in ("LICENSE", "THIRD_PARTY_NOTICES"):
                with open(os.path.join(doc, f), encoding="utf-8") as g:
                    if g.read() not in copyright_text:
                        failures.append(f"the copyright file does not hold {f}")
        for dirpath, _, files in os.walk(root):
            for name in files:
                path = os.path.join(dirpath, name)
                shown = "/" + os.path.relpath(path, root)
                if name in args.absent_file:
                    failures.append(f"in the package although left out of the install: {shown}")
                if name.endswith(".cmake"):
                    with open(path, encoding="utf-8") as f:
                        text = f.read()
                    for absent in args.absent_text:
                        if absent in text:
                            failures.append(f"{shown} names {absent}, which the install leaves out")

        for program in sorted(glob.glob(os.path.join(root, "usr/bin/*"))):
            name = os.path.basename(program)
            before = len(failures)
            for line in run(["ldd", program]).splitlines():
                if "not found" in line:
                    failures.append(f"{name}: {line.strip()}")
                    continue
                m = re.match(r"\s*(\S+) => (/\S+)", line)
                if not m:
                    continue  # the vdso and the dynamic loader
                package = owner(m.group(2))
                if package is None:
                    failures.append(f"{name}: {m.group(1)} ({m.group(2)}) belongs to no package")
                elif package not in closure:
                    failures.append(f"{name}: {m.group(1)} comes from {package}, which the "
                                    "Depends do not bring in")
            if len(failures) == before:
                print(f"  {name}: every library it loads is covered")
    if failures:
        print("\n".join(failures), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
