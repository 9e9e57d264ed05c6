# Starts a throwaway PostgreSQL cluster for the ladder's tests and exports its address
# (protocol/LADDER.md, Several servers). Sourced by .ci/run; a developer can source it too:
#   . .ci/postgres.sh      # then cargo test -p anqi-ladder, cargo test -p anqi --test integration ladder::
# Debian's `postgresql` package (installed when missing). The tests run as root, and initdb
# refuses root: the cluster belongs to the `postgres` user the package makes, listens only on
# a Unix socket in /tmp (no TCP port to collide with), and lets a `root` role in over it.
# Stop it with: runuser -u postgres -- "$ANQI_PG_BIN/pg_ctl" -D "$ANQI_PG_DATA" stop
anqi_pg_start() {
  local bin port=55432 data=/tmp/anqi-pg
  # The newest installed version's programs (Debian keeps them out of PATH). `|| true`: .ci/run
  # sources this under `set -euo pipefail`, and no match is not an error here.
  bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1) || true
  if [ -z "$bin" ] || ! id postgres >/dev/null 2>&1; then
    apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql
    bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
  fi
  if ! runuser -u postgres -- "$bin/pg_ctl" -D "$data" status >/dev/null 2>&1; then
    if ! [ -f "$data/PG_VERSION" ]; then
      rm -rf "$data"
      runuser -u postgres -- "$bin/initdb" -D "$data" -A trust >/dev/null
    fi
    runuser -u postgres -- "$bin/pg_ctl" -D "$data" -w -l "$data.log" \
      -o "-k /tmp -p $port -c listen_addresses=''" start >/dev/null
  fi
  # `-A trust` above: only local users reach the socket. The tests connect as root (their
  # user), a superuser: each makes and drops its own database.
  if [ "$(runuser -u postgres -- "$bin/psql" -h /tmp -p "$port" -d postgres -qtAc \
    "SELECT count(*) FROM pg_roles WHERE rolname = 'root'")" != 1 ]; then
    runuser -u postgres -- "$bin/psql" -h /tmp -p "$port" -d postgres -qc "CREATE ROLE root SUPERUSER LOGIN"
  fi
  export ANQI_PG_BIN="$bin" ANQI_PG_DATA="$data"
  export ANQI_POSTGRES_URL="postgresql://root@%2Ftmp:$port/postgres"
}
anqi_pg_start
