#!/bin/sh
# Entry point of the runner images. A StatefulSet's pods share one pod template, so a runner
# cannot be handed "its own" Secret key by name; instead the pool's Secret of NATS passwords is
# mounted at LSPMESH_NATS_PASSWORD_DIR (one file per runner id) and each runner reads its own,
# logging in to NATS as the user named after its runner id (deploy/nats/authorization.conf).
set -eu
if [ -n "${LSPMESH_NATS_PASSWORD_DIR:-}" ] && [ -z "${LSPMESH_NATS_PASSWORD:-}" ]; then
  : "${LSPMESH_RUNNER_ID:?LSPMESH_RUNNER_ID is required with LSPMESH_NATS_PASSWORD_DIR}"
  file="$LSPMESH_NATS_PASSWORD_DIR/$LSPMESH_RUNNER_ID"
  if [ ! -r "$file" ]; then
    echo "lspmesh runner: no NATS password for runner '$LSPMESH_RUNNER_ID' in $LSPMESH_NATS_PASSWORD_DIR: add it to the pool's Secret" >&2
    exit 2
  fi
  LSPMESH_NATS_PASSWORD="$(cat "$file")"
  LSPMESH_NATS_USER="${LSPMESH_NATS_USER:-$LSPMESH_RUNNER_ID}"
  export LSPMESH_NATS_PASSWORD LSPMESH_NATS_USER
fi
# Per-runner gRPC secrets (`lspmesh grpc-secrets --out DIR`, gateways with
# LSPMESH_GRPC_PER_RUNNER_SECRETS=1): the pool's Secret mounted at LSPMESH_GRPC_SECRET_DIR, one
# file per runner id, the same way as the NATS passwords.
if [ -n "${LSPMESH_GRPC_SECRET_DIR:-}" ] && [ -z "${LSPMESH_GRPC_SECRET_FILE:-}" ]; then
  : "${LSPMESH_RUNNER_ID:?LSPMESH_RUNNER_ID is required with LSPMESH_GRPC_SECRET_DIR}"
  LSPMESH_GRPC_SECRET_FILE="$LSPMESH_GRPC_SECRET_DIR/$LSPMESH_RUNNER_ID"
  if [ ! -r "$LSPMESH_GRPC_SECRET_FILE" ]; then
    echo "lspmesh runner: no gRPC secret for runner '$LSPMESH_RUNNER_ID' in $LSPMESH_GRPC_SECRET_DIR: add it to the pool's Secret (lspmesh grpc-secrets)" >&2
    exit 2
  fi
  export LSPMESH_GRPC_SECRET_FILE
fi
exec node --enable-source-maps /app/services/lsp-runner/dist/main.js "$@"
