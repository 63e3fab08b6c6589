# Helpers shared by scripts/kube/{build,setup,start,stop}. Source it; do not run it.
# shellcheck shell=bash

# The only Kubernetes source reachable from the build machines: Debian bookworm's source package
# (upstream v1.20.2 with vendor/). See docs/connectors.md, "The real kube-apiserver tier".
KUBE_DEB_VERSION="1.20.5+really1.20.2-1.1+deb12u1"
KUBE_BINARIES=(kube-apiserver kube-controller-manager kube-scheduler)
# What the binaries are built from; scripts/kube/build rebuilds when DIR/bin/.built-from differs.
KUBE_STAMP="$KUBE_DEB_VERSION reflect2-1.0.2"

# Building needs Go 1.19 (GOPATH mode, as debian/rules does), rsync for the upstream Makefile,
# dpkg-dev to unpack the source package, and Debian's reflect2 1.0.2 (see kube_fix_reflect2).
KUBE_BUILD_PACKAGES=(golang-1.19-go rsync make dpkg-dev golang-github-modern-go-reflect2-dev ca-certificates)
# Running the control plane needs etcd, openssl for the certificates and curl for readiness checks.
KUBE_RUN_PACKAGES=(etcd-server openssl curl)

# Where scripts/kube/build puts everything unless told otherwise, and where the tests look for the
# binaries (ORCH_KUBE_BIN_DIR overrides that): a per-user cache outside the checkout, so every
# clone on the machine (CI's fresh clones included) shares one 10-minute build. The directory
# name changes with KUBE_STAMP, so a new version never meets an old build. ORCH_KUBE_CACHE moves
# the cache root.
KUBE_CACHE_ROOT="${ORCH_KUBE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/orch-kube}"
KUBE_DEFAULT_DIR="$KUBE_CACHE_ROOT/1.20.2-deb12u1-reflect2-1.0.2"

# kube_install_packages PKG...: installs the missing Debian packages (root or sudo).
kube_install_packages() {
  local missing=() pkg sudo=""
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  [ "$(id -u)" = 0 ] || sudo="sudo"
  log "kube: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# kube_binaries_present BIN_DIR: true when all three control-plane binaries are there.
kube_binaries_present() {
  local name
  for name in "${KUBE_BINARIES[@]}"; do
    [ -x "$1/$name" ] || return 1
  done
}

# kube_etcd: Debian installs etcd outside PATH on some releases; find it.
kube_etcd() {
  command -v etcd 2>/dev/null || { [ -x /usr/bin/etcd ] && echo /usr/bin/etcd; } || return 1
}

# The exit status the rig scripts and the tests use for "binaries not built: skipped" (CTest's
# SKIP_RETURN_CODE in tests/integration/kubernetes_real/sources.cmake).
KUBE_SKIP_STATUS=77

# kube_bin_dir: where the control-plane binaries are looked for.
kube_bin_dir() {
  echo "${ORCH_KUBE_BIN_DIR:-$KUBE_DEFAULT_DIR/bin}"
}

kube_skip_message() {
  echo "the real Kubernetes tier is skipped: kube-apiserver, kube-controller-manager and kube-scheduler 1.20 are not built in $(kube_bin_dir) (run scripts/kube/build once, ~10 min; see docs/connectors.md)"
}

# kube_required: true when the tier must run rather than skip. CI sets CI=true (.ci/run does,
# as GitHub Actions and GitLab CI do); scripts/test builds the binaries first, so a missing
# binary there is a broken build or cache, which must fail the run instead of hiding as a skip.
kube_required() {
  [ "${CI:-}" = true ] || [ "${ORCH_KUBE_REQUIRED:-}" = 1 ]
}
