#!/usr/bin/env bash
# Installs, on Debian/Ubuntu, the system packages the full test suite uses beyond `npm ci`:
#   nats-server          every NATS test starts its own on a free port
#   bubblewrap           the sandboxed-runner and cross-tenant suites
#   clangd               the C/C++ language tests
#   gopls golang-go      the Go language tests
#   git                  the CI-check (`lspmesh check`) tests
#   ripgrep              search_text and list_files (the runner runs `rg`)
#   prometheus           its promtool checks and unit-tests the shipped alert rules
#   golang-github-masterminds-sprig-dev golang-github-ghodss-yaml-dev golang-gopkg-yaml.v2-dev
#   golang-gopkg-yaml.v3-dev golang-github-gobwas-glob-dev
#                        the Helm chart's renderer (test/deploy/helm-render: helm's template engine,
#                        built from these Go sources; helm itself has no Debian package)
# Only what is missing is installed. Run as root (CI) or with sudo. rust-analyzer has no Debian 12
# package: install it with `rustup component add rust-analyzer` to run the Rust tests.
set -euo pipefail

need=()
have() { command -v "$1" >/dev/null 2>&1; }
gosrc() { [ -d "/usr/share/gocode/src/$1" ]; }
have git || need+=(git)
have nats-server || [ -x /usr/sbin/nats-server ] || need+=(nats-server)
have bwrap || need+=(bubblewrap)
have clangd || need+=(clangd)
have gopls || need+=(gopls)
have go || need+=(golang-go)
have rg || need+=(ripgrep)
gosrc github.com/Masterminds/sprig || need+=(golang-github-masterminds-sprig-dev)
gosrc github.com/ghodss/yaml || need+=(golang-github-ghodss-yaml-dev)
gosrc gopkg.in/yaml.v2 || need+=(golang-gopkg-yaml.v2-dev)
gosrc gopkg.in/yaml.v3 || need+=(golang-gopkg-yaml.v3-dev)
gosrc github.com/gobwas/glob || need+=(golang-github-gobwas-glob-dev)
have promtool || need+=(prometheus)

if [ ${#need[@]} -eq 0 ]; then
  echo "system packages: all present"
  exit 0
fi
echo "system packages: installing ${need[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}"
