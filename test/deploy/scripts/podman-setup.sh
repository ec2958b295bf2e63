#!/usr/bin/env bash
# What `npm run test:deploy` needs on the machine: podman and buildah (runc as the runtime,
# netavark + aardvark-dns for pod names, iptables for netavark, catatonit as the pods' pause
# process: podman builds its pause image from it, and it is only a "Recommends" of podman),
# debootstrap for the stand-in base image. Installs the missing ones with apt (CI runs as root); kubectl must be there.
set -euo pipefail
need=()
for pair in podman:podman buildah:buildah runc:runc debootstrap:debootstrap iptables:iptables catatonit:catatonit; do
  command -v "${pair%%:*}" >/dev/null || need+=("${pair#*:}")
done
for helper in netavark aardvark-dns; do
  [ -x "/usr/lib/podman/$helper" ] || [ -x "/usr/libexec/podman/$helper" ] || need+=("$helper")
done
if [ ${#need[@]} -gt 0 ]; then
  echo "installing ${need[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
# kustomize v5 (kubectl 1.27+): Debian's kubernetes-client (1.20) is too old for components and labels.
command -v kubectl >/dev/null || {
  echo "kubectl (1.27 or newer) is not installed: install it from your Kubernetes packages" >&2
  exit 1
}
