#!/usr/bin/env python3
"""Runs one flow of docs/build-your-own-runtime.md: every ```sh block of the flow's sections,
in order, as a reader would (see guide.py for the conventions), against this build tree.

  run_guide.py --guide DOC --source-dir SRC --build-dir BUILD --flow NAME [--keep]

The reader's world is simulated, and only in these ways:
  - $HOME is a new temporary directory (so ~/sandbox-kit, ~/calc2 ... live outside the source
    tree), and the session starts in a temporary "checkout" whose build/default is BUILD and
    whose other top-level entries are symbolic links to SRC's (for the files the guide copies);
  - the guide's ports 8080, 8081 and 8787 are replaced by free ones (in commands and expected
    output), and SANDBOXD_URL points the `sandbox` CLI at the replacement of 8787;
  - CMake uses ccache and 2 jobs, and CMAKE_PREFIX_PATH is unset (the guide passes the kit).
Everything else is the guide's text, run by bash. A command failing, printing something other
than its expected output, or a server not getting ready fails the test, with the output.
"""
import argparse
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

import guide

COMMAND_TIMEOUT = 1200
SERVER_READY_TIMEOUT = 60
GUIDE_PORTS = (8080, 8081, 8787)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Session:
    def __init__(self, root, source_dir, build_dir, keep):
        self.root = root
        self.keep = keep
        self.home = os.path.join(root, "home")
        self.checkout = os.path.join(root, "checkout")
        self.state = os.path.join(root, "state")
        for d in (self.home, self.state, os.path.join(self.checkout, "build")):
            os.makedirs(d)
        os.symlink(os.path.abspath(build_dir), os.path.join(self.checkout, "build", "default"))
        for entry in os.listdir(source_dir):
            if entry not in ("build", ".git"):
                os.symlink(os.path.join(os.path.abspath(source_dir), entry),
                           os.path.join(self.checkout, entry))
        self.ports = {}
        while len(self.ports) < len(GUIDE_PORTS):
            p = free_port()
            if p not in self.ports.values():
                self.ports[GUIDE_PORTS[len(self.ports)]] = p
        self.env = self._initial_env()
        with open(os.path.join(self.state, "cwd"), "w") as f:
            f.write(self.checkout)
        self._save_env(self.env)
        self.servers = {}  # terminal -> (Popen, log path, text)

    def _initial_env(self):
        env = dict(os.environ)
        env.pop("CMAKE_PREFIX_PATH", None)
        env.pop("SANDBOXD_API_KEY", None)
        if "CCACHE_DIR" not in env and shutil.which("ccache"):
            cache = subprocess.run(["ccache", "--get-config", "cache_dir"], capture_output=True,
                                   text=True).stdout.strip()
            if cache:
                env["CCACHE_DIR"] = cache
        if shutil.which("ccache"):
            env["CMAKE_C_COMPILER_LAUNCHER"] = "ccache"
            env["CMAKE_CXX_COMPILER_LAUNCHER"] = "ccache"
        env["CMAKE_BUILD_PARALLEL_LEVEL"] = "2"
        env["HOME"] = self.home
        env["SANDBOXD_URL"] = f"http://127.0.0.1:{self.ports[8787]}"
        return env

    def _save_env(self, env):
        with open(os.path.join(self.state, "env.sh"), "w") as f:
            for k, v in env.items():
                if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", k):
                    f.write(f"export {k}={shlex.quote(v)}\n")

    def rewrite(self, text):
        for guide_port, port in self.ports.items():
            text = re.sub(rf"(?<=[: ]){guide_port}\b", str(port), text)
        return text

    def run(self, command):
        text = self.rewrite(command.text)
        print(f"$ {text}", flush=True)
        state = self.state
        script = (f'cd "$(cat {state}/cwd)" && source {state}/env.sh || exit 99\n'
                  f"{text}\n"
                  f"__rc=$?; pwd > {state}/cwd; "
                  f"export -p | grep -v -E '^declare -x (PWD|OLDPWD|SHLVL|_)=' > {state}/env.sh; "
                  f"exit $__rc\n")
        try:
            r = subprocess.run(["bash", "-c", script], env=self.env, capture_output=True,
                               text=True, timeout=COMMAND_TIMEOUT)
        except subprocess.TimeoutExpired as e:
            raise SystemExit(f"timed out after {COMMAND_TIMEOUT} s:\n{e.stdout}\n{e.stderr}")
        output = r.stdout + r.stderr
        if r.returncode != 0:
            self.fail(f"exit status {r.returncode}", output)
        missing = guide.matches([self.rewrite(l) for l in command.expected], output)
        if missing is not None:
            self.fail(f"the output lacks '{missing}'", output)
        shown = output if len(output) < 4000 else output[:1500] + "\n[...]\n" + output[-2000:]
        print(shown, end="" if shown.endswith("\n") or not shown else "\n", flush=True)

    def start(self, server):
        if server.terminal in self.servers:
            print(f"(Ctrl-C in terminal {server.terminal})", flush=True)
            self.stop(server.terminal)
        text = self.rewrite(server.text)
        print(f"[terminal {server.terminal}] $ {text}", flush=True)
        log_path = os.path.join(self.root, f"terminal{server.terminal}-{time.monotonic_ns()}.log")
        log = open(log_path, "w")
        # A new terminal: $HOME and the initial environment (not the session's exports).
        proc = subprocess.Popen(["bash", "-c", text], cwd=self.home, env=self.env, stdout=log,
                                stderr=subprocess.STDOUT, start_new_session=True)
        self.servers[server.terminal] = (proc, log_path, text)
        expected = [self.rewrite(l) for l in server.expected]
        deadline = time.monotonic() + SERVER_READY_TIMEOUT
        while True:
            output = open(log_path).read()
            if guide.matches(expected, output) is None:
                print(output, end="", flush=True)
                return
            if proc.poll() is not None:
                self.fail(f"terminal {server.terminal} exited with {proc.returncode}", output)
            if time.monotonic() > deadline:
                self.fail(f"terminal {server.terminal} not ready after {SERVER_READY_TIMEOUT} s",
                          output)
            time.sleep(0.05)

    def stop(self, terminal):
        proc, log_path, text = self.servers.pop(terminal)
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGINT)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
                self.fail(f"terminal {terminal} did not stop on Ctrl-C: {text}",
                          open(log_path).read())
        return open(log_path).read()

    def fail(self, what, output):
        print(f"\nFAILED: {what}\n--- output ---\n{output}\n--------------", flush=True)
        for terminal in list(self.servers):
            print(f"--- terminal {terminal} ---\n{self.stop(terminal)}", flush=True)
        raise SystemExit(1)

    def close(self):
        for terminal in list(self.servers):
            self.stop(terminal)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--guide", required=True)
    ap.add_argument("--source-dir", required=True)
    ap.add_argument("--build-dir", required=True)
    ap.add_argument("--flow", required=True, choices=sorted(guide.FLOWS))
    ap.add_argument("--keep", action="store_true", help="keep the temporary directory")
    args = ap.parse_args()

    blocks = guide.read_blocks(args.guide)
    sections = guide.FLOWS[args.flow]
    for s in sections:
        if not any(b.section == s for b in blocks):
            sys.exit(f"{args.guide}: no code in section '{s}' of flow {args.flow}")
    root = tempfile.mkdtemp(prefix=f"sandbox-kit-{args.flow}-")
    session = Session(root, args.source_dir, args.build_dir, args.keep)
    ran = 0
    try:
        for section in sections:
            print(f"\n=== {section}", flush=True)
            for block in blocks:
                if block.section != section or block.language != "sh":
                    continue
                for step in guide.parse_sh(block):
                    if isinstance(step, guide.Server):
                        session.start(step)
                    else:
                        session.run(step)
                    ran += 1
        session.close()
        print(f"\nflow {args.flow}: {ran} steps of {args.guide} ran as written")
    finally:
        session.close()
        if args.keep:
            print(f"kept {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
