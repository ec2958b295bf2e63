#!/usr/bin/env bash
# deploy/monitoring holds the one copy of lspmesh's alert rules (alerts.yaml) and Grafana dashboard
# (grafana/lspmesh-dashboard.json). kustomize reads files only below a kustomization and Helm
# packages only the files of its chart, so both get copies: run this after changing either file
# (test/deploy/test/monitoring.test.ts fails while a copy differs).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
component="$here/../kustomize/components/alerts"
chart="$here/../../helm/lspmesh/files"
mkdir -p "$chart"
cp "$here/alerts.yaml" "$chart/alerts.yaml"
cp "$here/grafana/lspmesh-dashboard.json" "$chart/lspmesh-dashboard.json"
cp "$here/grafana/lspmesh-dashboard.json" "$component/lspmesh-dashboard.json"
# The rule groups as a PrometheusRule: alerts.yaml under `spec:`, without its leading comments.
{
  cat <<'HEAD'
# Written by deploy/monitoring/sync-copies.sh from deploy/monitoring/alerts.yaml: edit that file.
# Prometheus Operator picks rules by label (its ruleSelector): add yours with a kustomize patch
# (docs/operations.md#alerts).
apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata:
  name: lspmesh
  labels:
    app.kubernetes.io/name: lspmesh
spec:
HEAD
  sed -e '/^#/d' -e 's/^\(.\)/  \1/' "$here/alerts.yaml"
} >"$component/prometheus-rule.yaml"
echo "synced: helm/lspmesh/files/ and deploy/kustomize/components/alerts/"
