# Helpers shared by scripts/openstack/{setup,start,stop}. Source it; do not run it.
# shellcheck shell=bash

# Debian's interpreter: the OpenStack libraries are installed for it, not for any other python3
# that may come first in PATH.
OS_PYTHON=/usr/bin/python3
OS_HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

# The Debian packages the rig runs on (scripts/install-deps installs them). Only the python3-*
# libraries: the daemon packages (nova-compute, keystone, ...) would pull in libvirt/apache and
# start system services.
OS_PACKAGES=(python3-keystone python3-placement python3-glance python3-nova python3-psycopg2
             rabbitmq-server postgresql-15 curl)

os_require_packages() { require_packages "the OpenStack test rig" "${OS_PACKAGES[@]}"; }

# Some of the rig's services take longer than the default to stop.
STOP_PIDS_GRACE=15

# os_pg_start DIR: starts (initialising once) the rig's private PostgreSQL on 127.0.0.1:$PG_PORT
# from DIR/ports.env. The port is fixed because Nova stores database URLs in its cell mappings.
os_pg_start() {
  local dir="$1" pg="$1/pg"
  mkdir -p "$pg"
  if pid_alive "$pg/pid"; then return 0; fi
  if [ "$(id -u)" = 0 ]; then chown postgres:postgres "$pg"; fi
  if [ ! -f "$pg/data/PG_VERSION" ]; then
    as_pg_user "$PG_BIN/initdb" -D "$pg/data" -U postgres --auth=trust -E UTF8 --no-locale >"$pg/initdb.log" 2>&1 \
      || { cat "$pg/initdb.log" >&2; die "openstack: initdb failed"; }
  fi
  # A throwaway cluster: crash safety traded for speed, loopback TCP only, no Unix socket.
  as_pg_user "$PG_BIN/pg_ctl" -D "$pg/data" -l "$pg/server.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -c port=$PG_PORT -c unix_socket_directories='' -c max_connections=300 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
    start >/dev/null || { tail -20 "$pg/server.log" >&2; die "openstack: PostgreSQL did not start on port $PG_PORT"; }
  head -1 "$pg/data/postmaster.pid" >"$pg/pid"
}

# os_pg_stop DIR: fast shutdown of the rig's PostgreSQL, by its PID.
os_pg_stop() {
  local pg="$1/pg"
  pid_alive "$pg/pid" || return 0
  kill -INT "$(cat "$pg/pid")" 2>/dev/null || true
  for _ in $(seq 1 100); do
    pid_alive "$pg/pid" || break
    sleep 0.1
  done
  stop_pids "$pg/pid"
}

# elapsed_ms START_NS: milliseconds since START_NS (from date +%s%N).
elapsed_ms() {
  echo $(( ($(date +%s%N) - $1) / 1000000 ))
}
