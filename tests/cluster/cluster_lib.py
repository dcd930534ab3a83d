"""A cluster on loopback, built as deploy/README.md builds one: a private PostgreSQL server
(initdb in a temporary directory), sandboxd nodes sharing its database, and nginx running the
shipped deploy/nginx/sandboxd.conf.in rendered by deploy/nginx/render.sh, and the shipped
active health check deploy/nginx/healthcheck.py when a scenario runs it. Used by
tests/cluster/cluster_test.py and bench/cluster/run.

Also the workload: sandboxes with code contexts in several languages and files, and a ledger of
every acknowledged change, checked after each disruption.

Everything runs unprivileged: as root (CI containers), PostgreSQL runs as `postgres` and nginx as
`nobody`, each in a directory handed to it.
"""
import concurrent.futures
import glob
import importlib.util
import http.client
import json
import os
import pwd
import random
import re
import shlex
import shutil
import signal
import socket
import subprocess
import threading
import time

API_KEY = "cluster-test-key"
# How long a node, nginx or PostgreSQL may take to answer its first request.
READY_TIMEOUT = 60
# A request through nginx or to a node; longer than any pause the scenarios cause.
REQUEST_TIMEOUT = 60
# Sandboxes read back at once by Workload.check(). With the workload's clients this stays within
# sandboxd's 8 executions in flight per API key (--max-executions-per-key), whichever nodes the
# requests land on.
CHECK_THREADS = 2
# Files the workload overwrites in each sandbox.
FILES_PER_SANDBOX = 4
# deploy/README.md, step 1: PostgreSQL ends a session that sits in a transaction this long. A
# node paused (or hung) inside a write transaction holds its sandbox's lease row FOR SHARE, and
# no other node can take that sandbox over until the lock goes (storage/postgres); the nodes'
# own transactions never wait on their client for more than milliseconds.
PG_IDLE_IN_TRANSACTION_TIMEOUT = "5s"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def as_user(user):
    """The argv prefix that runs a command as `user` when we are root, else nothing."""
    if os.geteuid() != 0:
        return []
    runuser = shutil.which("runuser") or "/usr/sbin/runuser"
    return [runuser, "-u", user, "--"]


def hand_to(path, user):
    if os.geteuid() == 0:
        pw = pwd.getpwnam(user)
        os.chown(path, pw.pw_uid, pw.pw_gid)


def read(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return ""


class Response:
    def __init__(self, status, body, elapsed):
        self.status = status
        self.body = body
        self.elapsed = elapsed

    def json(self):
        try:
            return json.loads(self.body)
        except ValueError:
            return None

    def __repr__(self):
        return f"<{self.status} {self.body[:300]!r}>"


def request(port, method, path, body=None, timeout=REQUEST_TIMEOUT):
    """One HTTP request on a new connection. A transport failure is status 0."""
    start = time.monotonic()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    headers = {"authorization": f"Bearer {API_KEY}"}
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["content-type"] = "application/json"
    try:
        conn.request(method, path, body=data, headers=headers)
        r = conn.getresponse()
        text = r.read().decode(errors="replace")
        return Response(r.status, text, time.monotonic() - start)
    except (OSError, http.client.HTTPException) as e:
        return Response(0, f"transport: {e!r}", time.monotonic() - start)
    finally:
        conn.close()


class Postgres:
    """A private PostgreSQL server on 127.0.0.1:PORT (and a Unix socket in its directory)."""

    def __init__(self, root):
        versions = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                          key=lambda p: int(p.split("/")[-3]))
        if os.environ.get("PG_BINDIR"):
            versions = [os.path.join(os.environ["PG_BINDIR"], "initdb")]
        if not versions or not os.access(versions[-1], os.X_OK):
            raise RuntimeError("PostgreSQL is not installed (Debian package postgresql)")
        self.bindir = os.path.dirname(versions[-1])
        self.dir = os.path.join(root, "pg")
        os.makedirs(self.dir)
        hand_to(self.dir, "postgres")
        self.port = free_port()
        self.log = os.path.join(self.dir, "server.log")
        self._run(["initdb", "-D", self.data, "-U", "postgres", "-A", "trust", "-E", "UTF8",
                   "--locale=C", "--no-sync"])
        self.start()
        # deploy/README.md: a role and a database of its own for sandboxd.
        self._run(["createuser", "-h", self.dir, "-p", str(self.port), "-U", "postgres",
                   "sandboxd"])
        self._run(["createdb", "-h", self.dir, "-p", str(self.port), "-U", "postgres",
                   "-O", "sandboxd", "sandboxd"])
        self.query("ALTER ROLE sandboxd SET idle_in_transaction_session_timeout = "
                   f"'{PG_IDLE_IN_TRANSACTION_TIMEOUT}'")
        self.url = f"postgresql://sandboxd@127.0.0.1:{self.port}/sandboxd"

    @property
    def data(self):
        return os.path.join(self.dir, "data")

    def _run(self, argv, check=True):
        argv = as_user("postgres") + [os.path.join(self.bindir, argv[0])] + argv[1:]
        r = subprocess.run(argv, capture_output=True, text=True, cwd=self.dir, timeout=120)
        if check and r.returncode != 0:
            raise RuntimeError(f"{' '.join(argv)} failed:\n{r.stdout}{r.stderr}\n{read(self.log)}")
        return r

    def start(self):
        # fsync off: the test survives process deaths, not power cuts. synchronous_commit stays
        # on, so a commit acknowledged to sandboxd is in the WAL before it answers.
        options = (f"-k {self.dir} -c listen_addresses=127.0.0.1 -p {self.port} -c fsync=off "
                   f"-c full_page_writes=off -c max_connections=200")
        self._run(["pg_ctl", "-D", self.data, "-l", self.log, "-w", "-t", "60", "-o", options,
                   "start"])

    def stop(self, mode="fast"):
        self._run(["pg_ctl", "-D", self.data, "-m", mode, "-w", "-t", "60", "stop"], check=False)

    def query(self, sql):
        """Rows of `sql` as lists of strings (psql, unaligned)."""
        r = self._run(["psql", "-h", self.dir, "-p", str(self.port), "-U", "postgres", "-d",
                       "sandboxd", "-At", "-F", "\t", "-c", sql])
        return [line.split("\t") for line in r.stdout.splitlines() if line]

    def sandbox_owners(self):
        """sandbox id -> (owner node id, fencing token), from the lease rows (storage/lease.h)."""
        return {k: (o, int(t)) for k, o, t in
                self.query("SELECT key, owner, token FROM leases WHERE scope = 'sandbox'")}


class Node:
    """One sandboxd node on 127.0.0.1:PORT, in a process group of its own (its workers too)."""

    def __init__(self, root, sandboxd, name, database_url, ttl_ms, engines, port=None):
        self.name = name
        self.port = port or free_port()
        self.dir = os.path.join(root, name)
        os.makedirs(self.dir, exist_ok=True)
        # deploy/README.md, one node: sandboxd --listen ... --api-key ... --database ...
        # --node-id ...; the short lease TTL keeps the test short.
        self.argv = [sandboxd, "--listen", f"127.0.0.1:{self.port}", "--api-key", API_KEY,
                     "--database", database_url, "--node-id", name, "--lease-ttl-ms",
                     str(ttl_ms), "--engines", ",".join(engines), "--data",
                     os.path.join(self.dir, "data"), "--workers", "2"]
        self.proc = None
        self.stderr_path = os.path.join(self.dir, "stderr.log")

    def start(self):
        out = open(self.stderr_path, "a")
        self.proc = subprocess.Popen(self.argv, stdout=out, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, start_new_session=True)
        out.close()
        deadline = time.monotonic() + READY_TIMEOUT
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.name} exited:\n{read(self.stderr_path)}")
            if request(self.port, "GET", "/healthz", timeout=2).status == 200:
                return self
            time.sleep(0.05)
        raise RuntimeError(f"{self.name} did not get ready:\n{read(self.stderr_path)}")

    def kill(self):
        """SIGKILL the node's server process (its workers die with it)."""
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def stop_group(self):
        os.killpg(self.proc.pid, signal.SIGSTOP)

    def cont_group(self):
        os.killpg(self.proc.pid, signal.SIGCONT)

    def terminate(self):
        if self.proc is None:
            return
        try:
            os.killpg(self.proc.pid, signal.SIGCONT)
            self.proc.terminate()
            self.proc.wait(timeout=20)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            pass
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait()


class Nginx:
    """Debian's nginx on deploy/nginx/sandboxd.conf.in, rendered by deploy/nginx/render.sh.

    The shipped file is an http-context file (/etc/nginx/conf.d/ on Debian); the main file here
    only replaces what Debian's /etc/nginx/nginx.conf sets with paths an unprivileged process
    may write, and includes it.
    """

    def __init__(self, root, deploy_dir):
        self.nginx = shutil.which("nginx") or "/usr/sbin/nginx"
        if not os.access(self.nginx, os.X_OK):
            raise RuntimeError("nginx is not installed (Debian package nginx)")
        self.deploy_dir = deploy_dir
        self.dir = os.path.join(root, "nginx")
        os.makedirs(self.dir)
        self.port = free_port()
        self.conf = os.path.join(self.dir, "nginx.conf")
        self.site = os.path.join(self.dir, "sandboxd.conf")
        self.error_log = os.path.join(self.dir, "error.log")
        d = self.dir
        with open(self.conf, "w") as f:
            f.write(f"""worker_processes 1;
pid {d}/nginx.pid;
error_log {d}/error.log notice;
events {{ worker_connections 1024; }}
http {{
    access_log {d}/access.log;
    client_body_temp_path {d}/client_body;
    proxy_temp_path {d}/proxy;
    fastcgi_temp_path {d}/fastcgi;
    uwsgi_temp_path {d}/uwsgi;
    scgi_temp_path {d}/scgi;
    include {self.site};
}}
""")
        self.proc = None

    def render(self, node_ports):
        """deploy/README.md's step: render.sh LISTEN NODE... > sandboxd.conf."""
        r = subprocess.run([os.path.join(self.deploy_dir, "nginx", "render.sh"),
                            f"127.0.0.1:{self.port}"] +
                           [f"127.0.0.1:{p}" for p in node_ports],
                           capture_output=True, text=True, check=True)
        with open(self.site, "w") as f:
            f.write(r.stdout)
        for root, dirs, files in os.walk(self.dir):
            for name in dirs + files:
                hand_to(os.path.join(root, name), "nobody")
        hand_to(self.dir, "nobody")

    def _argv(self, *extra):
        return as_user("nobody") + [self.nginx, "-p", self.dir, "-e", self.error_log, "-c",
                                    self.conf, *extra]

    def start(self, node_ports):
        self.render(node_ports)
        r = subprocess.run(self._argv("-t"), capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"nginx -t failed:\n{r.stderr}")
        self.proc = subprocess.Popen(self._argv("-g", "daemon off;"), stdout=subprocess.DEVNULL,
                                     stderr=open(os.path.join(self.dir, "stderr.log"), "w"),
                                     start_new_session=True)
        deadline = time.monotonic() + READY_TIMEOUT
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"nginx exited:\n{read(self.error_log)}")
            if request(self.port, "GET", "/healthz", timeout=2).status == 200:
                return self
            time.sleep(0.05)
        raise RuntimeError(f"nginx did not get ready:\n{read(self.error_log)}")

    def reload(self, node_ports):
        """A new node list, as an operator does it: render again, then `nginx -s reload`."""
        self.render(node_ports)
        r = subprocess.run(self._argv("-s", "reload"), capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"nginx -s reload failed:\n{r.stderr}")
        time.sleep(1)  # the old workers finish; new ones take the new upstreams

    def terminate(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


class HealthChecker:
    """deploy/nginx/healthcheck.py, the shipped active check, run as
    deploy/sandboxd-healthcheck.service runs it: it owns the nginx file, marks failing nodes
    `down` there and reloads nginx (here: the test's `nginx -s reload`, as `nobody`)."""

    def __init__(self, nginx, node_ports):
        self.nginx = nginx
        self.script = os.path.join(nginx.deploy_dir, "nginx", "healthcheck.py")
        spec = importlib.util.spec_from_file_location("healthcheck", self.script)
        self.module = importlib.util.module_from_spec(spec)  # its constants: the thresholds
        spec.loader.exec_module(self.module)
        self.nodes = [f"127.0.0.1:{p}" for p in node_ports]
        self.log_path = os.path.join(nginx.dir, "healthcheck.log")
        self.proc = None

    def start(self):
        argv = [self.script, "--output", self.nginx.site, "--reload",
                shlex.join(self.nginx._argv("-s", "reload")), f"127.0.0.1:{self.nginx.port}",
                *self.nodes]
        out = open(self.log_path, "a")
        self.proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, start_new_session=True)
        out.close()
        return self

    def log(self):
        return read(self.log_path)

    def marked_down(self):
        """The nodes (HOST:PORT) the nginx file marks down now."""
        return set(re.findall(r"^    server (\S+) [^;\n]*\bdown;$", read(self.nginx.site),
                              re.M))

    def wait_for(self, what, predicate, timeout):
        deadline = time.monotonic() + timeout
        while not predicate():
            if self.proc.poll() is not None:
                raise RuntimeError(f"healthcheck.py exited:\n{self.log()}")
            if time.monotonic() > deadline:
                raise AssertionError(f"{what} within {timeout:.1f} s; healthcheck.py said:\n"
                                     f"{self.log()}")
            time.sleep(0.05)
        return time.monotonic()

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


# ---- the workload and its ledger -----------------------------------------------------------

# Code that appends a token to the context's global `log` and returns the log, per binding.
APPEND = {
    "LUA": 'log = (log or "") .. "{t},"\nreturn log',
    "JAVASCRIPT": 'globalThis.log = (globalThis.log || "") + "{t},"; globalThis.log',
    "PYTHON": 'globals()["log"] = globals().get("log", "") + "{t},"\nlog',
}
READ = {
    "LUA": 'return log or ""',
    "JAVASCRIPT": 'globalThis.log || ""',
    "PYTHON": 'globals().get("log", "")',
}


def result_text(r):
    """The text of an execute answer's first result, or None."""
    v = r.json()
    if r.status != 200 or not isinstance(v, dict) or v.get("error"):
        return None
    results = v.get("results") or []
    if not results:
        return None
    text = results[0].get("text")
    if text is None:
        return None
    # Lua and Python show a string result as a quoted literal; JavaScript as the string.
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        text = text[1:-1]
    return text


class SandboxLedger:
    """What was acknowledged for one sandbox: each context's log and each file's content.

    A request that was not acknowledged (a transport error, 5xx) may or may not have been
    applied; its token or file is remembered as `maybe` until a check settles it.
    """

    def __init__(self, sandbox_id):
        self.id = sandbox_id
        self.contexts = {}  # context id -> {"binding", "acked": [tokens], "maybe": [tokens]}
        self.files = {}  # path -> content of the last acknowledged write
        self.maybe_files = {}  # path -> contents of unacknowledged writes since
        self.lock = threading.Lock()


class Workload:
    """Clients that drive every sandbox through nginx, one sandbox at a time per client thread,
    recording every answer. `port` is nginx's (or a node's for the benchmark)."""

    def __init__(self, port, sandboxes, bindings, threads, seed=1):
        self.port = port
        self.ledgers = [SandboxLedger(f"cl-{i:03d}") for i in range(sandboxes)]
        self.bindings = bindings
        self.threads = threads
        self.random = random.Random(seed)
        self.stop_event = threading.Event()
        self.pause_event = threading.Event()
        self.workers = []
        self.events_lock = threading.Lock()
        # (monotonic time, sandbox id, op, status, elapsed seconds, body if not 200)
        self.events = []
        self.token_counter = 0
        # Sandboxes a scenario drives itself for a while (the clients leave them alone).
        self.excluded = set()
        # A client that found the ledger contradicted stops and leaves its reason here.
        self.failures = []

    def next_token(self):
        with self.events_lock:
            self.token_counter += 1
            return f"t{self.token_counter}"

    def record(self, sandbox_id, op, r):
        with self.events_lock:
            self.events.append((time.monotonic() - r.elapsed, sandbox_id, op, r.status, r.elapsed,
                                "" if r.status == 200 else r.body[:300]))

    def setup(self):
        """Each sandbox gets one context per binding (retrying until acknowledged)."""
        for ledger in self.ledgers:
            for binding in self.bindings:
                deadline = time.monotonic() + REQUEST_TIMEOUT
                while True:
                    r = request(self.port, "POST", f"/sandboxes/{ledger.id}/contexts",
                                {"binding": binding})
                    if r.status == 201:
                        ledger.contexts[r.json()["id"]] = {"binding": binding, "acked": [],
                                                          "maybe": []}
                        break
                    if time.monotonic() > deadline or r.status not in (0, 500, 502, 503):
                        raise AssertionError(f"creating a {binding} context in {ledger.id}: {r}")
                    time.sleep(0.2)

    def one_op(self, ledger):
        """One change to `ledger`'s sandbox: an append in a context, or a new file."""
        with ledger.lock:
            if self.random.random() < 0.7:
                cid = self.random.choice(sorted(ledger.contexts))
                ctx = ledger.contexts[cid]
                token = self.next_token()
                r = request(self.port, "POST", f"/sandboxes/{ledger.id}/execute",
                            {"code": APPEND[ctx["binding"]].replace("{t}", token),
                             "contextId": cid})
                self.record(ledger.id, "execute", r)
                text = result_text(r)
                if text is not None:
                    expected = ",".join(ctx["acked"])
                    seen = [t for t in text.split(",") if t]
                    # The answer is the whole log: every acknowledged token first, then perhaps
                    # some never-acknowledged ones that did commit, then this one.
                    n = len(ctx["acked"])
                    if not seen or seen[:n] != ctx["acked"] or seen[-1] != token or any(
                            t not in ctx["maybe"] for t in seen[n:-1]):
                        raise AssertionError(
                            f"{ledger.id}/{cid}: log {text!r} after acknowledged {expected!r} "
                            f"(maybe {ctx['maybe']})")
                    ctx["acked"] = seen
                    ctx["maybe"] = []
                else:
                    ctx["maybe"].append(token)
                return r
            # A few paths per sandbox, overwritten: the ledger stays small to check.
            path = f"/workspace/f-{self.random.randrange(FILES_PER_SANDBOX)}.txt"
            content = f"{ledger.id} {path} {self.next_token()}"
            r = request(self.port, "POST", f"/sandboxes/{ledger.id}/files",
                        {"op": "write", "path": path, "content": content})
            self.record(ledger.id, "write", r)
            if r.status == 200:
                ledger.files[path] = content
                ledger.maybe_files.pop(path, None)
            else:
                ledger.maybe_files.setdefault(path, set()).add(content)
            return r

    def _client(self, index):
        mine = self.ledgers[index::self.threads]
        rnd = random.Random(index)
        try:
            while not self.stop_event.is_set():
                ledger = rnd.choice(mine)
                if self.pause_event.is_set() or ledger.id in self.excluded:
                    time.sleep(0.02)
                    continue
                r = self.one_op(ledger)
                if r.status != 200:
                    time.sleep(0.1)  # a client backs off on an error (Retry-After: 1, shortened)
        except Exception as e:  # noqa: BLE001 - reported by check()
            self.failures.append(f"client {index}: {e}")

    def start(self):
        self.stop_event.clear()
        self.workers = [threading.Thread(target=self._client, args=(i,), daemon=True)
                        for i in range(self.threads)]
        for w in self.workers:
            w.start()

    def stop(self):
        self.stop_event.set()
        for w in self.workers:
            w.join(timeout=REQUEST_TIMEOUT + 5)
            if w.is_alive():
                raise AssertionError("a workload client is stuck")
        self.workers = []

    def events_since(self, t0):
        with self.events_lock:
            return [e for e in self.events if e[0] >= t0]

    def check(self, port=None, deadline_s=REQUEST_TIMEOUT):
        """Reads every context's log and every acknowledged file back (through `port`, nginx's
        by default), retrying refusals until `deadline_s`; fails on anything acknowledged that
        is missing or changed. Settles the `maybe` sets from what is there."""
        port = port or self.port
        if self.failures:
            raise AssertionError("the workload saw a contradiction:\n  " +
                                 "\n  ".join(self.failures))
        problems = []

        def check_one(ledger):
            with ledger.lock:
                for cid, ctx in sorted(ledger.contexts.items()):
                    r = self._retry(port, f"/sandboxes/{ledger.id}/execute",
                                    {"code": READ[ctx["binding"]], "contextId": cid}, deadline_s)
                    text = result_text(r)
                    if text is None:
                        problems.append(f"{ledger.id}/{cid}: read failed: {r}")
                        continue
                    seen = [t for t in text.split(",") if t]
                    if seen[:len(ctx["acked"])] != ctx["acked"] or any(
                            t not in ctx["maybe"] for t in seen[len(ctx["acked"]):]):
                        problems.append(f"{ledger.id}/{cid} ({ctx['binding']}): log {seen} "
                                        f"but acknowledged {ctx['acked']} (maybe {ctx['maybe']})")
                        continue
                    ctx["acked"] = seen
                    ctx["maybe"] = []
                for path in sorted(set(ledger.files) | set(ledger.maybe_files)):
                    r = self._retry(port, f"/sandboxes/{ledger.id}/files",
                                    {"op": "read", "path": path}, deadline_s)
                    v = r.json() or {}
                    acked = ledger.files.get(path)
                    maybe = ledger.maybe_files.get(path, set())
                    if r.status == 404 and acked is None:
                        ledger.maybe_files.pop(path, None)  # never written after all
                        continue
                    if r.status != 200 or (v.get("content") != acked and
                                           v.get("content") not in maybe):
                        problems.append(f"{ledger.id}: {path}: {r} instead of {acked!r} "
                                        f"(or one of {sorted(maybe)})")
                        continue
                    ledger.files[path] = v["content"]
                    ledger.maybe_files.pop(path, None)

        with concurrent.futures.ThreadPoolExecutor(CHECK_THREADS) as pool:
            list(pool.map(check_one, self.ledgers))
        if problems:
            raise AssertionError("acknowledged state lost or changed:\n  " +
                                 "\n  ".join(problems[:30]))

    @staticmethod
    def _retry(port, path, body, deadline_s):
        deadline = time.monotonic() + deadline_s
        while True:
            r = request(port, "POST", path, body)
            if r.status not in (0, 429, 500, 502, 503) or time.monotonic() > deadline:
                return r
            time.sleep(0.2)

    def acked_count(self):
        """Acknowledged changes so far: context appends and file writes."""
        with self.events_lock:
            return sum(1 for e in self.events if e[3] == 200)
