{{/* Names: lspmesh's objects are named <release>-<part> (release "lspmesh": lspmesh-gateway, …). */}}
{{- define "lspmesh.fullname" -}}
{{- .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- end -}}

{{- define "lspmesh.labels" -}}
app.kubernetes.io/name: lspmesh
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: lspmesh
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "lspmesh.selector" -}}
app.kubernetes.io/name: lspmesh
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/* An image reference: registry + repository, then @digest or :tag. Args: root, image values. */}}
{{- define "lspmesh.image" -}}
{{- $root := index . 0 -}}
{{- $image := index . 1 -}}
{{- if $image.digest -}}
{{ $root.Values.imageRegistry }}{{ $image.repository }}@{{ $image.digest }}
{{- else -}}
{{ $root.Values.imageRegistry }}{{ $image.repository }}:{{ $root.Values.imageTag | default $root.Chart.AppVersion }}
{{- end -}}
{{- end -}}

{{- define "lspmesh.natsUrl" -}}
{{- if .Values.nats.enabled -}}
nats://{{ .Release.Name }}-nats:4222
{{- else -}}
{{ required "externalNats.url is required when nats.enabled is false" .Values.externalNats.url }}
{{- end -}}
{{- end -}}

{{/* Hardened container security context (Pod Security "restricted" and a read-only root). */}}
{{- define "lspmesh.containerSecurity" -}}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
runAsNonRoot: true
capabilities:
  drop: ["ALL"]
{{- end -}}

{{- define "lspmesh.podSecurity" -}}
runAsNonRoot: true
runAsUser: 10001
runAsGroup: 10001
fsGroup: 10001
fsGroupChangePolicy: OnRootMismatch
seccompProfile:
  type: RuntimeDefault
{{- end -}}
