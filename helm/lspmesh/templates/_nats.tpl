{{/*
nats.conf of the chart's NATS: deploy/nats/nats.conf's settings (client and monitoring ports,
JetStream limits, the JWT configuration included), the server named after its pod, and with
nats.replicas 3 the cluster of <release>-nats-0..2 over the headless Service.
*/}}
{{- define "lspmesh.natsConfig" -}}
{{- $name := printf "%s-nats" (include "lspmesh.fullname" .) -}}
# lspmesh's NATS server: JetStream holds the diagnostics stream (LSPMESH_DIAG), the runner
# registry (KV bucket lspmesh-runners) and the control plane (KV lspmesh-control).
server_name: $POD_NAME
port: 4222
# Monitoring (no secrets are served there): GET /healthz, JetStream current (with the cluster),
# for the startup probe; /healthz?js-enabled-only=true for readiness and liveness.
http_port: 8222

# A diagnostics message is at most a few hundred KiB (one file's diagnostics).
max_payload: {{ .Values.nats.maxPayload }}

# The store directory is given on the command line (--store_dir /data/jetstream).
jetstream {
  max_memory_store: {{ .Values.nats.jetstream.maxMemoryStore }}
  max_file_store: {{ .Values.nats.jetstream.maxFileStore }}
}
{{- if gt (.Values.nats.replicas | int) 1 }}

# Routes between the servers; only they reach port 6222 (network policy <release>-nats).
cluster {
  name: lspmesh
  port: 6222
  routes: [
    {{- range $i := until (.Values.nats.replicas | int) }}
    nats://{{ $name }}-{{ $i }}.{{ $name }}-headless:6222
    {{- end }}
  ]
}
{{- end }}

# Who may connect: decentralized JWT authentication. nats-jwt.conf (ConfigMap
# {{ .Values.nats.jwtConfigMap }}, mounted at /etc/nats-jwt) names the operator, the system account
# and the account resolver (account JWTs in /data/jwt, on this server's volume), and preloads the
# two accounts: public, signed JWTs only. Written by
#   lspmesh nats-auth --jwt --out DIR --resolver-dir /data/jwt
# A client without a credential signed by the operator's account cannot connect.
include ../nats-jwt/nats-jwt.conf
{{- end -}}
