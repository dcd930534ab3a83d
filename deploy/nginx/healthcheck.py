#!/usr/bin/python3
"""Active health checks of sandboxd nodes for nginx open source (which has none of its own).

  healthcheck.py --output FILE [--reload COMMAND] LISTEN NODE...

Every INTERVAL_S it sends `GET /healthz` to each NODE (HOST:PORT, all at once, each with
TIMEOUT_S for the whole answer). A node that fails FAILS_TO_DOWN checks in a row is marked down,
one that then passes PASSES_TO_UP checks in a row is marked up again. When the set of nodes
marked down changes, it renders FILE with render.sh (next to this script) as
`render.sh --down NODE... LISTEN NODE...`, replaces FILE atomically and runs COMMAND (default
`systemctl reload nginx`); when nothing changed, it does neither. A `down` server keeps its place
on nginx's consistent-hash ring, so only the down node's sandbox ids move. It never marks every
node down: if they all fail, nginx keeps them all and its passive checks and 502s speak.

FILE is this program's output: the node list is its arguments (deploy/README.md, "Health
checks"). On start, the nodes FILE already marks down start down, so a restart does not bring a
failing node back. Decisions go to stderr (the journal under deploy/sandboxd-healthcheck.service).
Python 3 standard library only.
"""
import argparse
import http.client
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import threading
import time

# A round of checks starts every INTERVAL_S (later if the previous round took longer).
INTERVAL_S = 1.0
# One check: connecting, sending `GET /healthz` and reading {"status":"ok"}, all within this.
# sandboxd answers /healthz from the request head without a worker thread, so a live node
# answers in milliseconds even when all its workers are busy.
TIMEOUT_S = 1.0
# Consecutive failed checks before a node is marked down: a node that stopped answering is out
# of nginx within about FAILS_TO_DOWN * (INTERVAL_S + TIMEOUT_S) + a reload.
FAILS_TO_DOWN = 3
# Consecutive passed checks before a node marked down is marked up again (a node that flaps
# does not bounce in and out of the ring every second).
PASSES_TO_UP = 3
# The reload command (`systemctl reload nginx` returns once nginx has read the file).
RELOAD_TIMEOUT_S = 30


def log(msg):
    print(f"healthcheck: {msg}", file=sys.stderr, flush=True)


def check(node, timeout=TIMEOUT_S):
    """(True, "") if `node` answers GET /healthz with 200 {"status":"ok"} within `timeout`,
    else (False, why)."""
    deadline = time.monotonic() + timeout
    conn = http.client.HTTPConnection(node, timeout=timeout)
    try:
        conn.request("GET", "/healthz", headers={"connection": "close"})
        conn.sock.settimeout(max(0.01, deadline - time.monotonic()))
        r = conn.getresponse()
        body = r.read(4096)
        if time.monotonic() > deadline:
            return False, f"answered after more than {timeout} s"
        if r.status != 200:
            return False, f"status {r.status}"
        try:
            ok = json.loads(body).get("status") == "ok"
        except (ValueError, AttributeError):
            ok = False
        return (True, "") if ok else (False, f"unexpected answer {body[:100]!r}")
    except (OSError, http.client.HTTPException) as e:
        return False, (f"no answer within {timeout} s" if isinstance(e, TimeoutError)
                       else f"{type(e).__name__}: {e}")
    finally:
        conn.close()


def marked_down(text):
    """The nodes a rendered file marks `down` (in its first upstream block's server lines)."""
    return {m.group(1) for m in re.finditer(r"^    server (\S+) [^;\n]*\bdown;$", text or "",
                                            re.M)}


class Node:
    def __init__(self, address, down):
        self.address = address
        self.down = down
        self.fails = 0
        self.passes = 0
        self.thread = None
        self.result = None  # (ok, why) of the last finished check

    def start_check(self):
        def run():
            self.result = check(self.address)
        self.result = None
        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()

    def record(self, ok, why):
        """Counts one check; returns a decision to log when the node changes state."""
        if ok:
            self.fails = 0
            self.passes += 1
            if self.down and self.passes == 1:
                log(f"{self.address} passed a check (1 of {PASSES_TO_UP} to be marked up)")
            if self.down and self.passes >= PASSES_TO_UP:
                self.down = False
                return f"{self.address} passed {self.passes} checks in a row: marking it up"
            return None
        self.passes = 0
        self.fails += 1
        if not self.down and self.fails < FAILS_TO_DOWN:
            log(f"{self.address} failed a check ({why}; {self.fails} of {FAILS_TO_DOWN} to be "
                f"marked down)")
        if not self.down and self.fails >= FAILS_TO_DOWN:
            self.down = True
            return f"{self.address} failed {self.fails} checks in a row ({why}): marking it down"
        return None


class Checker:
    def __init__(self, args):
        self.args = args
        self.render = args.render or os.path.join(
            os.path.dirname(os.path.realpath(__file__)), "render.sh")
        self.reload = shlex.split(args.reload)
        current = self.read_output()
        was_down = marked_down(current) & set(args.nodes)
        self.nodes = [Node(a, a in was_down) for a in args.nodes]
        # The text nginx was last reloaded with, as far as we know: what is in FILE at start
        # (nginx runs it, or will on its next start). None: reload even if FILE is right.
        self.applied = current
        self.all_failing = False
        if was_down:
            log(f"{args.output} marks {', '.join(sorted(was_down))} down: they stay down until "
                f"they pass {PASSES_TO_UP} checks")

    def read_output(self):
        try:
            with open(self.args.output) as f:
                return f.read()
        except FileNotFoundError:
            return None

    def desired(self):
        down = [n.address for n in self.nodes if n.down]
        if len(down) == len(self.nodes):
            if not self.all_failing:
                log("every node is failing its checks: keeping them all in nginx (its passive "
                    "checks and 502s decide)")
            self.all_failing = True
            down = []
        else:
            self.all_failing = False
        argv = [self.render]
        for address in down:
            argv += ["--down", address]
        argv += [self.args.listen] + [n.address for n in self.nodes]
        r = subprocess.run(argv, capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"{' '.join(argv)} failed: {r.stderr.strip()}")
        return r.stdout, down

    def write_output(self, text):
        path = self.args.output
        directory = os.path.dirname(os.path.abspath(path))
        fd, tmp = tempfile.mkstemp(prefix=".sandboxd-healthcheck-", dir=directory)
        try:
            with os.fdopen(fd, "w") as f:
                f.write(text)
                f.flush()
                os.fsync(f.fileno())
            try:
                st = os.stat(path)
                os.chmod(tmp, st.st_mode & 0o7777)
                if (st.st_uid, st.st_gid) != (os.getuid(), os.getgid()):
                    os.chown(tmp, st.st_uid, st.st_gid)
            except FileNotFoundError:
                os.chmod(tmp, 0o644)
            os.replace(tmp, path)
        except BaseException:
            try:
                os.unlink(tmp)
            except FileNotFoundError:
                pass
            raise

    def apply(self):
        """Renders the current decisions; writes FILE and reloads nginx only if they changed."""
        text, down = self.desired()
        if text == self.applied:
            return False
        if self.read_output() != text:
            self.write_output(text)
        what = f"down: {', '.join(down)}" if down else "every node up"
        try:
            r = subprocess.run(self.reload, capture_output=True, text=True,
                               timeout=RELOAD_TIMEOUT_S)
            failure = (f"exit {r.returncode}: {(r.stderr or r.stdout).strip()}"
                       if r.returncode != 0 else None)
        except (OSError, subprocess.TimeoutExpired) as e:
            failure = str(e)
        if failure:
            log(f"rendered {self.args.output} ({what}) but `{self.args.reload}` failed "
                f"({failure}); retrying next round")
            return False
        self.applied = text
        log(f"wrote {self.args.output} ({what}) and reloaded nginx")
        return True

    def round(self):
        """One round of checks, all nodes at once; a node whose previous check has not finished
        (it cannot take much over TIMEOUT_S) counts as failing again."""
        for n in self.nodes:
            if n.thread is None or not n.thread.is_alive():
                n.start_check()
        deadline = time.monotonic() + TIMEOUT_S + 0.2
        for n in self.nodes:
            n.thread.join(max(0, deadline - time.monotonic()))
        for n in self.nodes:
            ok, why = n.result if n.result is not None else (False, "check still running")
            decision = n.record(ok, why)
            if decision:
                log(decision)

    def run(self, rounds=None):
        self.apply()  # FILE as the arguments and the start state say
        done = 0
        while rounds is None or done < rounds:
            started = time.monotonic()
            self.round()
            self.apply()
            done += 1
            time.sleep(max(0.0, started + INTERVAL_S - time.monotonic()))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--output", required=True,
                        help="the rendered nginx file (/etc/nginx/conf.d/sandboxd.conf)")
    parser.add_argument("--reload", default="systemctl reload nginx",
                        help="the command that makes nginx read it (split like a shell does)")
    parser.add_argument("--render", help="render.sh (default: the one next to this script)")
    parser.add_argument("--rounds", type=int, help="stop after this many rounds (tests)")
    parser.add_argument("listen", help="what nginx listens on, as for render.sh")
    parser.add_argument("nodes", nargs="+", metavar="node", help="a sandboxd node's HOST:PORT")
    args = parser.parse_args()
    if len(set(args.nodes)) != len(args.nodes):
        parser.error("a node is listed twice")
    log(f"checking GET /healthz on {' '.join(args.nodes)} every {INTERVAL_S} s "
        f"(timeout {TIMEOUT_S} s; down after {FAILS_TO_DOWN} failures, up after "
        f"{PASSES_TO_UP} passes)")
    try:
        Checker(args).run(args.rounds)
    except KeyboardInterrupt:
        return 0
    except (RuntimeError, OSError) as e:
        log(str(e))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
