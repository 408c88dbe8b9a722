#!/usr/bin/env bash
# Builds the image that holds Python for the sandbox (docs/architecture/python-runtime.md):
# Debian's python3 with its standard library, python3-numpy and python3-pandas,
# as apt installed them on this machine from Debian's archive, and the shared
# libraries they load that a Node base does not have already. Dockerfile.sandbox
# copies it over the base (COPY --from), so one sandbox image holds both
# runtimes whichever base it is built on. Rebuilt only when a package changes.
#
# The packages' files (dpkg -L), not debootstrap: the image gets exactly the
# interpreter, its library and the two packages, with no apt, dpkg, perl or
# second root file system, and nothing has to be downloaded past apt-get.
#
# Usage: sandbox/build-python-files.sh [tag]     (default mcp-harness-python-files:local)
# Prints the tag on stdout. The packages must be installed (scripts/setup.d/30-docker.sh).
set -euo pipefail

tag=${1:-mcp-harness-python-files:local}
packages=(python3 python3-minimal python3.11 python3.11-minimal libpython3.11-minimal libpython3.11-stdlib libpython3-stdlib
  python3-numpy python3-pandas python3-pandas-lib python3-dateutil python3-tz python3-six tzdata)
# Libraries every Node base has already (the same Debian release): never overwritten.
base_has='/(libc|libm|libpthread|libdl|librt|libgcc_s|libstdc\+\+|ld-linux-x86-64|ld-linux-aarch64)\.so'

versions=$(dpkg-query -W -f '${Package} ${Version} ${Status}\n' "${packages[@]}" 2>/dev/null || true)
for p in "${packages[@]}"; do
  grep -q "^$p .* install ok installed$" <<<"$versions" || { echo "error: Debian package $p is not installed" >&2; exit 1; }
done
stamp=$(sha256sum <<<"$versions" | cut -c1-16)
current=$(docker image inspect -f '{{index .Config.Labels "org.mcp-harness.python-stamp"}}' "$tag" 2>/dev/null || true)
if [ "$current" = "$stamp" ]; then
  echo "$tag"
  exit 0
fi

echo "building $tag from Debian's python3, python3-numpy and python3-pandas" >&2
root=$(mktemp -d)
list=$(mktemp)
trap 'rm -rf "$root" "$list"' EXIT

# Every file and symlink the packages installed, less their documentation.
for p in "${packages[@]}"; do dpkg -L "$p"; done |
  grep -Ev '^/usr/share/(doc|man|lintian|doc-base|bug)/' | sort -u |
  while IFS= read -r f; do
    if [ -L "$f" ] || [ -f "$f" ]; then printf '%s\n' "${f#/}"; fi
  done >"$list"
tar -C / --no-recursion -cf - -T "$list" | tar -C "$root" -xf -

# The shared libraries the interpreter and the packages' extensions load.
libs=$( { ldd /usr/bin/python3.11; find "$root" -name '*.so*' -type f -exec ldd {} \; ; } 2>/dev/null |
  awk '/=> \//{print $3}' | sort -u | grep -Ev "$base_has" || true)
for lib in $libs; do
  [ -e "$root$lib" ] && continue
  mkdir -p "$root$(dirname "$lib")"
  cp -L "$lib" "$root$lib"
done

tar -C "$root" --numeric-owner --owner=0 --group=0 -c . |
  docker import --change "LABEL org.mcp-harness.python-stamp=$stamp" - "$tag" >/dev/null
echo "$tag"
