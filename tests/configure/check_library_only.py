#!/usr/bin/env python3
"""The library-only build (CMakeLists.txt: SANDBOX_BUILD_ENGINES, SANDBOX_BUILD_PLAYGROUND and
SANDBOX_WITH_POSTGRES off, no tests, no benchmarks) needs neither node/npm nor libpq.

Configure check (seconds): this source tree is configured in a temporary directory with a PATH
that has no node, nodejs, npm or npx, with SANDBOX_NODE and SANDBOX_NPM naming files that do not
exist (a configure that looked at them would stop: src/playground/CMakeLists.txt), and with
find_package(PostgreSQL) disabled (CMAKE_DISABLE_FIND_PACKAGE_PostgreSQL: a REQUIRED find stops
configure). It must succeed, and its cache must hold no PostgreSQL or node entry. Two controls
show that the same setup does stop configure when the Playground, or PostgreSQL, is turned on.

With --build-dir DIR, the library-only tree in DIR (kept between runs, so that a rerun is
incremental) is also built, and its sandboxd is run: --database stops it with the message of a
build without PostgreSQL, and GET / answers the page of a build without the Playground.
"""
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

from configure_run import argument_parser, configure

LIBRARY_ONLY = ["-DSANDBOX_BUILD_ENGINES=OFF", "-DSANDBOX_BUILD_PLAYGROUND=OFF",
                "-DSANDBOX_WITH_POSTGRES=OFF", "-DSANDBOX_BUILD_TESTS=OFF",
                "-DSANDBOX_BUILD_BENCH=OFF", "-DSANDBOX_WERROR=ON"]
NODE_TOOLS = {"node", "nodejs", "npm", "npx"}


def path_without_node(directory):
    """A directory of links to every program on PATH but node's, as the new PATH."""
    os.makedirs(directory)
    for entry in os.environ.get("PATH", "").split(os.pathsep):
        if not os.path.isdir(entry):
            continue
        for name in os.listdir(entry):
            link = os.path.join(directory, name)
            if name in NODE_TOOLS or os.path.lexists(link):
                continue
            target = os.path.join(entry, name)
            if os.path.isfile(target) and os.access(target, os.X_OK):
                os.symlink(target, link)
    return directory


def cache_entries(build_dir):
    with open(os.path.join(build_dir, "CMakeCache.txt")) as f:
        return [line.split(":", 1)[0] for line in f if line[:1].isalpha()]


def check_configure(args, tmp):
    env = dict(os.environ, PATH=path_without_node(os.path.join(tmp, "bin")))
    for tool in NODE_TOOLS:
        if shutil.which(tool, path=env["PATH"]):
            return [f"{tool} is still on the PATH of the test"]
    gone = os.path.join(tmp, "gone")
    no_node = ["-DSANDBOX_NODE=" + os.path.join(gone, "node"),
               "-DSANDBOX_NPM=" + os.path.join(gone, "npm"),
               "-DCMAKE_DISABLE_FIND_PACKAGE_PostgreSQL=ON"]
    problems = []
    rc, out = configure(args, os.path.join(tmp, "library-only"), LIBRARY_ONLY + no_node, env)
    if rc != 0:
        problems.append("library-only configure failed:\n" + out[-3000:])
    else:
        found = [e for e in cache_entries(os.path.join(tmp, "library-only"))
                 if e.startswith("PostgreSQL_") or e in ("SANDBOX_TEST_NODE",)]
        if found:
            problems.append("library-only configure looked for: " + ", ".join(found))
    print(f"library-only configure: {'ok' if not problems else 'FAILED'}")

    # The controls: the same setup with one part turned back on stops configure.
    controls = [
        ("Playground on", "-DSANDBOX_BUILD_PLAYGROUND=ON", "package npm"),
        ("PostgreSQL on", "-DSANDBOX_WITH_POSTGRES=ON", "PostgreSQL"),
    ]
    for index, (name, option, want) in enumerate(controls):
        rc, out = configure(args, os.path.join(tmp, f"control{index}"),
                            LIBRARY_ONLY + no_node + [option], env)
        flat = " ".join(out.split())
        ok = rc != 0 and want in flat
        print(f"control, {name}: {'stops configure' if ok else 'FAILED'}")
        if not ok:
            problems.append(f"control '{name}': configure exited {rc}, expected a failure "
                            f"naming '{want}':\n" + out[-3000:])
    return problems


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def check_build(args, build_dir, tmp):
    start = time.monotonic()
    rc, out = configure(args, build_dir, LIBRARY_ONLY, dict(os.environ))
    if rc != 0:
        return ["library-only configure (build tree) failed:\n" + out[-3000:]]
    r = subprocess.run([args.cmake, "--build", build_dir, "--target", "sandboxd", "--", "-j",
                        str(args.jobs)],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=1500)
    print(f"library-only build of sandboxd: {time.monotonic() - start:.0f} s")
    if r.returncode != 0:
        return ["library-only build failed:\n" + r.stdout[-3000:]]
    sandboxd = os.path.join(build_dir, "tools", "sandboxd", "sandboxd")
    problems = []
    with open(os.path.join(build_dir, "CMakeCache.txt")) as f:
        cache = f.read()
    if "PostgreSQL_LIBRARY" in cache:
        problems.append("the library-only build tree looked for libpq")
    ldd = subprocess.run(["ldd", sandboxd], stdout=subprocess.PIPE, text=True)
    if "libpq" in ldd.stdout:
        problems.append("sandboxd of the library-only build links libpq:\n" + ldd.stdout)

    data = os.path.join(tmp, "data")
    r = subprocess.run([sandboxd, "--data", data, "--database", "postgresql://u@localhost/db"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=60)
    want = ("sandboxd: --database: this build has no PostgreSQL support (it was configured "
            "with -DSANDBOX_WITH_POSTGRES=OFF)")
    if r.returncode != 2 or want not in r.stderr:
        problems.append(f"sandboxd --database: exit {r.returncode}, stderr {r.stderr!r}")
    else:
        print("sandboxd --database: refused, naming the build option")

    port = free_port()
    proc = subprocess.Popen([sandboxd, "--data", data, "--listen", f"127.0.0.1:{port}"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        banner = ""
        deadline = time.monotonic() + 60
        while "Playground:" not in banner and time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            banner += line
        if "Playground: not in this build" not in banner:
            problems.append("sandboxd's start-up lines: " + repr(banner))
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=30) as page:
            body = page.read().decode()
        if "built without the Playground" not in body:
            problems.append("GET / of the library-only sandboxd: " + body[:500])
        else:
            print("sandboxd GET /: the page of a build without the Playground")
    except OSError as e:
        problems.append(f"GET / of the library-only sandboxd: {e}")
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    return problems


def main():
    p = argument_parser()
    p.add_argument("--build-dir", help="also build the library-only tree here and run sandboxd")
    p.add_argument("--jobs", type=int, default=2)
    args = p.parse_args()

    with tempfile.TemporaryDirectory(prefix="sandbox-library-only-") as tmp:
        problems = check_configure(args, tmp)
        if args.build_dir and not problems:
            problems += check_build(args, args.build_dir, tmp)
    for problem in problems:
        print("FAILED: " + problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
