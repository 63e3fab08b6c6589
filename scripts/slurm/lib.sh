# Helpers shared by scripts/slurm/{setup,start,stop}. Source it; do not run it.
# shellcheck shell=bash

# The unprivileged account slurmrestd runs as (it refuses root) and that test jobs run as.
SLURM_REST_USER="${SLURM_REST_USER:-nobody}"

# The Debian packages the test cluster runs on (scripts/install-deps installs them).
SLURM_PACKAGES=(munge slurmctld slurmd slurmrestd slurm-client slurm-wlm-jwt-plugin util-linux curl)

# Fails with the exact packages to install when one is missing.
slurm_require_packages() {
  local missing=() pkg
  for pkg in "${SLURM_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    die "the Slurm test cluster needs the Debian package(s): ${missing[*]} (run scripts/install-deps, or apt-get install --no-install-recommends ${missing[*]})"
  fi
}

# pid_alive FILE: true when FILE names a running process.
pid_alive() {
  [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null
}

# stop_pids FILE...: sends TERM to every process named in the FILEs at once (each daemon takes
# about 2 s to exit, so one after the other would add up), waits up to 10 s, then KILLs what is
# left; removes the FILEs.
stop_pids() {
  local file pid pids=()
  for file in "$@"; do
    [ -f "$file" ] || continue
    pid=$(cat "$file")
    if kill -0 "$pid" 2>/dev/null; then
      kill -TERM "$pid" 2>/dev/null || true
      pids+=("$pid")
    fi
  done
  for pid in "${pids[@]}"; do
    for _ in $(seq 1 100); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -KILL "$pid" 2>/dev/null || true
  done
  rm -f "$@"
}
