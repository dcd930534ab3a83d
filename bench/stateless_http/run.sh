#!/usr/bin/env bash
# bench/stateless_http: requests/s and p50/p99 latency of calc `1+1` over HTTP with 1, 8 and 64
# connections, next to the same server's trivial GET /interpreter in the same run; the ratio of
# the two shows the execute path's own cost.
#   bench/stateless_http/run.sh [BUILD_DIR] [SECONDS]
set -euo pipefail
build=${1:-build/default}
secs=${2:-3}
calc=$build/engines/calc/sandbox-calc
load=$build/bench/stateless_http/http-load
[[ -x $calc && -x $load ]] || { echo "build first: cmake --build --preset default" >&2; exit 2; }

log=$(mktemp)
"$calc" --listen 127.0.0.1:0 >"$log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; rm -f "$log"' EXIT
for _ in $(seq 50); do grep -q 'listening on port' "$log" && break; sleep 0.1; done
port=$(grep -o '[0-9]*$' "$log")
url=http://127.0.0.1:$port

echo "stateless HTTP benchmark (calc), ${secs}s per row, $(nproc) cores"
for c in 1 8 64; do
  probe=$("$load" --url "$url" --path /interpreter -c "$c" -d "$secs" --label "GET /interpreter")
  exec=$("$load" --url "$url" --path /execute --method POST --body '{"code":"1+1"}' -c "$c" -d "$secs" --label "POST /execute 1+1")
  echo "$probe"
  echo "$exec"
  p=$(sed -E 's/.*req\/s=([0-9.]+).*/\1/' <<<"$probe")
  e=$(sed -E 's/.*req\/s=([0-9.]+).*/\1/' <<<"$exec")
  awk -v p="$p" -v e="$e" -v c="$c" 'BEGIN { printf "  conns=%d: execute/probe throughput ratio = %.2f\n", c, e / p }'
done
