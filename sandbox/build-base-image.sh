#!/usr/bin/env bash
# Builds a minimal local base image from this machine's own node binary, for
# machines that cannot pull node:20-bookworm-slim (no registry access). The
# image holds node, the shared libraries it links, /bin/sh and a few tools the
# real Debian slim base also has (mount, umount, unshare, id), so the sandbox
# is tested against the same attack surface. Rebuilt only when node changes.
#
# Usage: sandbox/build-base-image.sh [tag]     (default mcp-harness-node-base:20-local)
# Prints the tag on stdout.
set -euo pipefail

tag=${1:-mcp-harness-node-base:20-local}
node_bin=$(readlink -f "$(command -v node)")
[ -x "$node_bin" ] || { echo "error: node is not installed" >&2; exit 1; }

tools=(/bin/sh /usr/bin/mount /usr/bin/umount /usr/bin/unshare /usr/bin/id)
# What makes the base: node's identity plus the tools' and libraries' paths and sizes.
stamp=$( { stat -c '%n %s %Y' "$node_bin"; for t in "${tools[@]}"; do [ -e "$t" ] && stat -L -c '%n %s %Y' "$t"; done; } | sha256sum | cut -c1-16)

current=$(docker image inspect -f '{{index .Config.Labels "org.mcp-harness.base-stamp"}}' "$tag" 2>/dev/null || true)
if [ "$current" = "$stamp" ]; then
  echo "$tag"
  exit 0
fi

echo "building local base image $tag from $node_bin" >&2
node_major=$(env -u NODE_EXTRA_CA_CERTS "$node_bin" -p 'process.versions.node.split(".")[0]')
[ "$node_major" = 20 ] || echo "warning: host node is v$node_major, the sandbox expects Node 20" >&2
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT

copy() {  # copy PATH into the root at the same path, following symlinks
  mkdir -p "$root$(dirname "$1")"
  cp -L "$1" "$root$1"
}
libs_of() {  # the shared libraries a binary loads, including the loader
  ldd "$1" 2>/dev/null | awk '/=> \//{print $3} /^\t\/[^ ]+ \(/{print $1}'
}

mkdir -p "$root"/{usr/bin,usr/local/bin,etc,tmp,proc,sys,dev,root,home}
chmod 1777 "$root/tmp"
copy "$node_bin"
[ "$node_bin" = /usr/local/bin/node ] || ln -sf "$node_bin" "$root/usr/local/bin/node"
files=("$node_bin")
for t in "${tools[@]}"; do
  if [ -e "$t" ]; then copy "$t"; files+=("$t"); fi
done
for f in "${files[@]}"; do
  for lib in $(libs_of "$f"); do copy "$lib"; done
done
# mount and umount are setuid root on Debian: keep that, as on the real base,
# so the escape tests meet a real setuid binary (the sandbox image strips them).
for t in /usr/bin/mount /usr/bin/umount; do
  [ -e "$root$t" ] && chmod 4755 "$root$t"
done
printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n' >"$root/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"
printf 'hosts: files\n' >"$root/etc/nsswitch.conf"

tar -C "$root" --numeric-owner --owner=0 --group=0 -c . |
  docker import \
    --change 'ENV PATH=/usr/local/bin:/usr/bin:/bin' \
    --change 'CMD ["node"]' \
    --change "LABEL org.mcp-harness.base-stamp=$stamp" \
    - "$tag" >/dev/null
echo "$tag"
