#!/bin/sh
# Renders deploy/nginx/sandboxd.conf.in for one cluster; prints the nginx file on stdout.
#
#   render.sh [--down NODE]... LISTEN NODE...
#       e.g. render.sh 80 10.0.0.11:8787 10.0.0.12:8787 10.0.0.13:8787
#
# LISTEN is what nginx's `listen` takes (a port, or ADDRESS:PORT); each NODE is a sandboxd
# node's HOST:PORT. Nothing else of the template changes. `--down NODE` (NODE one of the list)
# marks that node `down` in both upstream blocks: nginx sends it nothing, and since a `down`
# server keeps its place on the consistent-hash ring, the other nodes keep their sandbox ids
# (deploy/nginx/healthcheck.py uses it; marking every node down is refused).
# deploy/README.md and tests/cluster both use this script.
set -euf  # -f: no globbing of the --down list
usage() {
  echo "usage: render.sh [--down NODE]... LISTEN NODE..." >&2
  exit 2
}
down=" "
while [ "$#" -gt 0 ]; do
  case $1 in
    --down)
      [ "$#" -ge 2 ] || usage
      down="$down$2 "
      shift 2
      ;;
    --down=*)
      down="$down${1#--down=} "
      shift
      ;;
    --) shift; break ;;
    -*) usage ;;
    *) break ;;
  esac
done
if [ "$#" -lt 2 ]; then
  usage
fi
here=$(dirname "$0")
listen=$1
shift
# Values go into nginx directives: only host/port characters.
for value in "$listen" "$@"; do
  case $value in
    *[!A-Za-z0-9.:_\[\]-]* | "")
      echo "render.sh: '$value' is not an address (HOST:PORT, or a port for LISTEN)" >&2
      exit 2
      ;;
  esac
done
# Each --down names a node of the list, and at least one node stays up.
for value in $down; do
  found=no
  for node in "$@"; do
    [ "$node" = "$value" ] && found=yes
  done
  if [ "$found" = no ]; then
    echo "render.sh: --down '$value' is not one of the nodes" >&2
    exit 2
  fi
done
servers=""
servers_no_fails=""
up=0
for node in "$@"; do
  case $down in
    *" $node "*) mark=" down" ;;
    *) mark=""; up=$((up + 1)) ;;
  esac
  servers="$servers    server $node max_fails=1 fail_timeout=10s$mark;\\
"
  servers_no_fails="$servers_no_fails    server $node max_fails=0$mark;\\
"
done
if [ "$up" -eq 0 ]; then
  echo "render.sh: every node is marked down; nginx would have none to send requests to" >&2
  exit 2
fi
sed -e "s/^    listen @LISTEN@;\$/    listen $listen;/" \
    -e "/^@SERVERS@\$/c\\
${servers%\\
}" \
    -e "/^@SERVERS_NO_FAILS@\$/c\\
${servers_no_fails%\\
}" \
    "$here/sandboxd.conf.in"
