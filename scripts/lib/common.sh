# Shared shell helpers for the project's scripts. Source it; do not run it.
# shellcheck shell=bash

ORCH_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
PG_BIN="${PG_BIN:-/usr/lib/postgresql/15/bin}"

log() { printf '[%s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
die() { log "error: $*"; exit 1; }

# A loopback TCP port nobody listens on right now.
free_port() {
  # Below the kernel's ephemeral range (32768 by default): any outgoing connection may take a port
  # in that range as its source port between this check and the server's bind, and RabbitMQ once
  # failed to start with eaddrinuse that way while the test suite was busy connecting.
  local port low=20000 high=32767 first _
  if [ -r /proc/sys/net/ipv4/ip_local_port_range ]; then
    read -r first _ </proc/sys/net/ipv4/ip_local_port_range
    if [ "$first" -gt $((low + 1000)) ] && [ "$first" -le $((high + 1)) ]; then high=$((first - 1)); fi
  fi
  for _ in $(seq 1 200); do
    port=$(( low + RANDOM % (high - low + 1) ))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "$port"
      return 0
    fi
  done
  die "no free port found"
}

# Runs a command as the unprivileged PostgreSQL user when we are root (initdb refuses root).
as_pg_user() {
  if [ "$(id -u)" = 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

# pg_start DIR [fast] [socket]: initialises (once) and starts a private PostgreSQL in DIR on a free
# loopback port. Writes DIR/dsn (a libpq URL), DIR/port and DIR/pid. Idempotent: a running server is
# left alone. `fast` trades crash safety for speed (throwaway test clusters). `socket` also listens
# on a Unix socket in DIR/sock (mode 0700, only its owner and root can connect) and writes that into
# the DSN: a co-located server is ~10 % faster to reach than over loopback TCP (docs/api.md).
pg_start() {
  local dir="$1" extra="" sockdir="" socket_dirs="''" opt
  shift
  for opt in "$@"; do
    case "$opt" in
      fast) extra="-c fsync=off -c synchronous_commit=off -c full_page_writes=off" ;;
      socket) sockdir="$dir/sock" ;;
      *) die "pg_start: unknown option $opt" ;;
    esac
  done
  mkdir -p "$dir"
  dir="$(cd "$dir" && pwd)"
  # A socket path is limited to 107 bytes and goes into a URL: fall back to TCP for unusual paths.
  if [ -n "$sockdir" ]; then
    sockdir="$dir/sock"
    if [ "${#sockdir}" -gt 80 ] || [[ ! "$sockdir" =~ ^[A-Za-z0-9/._-]+$ ]]; then
      sockdir=""
    else
      mkdir -p "$sockdir"
      chmod 700 "$sockdir"
      if [ "$(id -u)" = 0 ]; then chown postgres:postgres "$sockdir"; fi
      socket_dirs="'$sockdir'"
    fi
  fi
  if [ -f "$dir/pid" ] && kill -0 "$(cat "$dir/pid")" 2>/dev/null; then
    return 0
  fi
  [ -x "$PG_BIN/initdb" ] || die "PostgreSQL 15 is not installed (run scripts/install-deps)"
  if [ "$(id -u)" = 0 ]; then chown postgres:postgres "$dir"; fi
  if [ ! -f "$dir/data/PG_VERSION" ]; then
    as_pg_user "$PG_BIN/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 --no-locale >"$dir/initdb.log" 2>&1 \
      || { cat "$dir/initdb.log" >&2; die "initdb failed"; }
  fi
  local port
  port=$(free_port)
  # Loopback TCP (nothing outside this machine can reach it) and, when asked, a Unix socket in a
  # directory only the server's user (and root) may enter.
  as_pg_user "$PG_BIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$socket_dirs -c unix_socket_permissions=0700 -c max_connections=200 $extra" \
    start >/dev/null || { tail -20 "$dir/server.log" >&2; die "PostgreSQL did not start"; }
  head -1 "$dir/data/postmaster.pid" >"$dir/pid"
  if [ -n "$sockdir" ]; then
    echo "postgresql://postgres@/postgres?host=$sockdir&port=$port" >"$dir/dsn"
  else
    echo "postgresql://postgres@127.0.0.1:$port/postgres" >"$dir/dsn"
  fi
  echo "$port" >"$dir/port"
}

# pg_stop DIR: stops the server started by pg_start, by its PID.
pg_stop() {
  local dir="$1"
  [ -f "$dir/pid" ] || return 0
  local pid
  pid=$(cat "$dir/pid")
  if kill -0 "$pid" 2>/dev/null; then
    kill -INT "$pid" 2>/dev/null || true
    for _ in $(seq 1 100); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$dir/pid"
}

# require_packages WHAT PKG...: fails naming the missing Debian packages and how to install them.
require_packages() {
  local what="$1" missing=() pkg
  shift
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    die "$what needs the Debian package(s): ${missing[*]} (run scripts/install-deps, or apt-get install --no-install-recommends ${missing[*]})"
  fi
}

# pid_alive FILE: true when FILE names a running process.
pid_alive() {
  [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null
}

# stop_pids FILE...: TERM to every process named in the FILEs at once (daemons take seconds to
# exit; one after the other would add up), up to STOP_PIDS_GRACE seconds (default 10) each, then
# KILL what is left; removes the FILEs.
stop_pids() {
  local file pid pids=() tries=$(( ${STOP_PIDS_GRACE:-10} * 10 ))
  for file in "$@"; do
    [ -f "$file" ] || continue
    pid=$(cat "$file")
    if kill -0 "$pid" 2>/dev/null; then
      kill -TERM "$pid" 2>/dev/null || true
      pids+=("$pid")
    fi
  done
  for pid in "${pids[@]}"; do
    for _ in $(seq 1 "$tries"); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -KILL "$pid" 2>/dev/null || true
  done
  rm -f "$@"
}

# build_with_progress PRESET TARGET...: builds with a line of progress every 10 % (Ninja's [n/total]
# counter) instead of hundreds of compiler lines; on failure prints the build's output tail.
build_with_progress() {
  local preset="$1" out rc=0
  shift
  out="$(mktemp)"
  set +e
  cmake --build --preset "$preset" -j"${ORCH_JOBS:-2}" --target "$@" 2>&1 | tee "$out" | awk '
    match($0, /^\[[0-9]+\/[0-9]+\]/) {
      # A first pass that only regenerates build.ninja has a handful of steps: skip it.
      split(substr($0, 2, RLENGTH - 2), nt, "/")
      if (nt[2] < 10) next
      pct = int(100 * nt[1] / nt[2])
      if (pct >= next_pct) { printf "[build] %3d %% (%d of %d steps)\n", pct, nt[1], nt[2] > "/dev/stderr"; next_pct = pct - pct % 10 + 10 }
    }'
  rc=${PIPESTATUS[0]}
  set -e
  if [ "$rc" != 0 ]; then
    tail -n 60 "$out" >&2
    rm -f "$out"
    die "build failed"
  fi
  rm -f "$out"
  log "build done"
}
