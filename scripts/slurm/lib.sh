# Helpers shared by scripts/slurm/{setup,start,stop}. Source it; do not run it.
# shellcheck shell=bash

# The unprivileged account slurmrestd runs as (it refuses root) and that test jobs run as.
SLURM_REST_USER="${SLURM_REST_USER:-nobody}"

# The Debian packages the test cluster runs on (scripts/install-deps installs them).
SLURM_PACKAGES=(munge slurmctld slurmd slurmrestd slurm-client slurm-wlm-jwt-plugin util-linux curl)

slurm_require_packages() { require_packages "the Slurm test cluster" "${SLURM_PACKAGES[@]}"; }
