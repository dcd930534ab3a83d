#!/usr/bin/env python3
"""http-load with several --url: each server gets exactly -n requests per connection, whatever
--turn is (http_load_sends_n_to_each_server_whatever_the_turn). It used to stop after n times the
number of servers requests in all, so with -n 30, --turn 50 and three servers they got 50, 40 and
0, and bench/run's --quick comparison measured one server on nothing.

Usage: turns_test.py HTTP_LOAD SANDBOX_RUNTIME"""
import os
import re
import signal
import subprocess
import sys
import tempfile

http_load, runtime = sys.argv[1], sys.argv[2]


def start(data):
    proc = subprocess.Popen([runtime, "--engine", "calc", "--listen", "127.0.0.1:0", "--data",
                             data], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    match = re.search(r"listening on port (\d+)", proc.stdout.readline())
    if not match:
        proc.kill()
        sys.exit("turns_test: the calc server did not start")
    return proc, f"http://127.0.0.1:{match.group(1)}"


def counts(urls, n, turn, connections):
    args = [http_load]
    for url in urls:
        args += ["--url", url]
    args += ["--path", "/execute", "--method", "POST", "--body", '{"code":"1+1"}', "-n", str(n),
             "--turn", str(turn), "-c", str(connections), "--expect", '"2"']
    out = subprocess.run(args, capture_output=True, text=True, timeout=120)
    if out.returncode != 0:
        sys.exit(f"turns_test: http-load failed: {out.stdout}{out.stderr}")
    return [int(x) for x in re.findall(r"errors=0 n=(\d+)", out.stdout)]


with tempfile.TemporaryDirectory() as work:
    servers = [start(os.path.join(work, str(i))) for i in range(3)]
    try:
        urls = [url for _, url in servers]
        failures = []
        for n, turn, connections, wanted in ((30, 50, 1, 30), (30, 7, 1, 30), (120, 50, 1, 120),
                                             (30, 50, 2, 60), (1, 1, 1, 1)):
            got = counts(urls, n, turn, connections)
            if got != [wanted] * len(urls):
                failures.append(f"-n {n} --turn {turn} -c {connections}: {got}, "
                                f"wanted {wanted} each")
        got = counts(urls[:1], 30, 50, 1)
        if got != [30]:
            failures.append(f"one server, -n 30 --turn 50: {got}, wanted [30]")
    finally:
        for proc, _ in servers:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=60)
    if failures:
        sys.exit("turns_test: " + "; ".join(failures))
    print("turns_test: each server got -n requests per connection")
