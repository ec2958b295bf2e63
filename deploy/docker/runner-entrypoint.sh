#!/bin/sh
# Entry point of the runner images. A StatefulSet's pods share one pod template, so a runner is
# handed its credentials by its pool, not by its own name:
# - NATS: the pool's creds file (`lspmesh admin creds runner POOL`), LSPMESH_NATS_CREDS, shared by
#   every replica; the runner id must then be `<pool>.<name>` (the runner checks it).
# - gRPC: the pool's Secret of derived secrets mounted at LSPMESH_GRPC_SECRET_DIR, one file per
#   pool (`lspmesh grpc-secrets --runners POOL`); the runner reads the one named after its pool.
# A runner's key in those directories is its pool, the part of LSPMESH_RUNNER_ID before the first
# '.'; an id without a '.' (a runner with its own identity) is its own key.
# Legacy, static passwords (`lspmesh nats-auth --runners …`: one NATS user per runner id): the
# Secret of passwords mounted at LSPMESH_NATS_PASSWORD_DIR, one file per runner id.
set -eu
fail() {
  echo "lspmesh runner: $*" >&2
  exit 2
}
# The directory key of LSPMESH_RUNNER_ID: `typescript.lspmesh-runner-typescript-0` → typescript.
runner_key() {
  case "$LSPMESH_RUNNER_ID" in
    *:* | .*) printf '%s' "$LSPMESH_RUNNER_ID" ;;
    *.*) printf '%s' "${LSPMESH_RUNNER_ID%%.*}" ;;
    *) printf '%s' "$LSPMESH_RUNNER_ID" ;;
  esac
}
if [ -n "${LSPMESH_NATS_CREDS:-}" ] && [ ! -r "$LSPMESH_NATS_CREDS" ]; then
  fail "cannot read the NATS credential LSPMESH_NATS_CREDS=$LSPMESH_NATS_CREDS: mount the pool's Secret (lspmesh admin creds runner POOL --out runner.creds; kubectl create secret generic lspmesh-nats-runner-POOL --from-file=runner.creds)"
fi
if [ -n "${LSPMESH_NATS_PASSWORD_DIR:-}" ] && [ -z "${LSPMESH_NATS_PASSWORD:-}" ] && [ -z "${LSPMESH_NATS_CREDS:-}" ]; then
  : "${LSPMESH_RUNNER_ID:?LSPMESH_RUNNER_ID is required with LSPMESH_NATS_PASSWORD_DIR}"
  case "$LSPMESH_RUNNER_ID" in
    *.*) fail "runner id '$LSPMESH_RUNNER_ID' is a pool's (<pool>.<name>), whose replicas share one NATS credential: set LSPMESH_NATS_CREDS to the pool's creds file (lspmesh admin creds runner ${LSPMESH_RUNNER_ID%%.*}), not LSPMESH_NATS_PASSWORD_DIR (static passwords: one user per runner id, without '.')" ;;
  esac
  file="$LSPMESH_NATS_PASSWORD_DIR/$LSPMESH_RUNNER_ID"
  if [ ! -r "$file" ]; then
    fail "no NATS password for runner '$LSPMESH_RUNNER_ID' in $LSPMESH_NATS_PASSWORD_DIR: add it to the pool's Secret"
  fi
  LSPMESH_NATS_PASSWORD="$(cat "$file")"
  LSPMESH_NATS_USER="${LSPMESH_NATS_USER:-$LSPMESH_RUNNER_ID}"
  export LSPMESH_NATS_PASSWORD LSPMESH_NATS_USER
fi
# Per-runner gRPC secrets (gateways with LSPMESH_GRPC_PER_RUNNER_SECRETS=1): the secret of this
# runner's key (its pool for `<pool>.<name>`, the gateways derive the same), from the Secret mounted
# at LSPMESH_GRPC_SECRET_DIR.
if [ -n "${LSPMESH_GRPC_SECRET_DIR:-}" ] && [ -z "${LSPMESH_GRPC_SECRET_FILE:-}" ]; then
  : "${LSPMESH_RUNNER_ID:?LSPMESH_RUNNER_ID is required with LSPMESH_GRPC_SECRET_DIR (<pool>.<name>: the pool names the secret)}"
  key="$(runner_key)"
  LSPMESH_GRPC_SECRET_FILE="$LSPMESH_GRPC_SECRET_DIR/$key"
  if [ ! -r "$LSPMESH_GRPC_SECRET_FILE" ]; then
    if [ "$key" = "$LSPMESH_RUNNER_ID" ]; then
      fail "no gRPC secret for runner '$LSPMESH_RUNNER_ID' in $LSPMESH_GRPC_SECRET_DIR: add the file '$key' to the runner's Secret (lspmesh grpc-secrets --runners $key)"
    fi
    fail "no gRPC secret for pool '$key' (runner '$LSPMESH_RUNNER_ID') in $LSPMESH_GRPC_SECRET_DIR: add the key '$key' to the pools' Secret (lspmesh grpc-secrets --runners $key; kubectl create secret generic lspmesh-grpc-runners --from-file=DIR)"
  fi
  export LSPMESH_GRPC_SECRET_FILE
fi
exec node --enable-source-maps /app/services/lsp-runner/dist/main.js "$@"
