# Shared helpers for the set-up scripts. Sourced, never run directly.
# Every step is idempotent: it checks before it installs or starts anything.

log() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

HARNESS_ROOT=${HARNESS_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
BUILD_DIR=${BUILD_DIR:-$HARNESS_ROOT/build}

_apt_updated=0
# need_apt PKG...: installs the Debian packages that are not installed yet.
need_apt() {
  local missing=()
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  [ "$(id -u)" -eq 0 ] || die "missing packages ${missing[*]}; run as root or install them first"
  if [ $_apt_updated -eq 0 ]; then
    log "apt-get update"
    apt-get update -qq >/dev/null
    _apt_updated=1
  fi
  log "installing ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# npm_ci DIR: installs DIR's npm packages exactly as its package-lock.json says,
# skipping the work when the lock file has not changed since the last install.
npm_ci() {
  local dir=$1 stamp=$1/node_modules/.harness-lock-stamp
  [ -f "$dir/package-lock.json" ] || die "$dir/package-lock.json is missing"
  if [ -f "$stamp" ] && cmp -s "$dir/package-lock.json" "$stamp"; then return 0; fi
  log "npm ci in ${dir#$HARNESS_ROOT/}"
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
  cp "$dir/package-lock.json" "$stamp"
}

# run_setup: runs every scripts/setup.d/*.sh in order (each is sourced, so it
# can use these helpers and export what later steps need).
run_setup() {
  local step
  for step in "$HARNESS_ROOT"/scripts/setup.d/*.sh; do
    # shellcheck source=/dev/null
    . "$step"
  done
}

# build_harness: configures (once) and builds everything with warnings as errors.
# ccache may serve another clone's objects: paths are made relative to the
# checkout and the working directory is left out of the hash. The sloppiness
# lets ccache cache the files compiled with a precompiled header (CMake
# includes it with -include, as ccache requires); without it they all miss.
build_harness() {
  export CCACHE_BASEDIR=$HARNESS_ROOT CCACHE_NOHASHDIR=1
  export CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
  if [ ! -f "$BUILD_DIR/build.ninja" ]; then
    log "configuring $BUILD_DIR"
    cmake -S "$HARNESS_ROOT" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHARNESS_WERROR=ON >/dev/null
  fi
  log "building (ninja -j${BUILD_JOBS:-$(nproc)})"
  cmake --build "$BUILD_DIR" -j "${BUILD_JOBS:-$(nproc)}"
}
