# Sourced by debian-source.sh and debian-pool-file.sh: the Debian archives whose pools a pinned
# file is fetched from (docs/languages.md#archive-churn). Not executable on its own.

# The archives whose pools are tried, in order: SANDBOX_DEBIAN_MIRRORS (space separated)
# replaces the list; else the URIs apt is configured with, then deb.debian.org's debian and
# debian-security. Every suite (stable, testing, unstable, security) shares its archive's pool.
pool_archives() {
  if [[ -n "${SANDBOX_DEBIAN_MIRRORS:-}" ]]; then
    tr ' ' '\n' <<<"$SANDBOX_DEBIAN_MIRRORS" | sed '/^$/d'
    return
  fi
  {
    grep -hsE '^[[:space:]]*URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null | sed -E 's/^[[:space:]]*URIs:[[:space:]]*//' | tr ' ' '\n'
    grep -hsE '^[[:space:]]*deb(-src)?[[:space:]]' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
      sed -E 's/\[[^]]*\]//' | awk '{print $2}'
    echo http://deb.debian.org/debian
    echo http://deb.debian.org/debian-security
  } | sed -E '/^$/d; s#/+$##' | awk '!seen[$0]++'
}

# Downloads URL $1 to file $2; fails quietly (an archive that is down or lacks the file).
pool_download() {
  curl -fsSL --retry 2 --connect-timeout 20 -o "$2" "$1" 2>/dev/null
}
