#!/usr/bin/env bash
# Builds a local stand-in for the shipped Dockerfiles' base image (no container registry is
# reachable here): Debian bookworm from debootstrap, plus Node 22 from the npm package `node` and
# the host's npm, imported into podman's store under the base image's own name. Test-only: the
# shipped Dockerfiles never mention it. Kept between runs (same name and node version: reused).
#   usage: stand-in-base.sh IMAGE NODE_BINARY NPM_DIR
set -euo pipefail
image="$1" node_binary="$2" npm_dir="$3"
node_version="$("$node_binary" --version)"
label="lspmesh.stand-in.node=${node_version}"
if podman image exists "$image" &&
  [ "$(podman image inspect --format '{{index .Labels "lspmesh.stand-in.node"}}' "$image")" = "$node_version" ]; then
  echo "stand-in $image (node $node_version) already built"
  exit 0
fi
command -v debootstrap >/dev/null || { echo "debootstrap is missing (apt-get install debootstrap)" >&2; exit 1; }
root="$(mktemp -d /var/tmp/lspmesh-stand-in.XXXXXX)"
trap 'rm -rf "$root"' EXIT
# --variant=minbase: essential packages and apt only (about 25 s with a nearby mirror).
debootstrap --variant=minbase bookworm "$root" "${DEBIAN_MIRROR:-http://deb.debian.org/debian}" >/dev/null
rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/* "$root"/usr/share/doc/* "$root"/usr/share/man/*
# The layout of the official node images: node, npm and npx in /usr/local.
install -m 0755 "$node_binary" "$root/usr/local/bin/node"
mkdir -p "$root/usr/local/lib/node_modules"
cp -a "$npm_dir" "$root/usr/local/lib/node_modules/npm"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
tar -C "$root" -c . | podman import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change "ENV NODE_VERSION=${node_version#v}" \
  --change "LABEL ${label}" \
  --change 'CMD ["node"]' - "$image" >/dev/null
echo "stand-in $image (node $node_version) built"
