#!/usr/bin/env python3
"""deploy/nginx/healthcheck.py against two fake nodes whose /healthz this test controls (answer,
hang, 500), with a reload command that only counts: the file it renders and when it reloads.

  - no file yet: it renders every node up and reloads once; then, nothing changing, never again;
  - a node that hangs is marked down after FAILS_TO_DOWN checks (file + one reload), and only it;
  - every node failing: none is marked down (nginx keeps them all), one reload;
  - a node that answers again is marked up after PASSES_TO_UP checks;
  - restarted with a file that marks a node down, it keeps it down and does not reload.

  check_healthcheck.py DEPLOY_DIR
"""
import http.server
import importlib.util
import os
import re
import shlex
import socketserver
import subprocess
import sys
import tempfile
import threading
import time

deploy = sys.argv[1]
script = os.path.join(deploy, "nginx", "healthcheck.py")
spec = importlib.util.spec_from_file_location("healthcheck", script)
hc = importlib.util.module_from_spec(spec)
spec.loader.exec_module(hc)
# A transition takes at most this many rounds of checks (each an interval, or a timeout).
ROUND_S = hc.INTERVAL_S + hc.TIMEOUT_S + 0.5


class FakeNode:
    """GET /healthz answers per self.mode: "ok", "hang" (never within the timeout), "500"."""

    def __init__(self):
        node = self
        self.mode = "ok"

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                if node.mode == "hang":
                    time.sleep(hc.TIMEOUT_S * 3)
                status, body = (500, b"{}") if node.mode == "500" else (200, b'{"status":"ok"}')
                self.send_response(status)
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
            daemon_threads = True

            def handle_error(self, request, client_address):
                pass  # the checker gave up on a hanging answer: a broken pipe

        self.server = Server(("127.0.0.1", 0), Handler)
        self.address = f"127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


def main():
    tmp = tempfile.mkdtemp(prefix="healthcheck-test-")
    output = os.path.join(tmp, "sandboxd.conf")
    reloads = os.path.join(tmp, "reloads")
    log_path = os.path.join(tmp, "log")
    a, b = FakeNode(), FakeNode()
    proc = None

    def start():
        argv = [script, "--output", output, "--reload",
                f"sh -c {shlex.quote('echo x >> ' + shlex.quote(reloads))}", "8080", a.address,
                b.address]
        return subprocess.Popen(argv, stderr=open(log_path, "a"), stdout=subprocess.DEVNULL)

    def count_reloads():
        try:
            with open(reloads) as f:
                return len(f.read().splitlines())
        except FileNotFoundError:
            return 0

    def down():
        try:
            with open(output) as f:
                text = f.read()
        except FileNotFoundError:
            return None
        return set(re.findall(r"^    server (\S+) [^;\n]*\bdown;$", text, re.M))

    def wait(what, predicate, rounds):
        deadline = time.monotonic() + rounds * ROUND_S
        while not predicate():
            if proc.poll() is not None or time.monotonic() > deadline:
                with open(log_path) as f:
                    said = f.read()
                raise AssertionError(f"{what}: down {down()}, {count_reloads()} reloads\n{said}")
            time.sleep(0.05)

    def steady(what, want_down, want_reloads, rounds=2):
        # Nothing changes for `rounds` rounds of checks.
        end = time.monotonic() + rounds * (hc.INTERVAL_S + 0.2)
        while time.monotonic() < end:
            if down() != want_down or count_reloads() != want_reloads:
                raise AssertionError(f"{what}: down {down()}, {count_reloads()} reloads")
            time.sleep(0.1)

    try:
        proc = start()
        wait("first render", lambda: down() == set() and count_reloads() == 1, 2)
        steady("all up", set(), 1)
        b.mode = "hang"
        wait("hanging node marked down", lambda: down() == {b.address} and count_reloads() == 2,
             hc.FAILS_TO_DOWN + 1)
        a.mode = "500"
        wait("every node failing: all kept", lambda: down() == set() and count_reloads() == 3,
             hc.FAILS_TO_DOWN + 1)
        steady("every node failing", set(), 3)
        b.mode = "ok"
        wait("node answering again marked up", lambda: down() == {a.address} and
             count_reloads() == 4, hc.PASSES_TO_UP + 2)
        proc.terminate()
        proc.wait()
        proc = start()  # a restart: the file marks a down, and a still fails
        steady("restarted", {a.address}, 4, rounds=hc.PASSES_TO_UP)
        a.mode = "ok"
        wait("restarted, a marked up", lambda: down() == set() and count_reloads() == 5,
             hc.PASSES_TO_UP + 1)
        with open(log_path) as f:
            said = f.read()
        for line in ("marking it down", "marking it up", "every node is failing",
                     "stay down until"):
            if line not in said:
                raise AssertionError(f"the log lacks {line!r}:\n{said}")
        print("healthcheck.py: ok")
        return 0
    finally:
        if proc and proc.poll() is None:
            proc.terminate()
            proc.wait()
        a.server.shutdown()
        b.server.shutdown()


if __name__ == "__main__":
    sys.exit(main())
