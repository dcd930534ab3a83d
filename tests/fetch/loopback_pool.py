"""Helpers of the fetch tests: an archive served on loopback, and the checks' report."""
import functools
import http.server
import sys
import threading


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def serve(directory):
    """Serves directory on 127.0.0.1 (any free port) until shutdown()."""
    handler = functools.partial(QuietHandler, directory=directory)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def check(condition, what, result):
    """Reports one check; on failure prints the script's output and exits 1."""
    if not condition:
        print(f"FAIL: {what}\nstdout:\n{result.stdout}\nstderr:\n{result.stderr}")
        sys.exit(1)
    print(f"ok: {what}")
