#!/usr/bin/env bash
# Installs, on Debian/Ubuntu, the system packages the full test suite uses beyond `npm ci`:
#   nats-server          every NATS test starts its own on a free port
#   bubblewrap           the sandboxed-runner and cross-tenant suites
#   clangd               the C/C++ language tests
#   gopls golang-go      the Go language tests
#   git                  the CI-check (`lspmesh check`) tests
#   ripgrep              search_text and list_files (the runner runs `rg`)
# Only what is missing is installed. Run as root (CI) or with sudo. rust-analyzer has no Debian 12
# package: install it with `rustup component add rust-analyzer` to run the Rust tests.
set -euo pipefail

need=()
have() { command -v "$1" >/dev/null 2>&1; }
have git || need+=(git)
have nats-server || [ -x /usr/sbin/nats-server ] || need+=(nats-server)
have bwrap || need+=(bubblewrap)
have clangd || need+=(clangd)
have gopls || need+=(gopls)
have go || need+=(golang-go)
have rg || need+=(ripgrep)

if [ ${#need[@]} -eq 0 ]; then
  echo "system packages: all present"
  exit 0
fi
echo "system packages: installing ${need[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}"
