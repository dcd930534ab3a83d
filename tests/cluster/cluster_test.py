#!/usr/bin/env python3
"""The whole multi-node path, on loopback, as deploy/README.md sets it up: PostgreSQL (initdb in a
temporary directory), three sandboxd nodes sharing its database, nginx on the shipped
deploy/nginx/sandboxd.conf.in. A workload of sandboxes with code contexts in several languages and
files runs through nginx throughout, and every acknowledged change is kept in a ledger
(cluster_lib.Workload) that is checked after each scenario:

  sigkill      SIGKILL a node: its sandboxes are served by the others within the lease TTL plus
               FAILOVER_SLACK_S, the other sandboxes keep being served, nothing acknowledged is
               lost;
  fencing      SIGSTOP a node (its process group) while it runs an execute that would write, let
               another node take the sandbox and write, SIGCONT: none of the resumed node's writes
               commit and the new owner's state is intact. The shipped active check
               (deploy/nginx/healthcheck.py) runs meanwhile: it marks the paused node down in
               nginx, so that its other sandboxes are served through nginx within the TTL plus
               its detection time instead of waiting for proxy_read_timeout, and up again after
               SIGCONT, reloading nginx exactly twice;
  pg_restart   restart PostgreSQL mid-workload: failures are retryable statuses only, and every
               sandbox is served again within PG_RECOVERY_S of its return, nothing lost;
  pg_crash     the same with `pg_ctl stop -m immediate` (the server's processes killed, crash
               recovery at the start). It once found an acknowledged execute lost: a snapshot
               transaction failed on a connection the crash had killed and the round was answered
               200 all the same (docs/contexts.md#store-failure);
  fourth_node  add a node (render + nginx -s reload): no request fails meanwhile, and once the
               sandboxes have been idle for a TTL, those whose owner changes all move to the new
               node and the others keep theirs.

  cluster_test.py --sandboxd PATH --deploy DIR [--engines lua,javascript] [--scenario NAME]...
                  [--keep]

Exit status 0 when every scenario passed; the reason and the logs' tails otherwise.
"""
import argparse
import os
import shutil
import sys
import tempfile
import threading
import time

import cluster_lib as cl

# The nodes' lease TTL: short, so that take-overs happen within the test's time.
LEASE_TTL_MS = 2000
# A dead node's sandboxes are served again within the TTL plus this (nginx marking the node down,
# the next node's first 503s, the client's back-off).
FAILOVER_SLACK_S = 6.0
# With deploy/nginx/healthcheck.py running, a paused node's sandboxes are served through nginx
# within the TTL plus the checker's detection time plus this (nginx's reload, the next node's
# 503s, the client's back-off).
HEALTHCHECK_SLACK_S = 3.0
# A request through nginx that the fencing scenario gives up on (it may have reached the paused
# node); then it asks again.
PROBE_TIMEOUT_S = 1.0
# After PostgreSQL is back, every sandbox is served again within this.
PG_RECOVERY_S = 15.0
PG_DOWN_S = 3.0
SANDBOXES = 24
CLIENT_THREADS = 5
# Workload before each scenario's disruption.
WARMUP_S = 3.0
# Statuses a request may get while a node or PostgreSQL is down: all retryable (docs/errors.md).
RETRYABLE = {0, 500, 502, 503, 504}

ENGINE_BINDINGS = {"lua": "LUA", "javascript": "JAVASCRIPT", "python": "PYTHON"}


def log(msg):
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


class Cluster:
    def __init__(self, args, root):
        self.args = args
        self.root = root
        self.pg = cl.Postgres(root)
        log(f"PostgreSQL on 127.0.0.1:{self.pg.port}")
        self.nodes = {}
        for i in (1, 2, 3):
            self.add_node(f"node-{i}")
        self.nginx = cl.Nginx(root, args.deploy)
        self.nginx.start(self.ports())
        log(f"nginx on 127.0.0.1:{self.nginx.port} in front of {self.describe()}")
        bindings = [ENGINE_BINDINGS[e] for e in args.engines]
        self.workload = cl.Workload(self.nginx.port, SANDBOXES, bindings, CLIENT_THREADS)
        self.checker = None  # deploy/nginx/healthcheck.py while a scenario runs it

    def add_node(self, name, port=None):
        node = cl.Node(self.root, self.args.sandboxd, name, self.pg.url, LEASE_TTL_MS,
                       self.args.engines, port)
        self.nodes[name] = node.start()
        return node

    def ports(self):
        return [n.port for n in self.nodes.values()]

    def describe(self):
        return ", ".join(f"{n}:{node.port}" for n, node in self.nodes.items())

    def close(self):
        try:
            self.workload.stop_event.set()
            if self.checker:
                self.checker.stop()
        finally:
            self.nginx.terminate()
            for node in self.nodes.values():
                node.terminate()
            self.pg.stop()

    def tails(self):
        out = []
        for name, node in self.nodes.items():
            out.append(f"--- {name} stderr (tail) ---\n" + cl.read(node.stderr_path)[-3000:])
        out.append("--- nginx error.log (tail) ---\n" + cl.read(self.nginx.error_log)[-3000:])
        if self.checker:
            out.append("--- healthcheck.py (tail) ---\n" + self.checker.log()[-2000:])
        out.append("--- PostgreSQL log (tail) ---\n" + cl.read(self.pg.log)[-2000:])
        return "\n".join(out)

    def owners(self):
        return {k: v for k, v in self.pg.sandbox_owners().items() if k.startswith("cl-")}

    def settle(self):
        """No traffic for longer than the TTL, then one request per sandbox through nginx: every
        lease has run out, so each sandbox lands on the node nginx's ring gives it."""
        self.workload.pause_event.set()
        time.sleep(LEASE_TTL_MS / 1000 * 1.5 + 0.5)
        for ledger in self.workload.ledgers:
            r = self.workload._retry(self.nginx.port, f"/sandboxes/{ledger.id}/files",
                                     {"op": "list", "path": "/workspace"}, cl.REQUEST_TIMEOUT)
            if r.status != 200:
                raise AssertionError(f"settling {ledger.id}: {r}")
        owners = self.owners()
        self.workload.pause_event.clear()
        return owners


def served_again_after(events, ids, t0):
    """For each sandbox id, seconds from t0 to its first 200 after its last failure (or None)."""
    out = {}
    for sid in ids:
        mine = sorted((e for e in events if e[1] == sid), key=lambda e: e[0])
        last_fail = max((e[0] for e in mine if e[3] != 200), default=None)
        ok_after = [e[0] + e[4] for e in mine if e[3] == 200 and (last_fail is None or
                                                                  e[0] > last_fail)]
        out[sid] = (min(ok_after) - t0) if ok_after else None
    return out


def scenario_sigkill(c):
    w = c.workload
    time.sleep(WARMUP_S)
    owners = c.owners()
    victim = max(c.nodes, key=lambda n: sum(1 for o, _ in owners.values() if o == n))
    theirs = sorted(s for s, (o, _) in owners.items() if o == victim)
    others = sorted(s for s, (o, _) in owners.items() if o != victim)
    log(f"SIGKILL {victim}, owner of {len(theirs)} sandboxes")
    t0 = time.monotonic()
    c.nodes[victim].kill()
    time.sleep(LEASE_TTL_MS / 1000 + FAILOVER_SLACK_S + 1)
    events = w.events_since(t0)
    bound = LEASE_TTL_MS / 1000 + FAILOVER_SLACK_S
    back = served_again_after(events, theirs, t0)
    slow = {s: t for s, t in back.items() if t is None or t > bound}
    if slow:
        raise AssertionError(f"sandboxes of {victim} not served again within {bound}s: {slow}")
    log(f"  its sandboxes served again after {min(back.values()):.2f}-{max(back.values()):.2f} s"
        f" (TTL {LEASE_TTL_MS / 1000} s)")
    bad = [e for e in events if e[3] not in RETRYABLE | {200} or
           (e[3] == 500 and "Storage failure" not in e[5])]
    if bad:
        raise AssertionError(f"non-retryable answers during the failover: {bad[:10]}")
    others_failed = [e for e in events if e[1] in others and e[3] != 200]
    if others_failed:
        raise AssertionError(f"sandboxes of live nodes failed during the failover: "
                             f"{others_failed[:10]}")
    new_owners = c.owners()
    for s in theirs:
        if new_owners[s][0] == victim:
            raise AssertionError(f"{s} still owned by the dead {victim}: {new_owners[s]}")
    w.check()
    log(f"  ledger intact ({w.acked_count()} acknowledged changes); restarting {victim}")
    c.nodes[victim].start()


def scenario_fencing(c):
    w = c.workload
    time.sleep(WARMUP_S)
    owners = c.owners()
    # A sandbox of one node, driven directly at the nodes from here on (the workload leaves it).
    ledger = w.ledgers[0]
    w.excluded.add(ledger.id)
    with ledger.lock:
        pass  # the last workload request on it has finished
    owners = c.owners()
    paused_name = owners[ledger.id][0]
    other_name = next(n for n in c.nodes if n != paused_name)
    paused, other = c.nodes[paused_name], c.nodes[other_name]
    cid = next(k for k, v in ledger.contexts.items() if v["binding"] == "LUA")
    # Calibrate a loop long enough to still be running when the node is stopped.
    iterations = 3_000_000
    while True:
        r = cl.request(paused.port, "POST", f"/sandboxes/{ledger.id}/execute",
                       {"code": f"local x = 0 for i = 1, {iterations} do x = x + i end return x",
                        "binding": "LUA"})
        if r.status != 200:
            raise AssertionError(f"calibrating on {paused_name}: {r}")
        if r.elapsed > 0.6 or iterations >= 40_000_000:
            break
        iterations = min(iterations * 2, 40_000_000)
    log(f"fencing: {ledger.id} on {paused_name}; a {r.elapsed:.2f} s execute is stopped mid-run")
    # The shipped active check runs from here to the end of the scenario. Its first render is the
    # file nginx already runs: it must not reload.
    checker = c.checker = cl.HealthChecker(c.nginx, c.ports()).start()
    hc = checker.module
    paused_address = f"127.0.0.1:{paused.port}"
    # Through nginx, the paused node's other sandboxes are served by another node within the
    # lease TTL plus the checker's detection (FAILS_TO_DOWN checks, each at most an interval and
    # a timeout) plus HEALTHCHECK_SLACK_S, instead of waiting for proxy_read_timeout (300 s).
    hang_bound = (LEASE_TTL_MS / 1000 + hc.FAILS_TO_DOWN * (hc.INTERVAL_S + hc.TIMEOUT_S) +
                  HEALTHCHECK_SLACK_S)
    probed = sorted(s for s, (o, _) in owners.items() if o == paused_name and s != ledger.id)
    bystanders = sorted(s for s, (o, _) in owners.items() if o != paused_name)
    if not probed:
        raise AssertionError(f"{paused_name} owns no sandbox but {ledger.id}: {owners}")
    served = {}
    last = {}  # sandbox id -> the last answer that was not 200
    stale_code = (f'local x = 0 for i = 1, {iterations} do x = x + i end\n'
                  f'local f = io.open("/workspace/stale.txt", "w") f:write("stale") f:close()\n'
                  f'log = (log or "") .. "STALE," return log')
    stale = {}

    def stale_request():
        stale["r"] = cl.request(paused.port, "POST", f"/sandboxes/{ledger.id}/execute",
                                {"code": stale_code, "contextId": cid})

    t = threading.Thread(target=stale_request)
    t.start()
    time.sleep(min(0.2, r.elapsed / 3))
    paused.stop_group()
    stopped_at = time.monotonic()

    def probe(sid):
        # A read through nginx, given up after PROBE_TIMEOUT_S: before the checker marks the node
        # down, nginx sends it to the paused node, where it waits.
        while time.monotonic() < stopped_at + hang_bound:
            r = cl.request(c.nginx.port, "POST", f"/sandboxes/{sid}/files",
                           {"op": "list", "path": "/workspace"}, timeout=PROBE_TIMEOUT_S)
            if r.status == 200:
                served[sid] = time.monotonic() - stopped_at
                return
            last[sid] = r
            time.sleep(0.1)

    def watch():
        # When the nginx file first marks the paused node down.
        while "down" not in served and time.monotonic() < stopped_at + hang_bound:
            if paused_address in checker.marked_down():
                served["down"] = time.monotonic() - stopped_at
            time.sleep(0.05)

    probes = [threading.Thread(target=probe, args=(sid,)) for sid in probed]
    probes.append(threading.Thread(target=watch))
    for p in probes:
        p.start()
    # How long the paused node's lease still runs, by the database's clock.
    remaining_ms = int(c.pg.query(
        "SELECT expires_at - (extract(epoch from clock_timestamp()) * 1000)::bigint FROM leases "
        f"WHERE scope = 'sandbox' AND key = '{ledger.id}'")[0][0])
    asked_at = time.monotonic()
    try:
        # Another request reaches the stopped node too: it waits in its listen queue.
        queued = {}
        q = threading.Thread(target=lambda: queued.update(r=cl.request(
            paused.port, "POST", f"/sandboxes/{ledger.id}/files",
            {"op": "write", "path": "/workspace/queued.txt", "content": "queued"})))
        q.start()
        # The other node takes the sandbox once the paused node's lease has run out.
        ctx = ledger.contexts[cid]
        taken = None
        while time.monotonic() < stopped_at + LEASE_TTL_MS / 1000 + FAILOVER_SLACK_S:
            r = cl.request(other.port, "POST", f"/sandboxes/{ledger.id}/execute",
                           {"code": cl.APPEND["LUA"].replace("{t}", "NEW1"), "contextId": cid})
            if r.status == 200:
                taken = r
                break
            if r.status != 503:
                raise AssertionError(f"{other_name} while {paused_name} is stopped: {r}")
            time.sleep(0.1)
        if taken is None:
            raise AssertionError(f"{other_name} never took {ledger.id} over")
        if (time.monotonic() - asked_at) * 1000 < remaining_ms - 50:
            raise AssertionError(f"{other_name} took {ledger.id} before the lease ran out "
                                 f"({remaining_ms} ms after the stop)")
        seen = [x for x in cl.result_text(taken).split(",") if x]
        n = len(ctx["acked"])
        if seen[:n] != ctx["acked"] or seen[-1] != "NEW1" or any(
                x not in ctx["maybe"] for x in seen[n:-1]):
            raise AssertionError(f"take-over log {seen}, acknowledged {ctx['acked']} "
                                 f"(maybe {ctx['maybe']})")
        ctx["acked"] = seen
        ctx["maybe"] = []
        r = cl.request(other.port, "POST", f"/sandboxes/{ledger.id}/files",
                       {"op": "write", "path": "/workspace/new-owner.txt", "content": "new"})
        if r.status != 200:
            raise AssertionError(f"new owner's write: {r}")
        ledger.files["/workspace/new-owner.txt"] = "new"
        new_token = c.owners()[ledger.id]
        log(f"  {other_name} took it over (lease {new_token}) "
            f"{time.monotonic() - stopped_at:.2f} s after the stop, the lease having "
            f"{remaining_ms} ms left, and wrote")
        def keep_lease():
            # The pause now outlasts a TTL: the new owner keeps using the sandbox, so its lease
            # still lives when the paused node resumes and finds the queued write.
            r = cl.request(other.port, "POST", f"/sandboxes/{ledger.id}/files",
                           {"op": "exists", "path": "/workspace/new-owner.txt"})
            if r.status != 200:
                raise AssertionError(f"{other_name} renewing {ledger.id}: {r}")

        give_up = time.monotonic() + hang_bound + cl.REQUEST_TIMEOUT
        for p in probes:
            while p.is_alive() and time.monotonic() < give_up:
                keep_lease()
                p.join(LEASE_TTL_MS / 1000 / 4)
        marked_after = served.pop("down", None)
        if marked_after is None or checker.marked_down() != {paused_address}:
            raise AssertionError(f"nginx's file should mark {paused_address} down and only it: "
                                 f"{checker.marked_down()}\n{checker.log()}")
        slow = [sid for sid in probed if sid not in served]
        if slow:
            sessions = c.pg.query("SELECT state, wait_event_type, left(query, 80) FROM "
                                  "pg_stat_activity WHERE usename = 'sandboxd'")
            raise AssertionError(f"through nginx, sandboxes of the paused {paused_name} not served "
                                 f"within {hang_bound:.1f} s: "
                                 f"{ {sid: last.get(sid) for sid in slow} }; served: {served}; "
                                 f"sandboxd's sessions: {sessions}")
        # The other nodes' sandboxes are served through nginx's new configuration at once.
        for sid in bystanders:
            r = cl.request(c.nginx.port, "POST", f"/sandboxes/{sid}/files",
                           {"op": "list", "path": "/workspace"}, timeout=hang_bound)
            if r.status != 200:
                raise AssertionError(f"{sid} of a live node while {paused_name} is down: {r}")
        log(f"  with healthcheck.py: {paused_name} marked down in nginx "
            f"{marked_after:.2f} s after the stop; its {len(probed)} other sandboxes "
            f"served through nginx after {min(served.values(), default=0):.2f}-"
            f"{max(served.values(), default=0):.2f} s (bound {hang_bound:.1f} s), the other "
            f"nodes' {len(bystanders)} at once")
        keep_lease()
    finally:
        paused.cont_group()
    resumed_at = time.monotonic()
    t.join(cl.REQUEST_TIMEOUT)
    q.join(cl.REQUEST_TIMEOUT)
    stale_r, queued_r = stale["r"], queued["r"]
    log(f"  resumed {paused_name}: stale execute {stale_r}, queued write {queued_r}")
    if stale_r.status == 200:
        raise AssertionError(f"the stopped node's execute was acknowledged: {stale_r}")
    if queued_r.status == 200:
        raise AssertionError(f"the stopped node's queued write was acknowledged: {queued_r}")
    # The new owner's state, and none of the stale writes, read from the new owner directly.
    for path, want in (("/workspace/stale.txt", False), ("/workspace/queued.txt", False),
                       ("/workspace/new-owner.txt", True)):
        r = cl.request(other.port, "POST", f"/sandboxes/{ledger.id}/files",
                       {"op": "exists", "path": path})
        if r.status != 200 or (r.json() or {}).get("exists") is not want:
            raise AssertionError(f"{path} exists should be {want}: {r}")
    r = cl.request(other.port, "POST", f"/sandboxes/{ledger.id}/execute",
                   {"code": cl.READ["LUA"], "contextId": cid})
    if cl.result_text(r) != ",".join(ctx["acked"]) + ",":
        raise AssertionError(f"log after the resume: {r}, acknowledged {ctx['acked']}")
    # The resumed node refuses the sandbox while the new owner holds it.
    r = cl.request(paused.port, "POST", f"/sandboxes/{ledger.id}/execute",
                   {"code": cl.READ["LUA"], "contextId": cid})
    if r.status != 503 or other_name not in r.body:
        raise AssertionError(f"the resumed node should refuse {ledger.id}: {r}")
    # The resumed node passes its checks again and is marked up (and nginx reloaded).
    up_bound = hc.PASSES_TO_UP * (hc.INTERVAL_S + hc.TIMEOUT_S) + HEALTHCHECK_SLACK_S
    up_at = checker.wait_for(f"{paused_address} marked up again and nginx reloaded",
                             lambda: not checker.marked_down() and
                             checker.log().count("reloaded nginx") >= 2,
                             resumed_at + up_bound - time.monotonic())
    checker.stop()
    said = checker.log()
    reloads = said.count("reloaded nginx")
    decisions = [line for line in said.splitlines() if "marking it" in line]
    if reloads != 2 or len(decisions) != 2 or not all(
            line.startswith(f"healthcheck: {paused_address} ") for line in decisions):
        raise AssertionError(f"healthcheck.py should have marked {paused_address} down and up "
                             f"and nothing else, reloading nginx twice:\n{said}")
    # `nginx -s reload` succeeds even when the master then refuses the new file: it must not.
    refused = [line for line in cl.read(c.nginx.error_log).splitlines()
               if "[emerg]" in line or "[alert]" in line]
    if refused:
        raise AssertionError(f"nginx refused a file healthcheck.py rendered: {refused[:5]}")
    log(f"  {paused_name} marked up again {up_at - resumed_at:.2f} s after SIGCONT; "
        f"healthcheck.py reloaded nginx {reloads} times")
    w.excluded.discard(ledger.id)
    w.check()
    log(f"  ledger intact ({w.acked_count()} acknowledged changes)")


def scenario_pg_restart(c, mode="fast"):
    w = c.workload
    time.sleep(WARMUP_S)
    log(f"restarting PostgreSQL (pg_ctl stop -m {mode})")
    t0 = time.monotonic()
    c.pg.stop(mode)
    time.sleep(PG_DOWN_S)
    c.pg.start()
    back_at = time.monotonic()
    log(f"  PostgreSQL back after {back_at - t0:.1f} s")
    ids = [lg.id for lg in w.ledgers]
    while True:
        time.sleep(1)
        back = served_again_after(w.events_since(t0), ids, back_at)
        if all(t is not None for t in back.values()) or \
                time.monotonic() > back_at + PG_RECOVERY_S:
            break
    time.sleep(1)
    events = w.events_since(t0)
    failures = [e for e in events if e[3] != 200]
    # A storage failure is 500 "Storage failure: ..." (docs/errors.md: retryable); a node whose
    # pool is reconnecting may also refuse with 503.
    bad = [e for e in failures if e[3] not in RETRYABLE or
           (e[3] == 500 and "Storage failure" not in e[5])]
    if bad:
        raise AssertionError(f"non-retryable answers while PostgreSQL restarted: {bad[:10]}")
    back = served_again_after(events, ids, back_at)
    slow = {s: t for s, t in back.items() if t is None or t > PG_RECOVERY_S}
    if slow:
        raise AssertionError(f"not served again within {PG_RECOVERY_S} s of PostgreSQL's "
                             f"return: {slow}")
    statuses = sorted({e[3] for e in failures})
    log(f"  {len(failures)} failed requests (statuses {statuses}); all sandboxes served again "
        f"within {max(t for t in back.values()):.2f} s of its return")
    w.check()
    log(f"  ledger intact ({w.acked_count()} acknowledged changes)")


def scenario_fourth_node(c):
    w = c.workload
    before = c.settle()
    counts = {n: sum(1 for o, _ in before.values() if o == n) for n in c.nodes}
    log(f"fourth node: owners settled on the ring: {counts}")
    time.sleep(WARMUP_S)
    node = c.add_node("node-4")
    c.nginx.reload(c.ports())
    log(f"  node-4 on 127.0.0.1:{node.port}; nginx reloaded")
    t0 = time.monotonic()
    time.sleep(WARMUP_S)
    # Meanwhile node-4 refuses the sandboxes the ring now gives it (their owners' leases live)
    # and nginx's 503 path hands them to their owners: no request fails.
    failed = [e for e in w.events_since(t0) if e[3] != 200]
    if failed:
        raise AssertionError(f"requests failed after node-4 joined: {failed[:10]}")
    after = c.settle()
    moved = {s: (before[s][0], after[s][0]) for s in before if after[s][0] != before[s][0]}
    wrong = {s: m for s, m in moved.items() if m[1] != "node-4"}
    if wrong:
        raise AssertionError(f"sandboxes moved between the old nodes: {wrong}")
    # How many move is chance: nginx places each node on the ring by its address, and the ports
    # are new in every run, so node-4's share of the ring is about a quarter but not exactly, and
    # each of the sandboxes lands in it or not. A bound at half of them failed correct rings now
    # and then (13 of 24 moved in one CI run): with a share of 0.25-0.35, more than 12 of 24
    # happens in 0.2-4 % of runs, more than 18 in under 0.002 %. Moves between the old nodes,
    # checked above, are what a hash that is not consistent would show; this catches node-4
    # taking (nearly) everything.
    if not moved or len(moved) > len(before) * 3 // 4:
        raise AssertionError(f"{len(moved)} of {len(before)} sandboxes moved to node-4: "
                             f"expected about a quarter")
    log(f"  {len(moved)} of {len(before)} sandboxes moved, all to node-4; the rest kept their "
        f"owner")
    time.sleep(WARMUP_S)
    w.check()
    log(f"  ledger intact ({w.acked_count()} acknowledged changes)")


SCENARIOS = {
    "sigkill": scenario_sigkill,
    "fencing": scenario_fencing,
    "pg_restart": scenario_pg_restart,
    "pg_crash": lambda c: scenario_pg_restart(c, "immediate"),
    "fourth_node": scenario_fourth_node,
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sandboxd", required=True)
    parser.add_argument("--deploy", required=True, help="the source tree's deploy/")
    parser.add_argument("--engines", default="lua,javascript")
    parser.add_argument("--scenario", action="append", choices=sorted(SCENARIOS))
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    args = parser.parse_args()
    args.engines = [e for e in args.engines.split(",") if e]
    scenarios = args.scenario or list(SCENARIOS)

    base = "/tmp" if os.geteuid() == 0 else None  # reachable by postgres and nobody
    root = tempfile.mkdtemp(prefix="sbx-cluster-", dir=base)
    os.chmod(root, 0o755)
    cluster = None
    started = time.monotonic()
    try:
        cluster = Cluster(args, root)
        cluster.workload.setup()
        cluster.workload.start()
        for name in scenarios:
            SCENARIOS[name](cluster)
        cluster.workload.stop()
        cluster.workload.check()
        log(f"passed: {', '.join(scenarios)} in {time.monotonic() - started:.0f} s; "
            f"{len(cluster.workload.events)} requests, {cluster.workload.acked_count()} "
            f"acknowledged changes checked")
        return 0
    except Exception as e:  # noqa: BLE001 - report anything with the logs
        log(f"FAILED: {e}")
        if cluster:
            print(cluster.tails(), flush=True)
        return 1
    finally:
        if cluster:
            cluster.close()
        if args.keep:
            log(f"kept {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
