#!/usr/bin/env bash
# deploy/nginx/render.sh: the rendered file has the listen address and one `server` line per node
# in each upstream block and nothing else changed; values that are not addresses are refused;
# --down NODE marks that node down and refuses to mark them all.
# (tests/cluster runs nginx on the rendered file.) Usage: check_nginx_render.sh DEPLOY_DIR
set -euo pipefail
render=$1/nginx/render.sh template=$1/nginx/sandboxd.conf.in
out=$("$render" 127.0.0.1:8080 10.0.0.1:8787 '[::1]:8788')
fail() { echo "check_nginx_render: $*" >&2; echo "$out" >&2; exit 1; }
grep -qx '    listen 127.0.0.1:8080;' <<<"$out" || fail "no listen line"
[[ $(grep -c '^    server 10.0.0.1:8787 max_fails=1 fail_timeout=10s;$' <<<"$out") == 1 ]] ||
  fail "the main upstream lacks node 1"
[[ $(grep -c '^    server \[::1\]:8788 max_fails=0;$' <<<"$out") == 1 ]] ||
  fail "the 503 upstream lacks node 2"
grep -v '^ *#' <<<"$out" | grep -v '@after_503' | grep -q '@' && fail "a placeholder is left"
# Everything but the placeholder lines is the template's text, unchanged.
diff <(grep -v '^    listen @LISTEN@;$\|^@SERVERS@$\|^@SERVERS_NO_FAILS@$' "$template") \
     <(grep -v '^    listen \|^    server ' <<<"$out") >/dev/null || fail "the template changed"
for bad in '8080;' 'a b' '' '10.0.0.1:1}' '$host'; do
  if "$render" 8080 "$bad" >/dev/null 2>&1; then fail "accepted node '$bad'"; fi
  if "$render" "$bad" 10.0.0.1:1 >/dev/null 2>&1; then fail "accepted listen '$bad'"; fi
done
if "$render" 8080 >/dev/null 2>&1; then fail "accepted no node"; fi
# --down NODE marks that node `down` in both blocks and changes nothing else; every node down, or
# a node not in the list, is refused.
out=$("$render" --down '[::1]:8788' 127.0.0.1:8080 10.0.0.1:8787 '[::1]:8788')
grep -qx '    server 10.0.0.1:8787 max_fails=1 fail_timeout=10s;' <<<"$out" || fail "node 1 changed"
grep -qx '    server \[::1\]:8788 max_fails=1 fail_timeout=10s down;' <<<"$out" ||
  fail "node 2 not down in the main upstream"
grep -qx '    server \[::1\]:8788 max_fails=0 down;' <<<"$out" ||
  fail "node 2 not down in the 503 upstream"
[[ $(grep -c ' down;$' <<<"$out") == 2 ]] || fail "other nodes marked down"
diff <(grep -v '^    server ' <<<"$out") \
     <("$render" 127.0.0.1:8080 10.0.0.1:8787 '[::1]:8788' | grep -v '^    server ') >/dev/null ||
  fail "--down changed more than the server lines"
for bad in '10.0.0.9:1' '*' '$host'; do
  if "$render" --down "$bad" 8080 10.0.0.1:1 10.0.0.2:1 >/dev/null 2>&1; then
    fail "accepted --down '$bad'"
  fi
done
if "$render" --down 10.0.0.1:1 --down 10.0.0.2:1 8080 10.0.0.1:1 10.0.0.2:1 >/dev/null 2>&1; then
  fail "accepted every node down"
fi
echo "render.sh: ok"
