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

{{/*
Client URL(s) of NATS: the chart's NATS Service, or with a cluster every server (a client whose
server is lost reconnects to another at once); or externalNats.url.
*/}}
{{- define "lspmesh.natsUrl" -}}
{{- $name := printf "%s-nats" (include "lspmesh.fullname" .) -}}
{{- if and .Values.nats.enabled (gt (.Values.nats.replicas | int) 1) -}}
{{- $urls := list -}}
{{- range $i := until (.Values.nats.replicas | int) -}}
{{- $urls = append $urls (printf "nats://%s-%d.%s-headless:4222" $name $i $name) -}}
{{- end -}}
{{ join "," $urls }}
{{- else if .Values.nats.enabled -}}
nats://{{ $name }}:4222
{{- else -}}
{{ required "externalNats.url is required when nats.enabled is false" .Values.externalNats.url }}
{{- end -}}
{{- end -}}

{{/* Copies of each stream and KV bucket lspmesh creates: NATS's server count (1 or 3). */}}
{{- define "lspmesh.jetstreamReplicas" -}}
{{- if .Values.nats.enabled -}}
{{ .Values.nats.replicas | default 1 }}
{{- else -}}
{{ .Values.externalNats.jetstreamReplicas | default 1 }}
{{- end -}}
{{- end -}}

{{/* The NATS client settings of gateways and runners (env entries); the creds file is theirs. */}}
{{- define "lspmesh.natsEnv" -}}
- name: LSPMESH_NATS_URL
  value: {{ include "lspmesh.natsUrl" . | quote }}
{{- if .Values.externalNats.caConfigMap }}
- name: LSPMESH_NATS_CA
  value: /etc/lspmesh/nats-ca/ca.crt
{{- end }}
{{- $replicas := include "lspmesh.jetstreamReplicas" . | int }}
{{- if gt $replicas 1 }}
# Streams and KV buckets keep one copy per NATS server.
- name: LSPMESH_JETSTREAM_REPLICAS
  value: {{ $replicas | quote }}
{{- end }}
{{- end -}}

{{/*
Hardened container security context (Pod Security "restricted" and a read-only root), with the
workload's containerSecurityContext over it (values.schema.json admits restricted values only).
Args: dict "override" <containerSecurityContext>.
*/}}
{{- define "lspmesh.containerSecurity" -}}
{{- $defaults := dict "allowPrivilegeEscalation" false "readOnlyRootFilesystem" true "runAsNonRoot" true "capabilities" (dict "drop" (list "ALL")) -}}
{{- toYaml (mergeOverwrite $defaults (deepCopy (.override | default dict))) -}}
{{- end -}}

{{/*
Pod security context: non-root uid 10001, seccomp RuntimeDefault; with a volume to write (runners'
workspaces, NATS's store) also fsGroup 10001; the workload's podSecurityContext over it.
Args: dict "fsGroup" <bool> "override" <podSecurityContext>.
*/}}
{{- define "lspmesh.podSecurity" -}}
{{- $defaults := dict "runAsNonRoot" true "runAsUser" 10001 "runAsGroup" 10001 "seccompProfile" (dict "type" "RuntimeDefault") -}}
{{- if .fsGroup -}}
{{- $_ := set $defaults "fsGroup" 10001 -}}
{{- $_ := set $defaults "fsGroupChangePolicy" "OnRootMismatch" -}}
{{- end -}}
{{- toYaml (mergeOverwrite $defaults (deepCopy (.override | default dict))) -}}
{{- end -}}

{{/*
The pod template's metadata: the chart's labels and annotations, then the workload's podLabels and
podAnnotations (which add, never replace: the selectors hold).
Args: dict "root" $ "labels" <the workload's own labels, a dict> "settings" <pod settings>
"annotations" <the chart's annotations, a dict>.
*/}}
{{- define "lspmesh.podMetadata" -}}
{{- $labels := merge (include "lspmesh.labels" .root | fromYaml) .labels -}}
labels:
  {{- toYaml (merge $labels (deepCopy (.settings.podLabels | default dict))) | nindent 2 }}
{{- $annotations := merge (deepCopy (.annotations | default dict)) (deepCopy (.settings.podAnnotations | default dict)) }}
{{- with $annotations }}
annotations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}

{{/*
Scheduling of a pod: priority and runtime classes, node selection, tolerations, affinity, and the
spread constraints (each selects the workload's pods unless it names its own labelSelector).
Args: dict "settings" <pod settings> "selector" <the workload's selector labels, a dict>.
*/}}
{{- define "lspmesh.podScheduling" -}}
{{- $settings := .settings -}}
{{- with $settings.priorityClassName }}
priorityClassName: {{ . }}
{{- end }}
{{- with $settings.runtimeClassName }}
runtimeClassName: {{ . }}
{{- end }}
{{- with $settings.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $settings.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $settings.affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $settings.topologySpreadConstraints }}
{{- $constraints := list }}
{{- range . }}
{{- $constraints = append $constraints (merge (deepCopy .) (dict "labelSelector" (dict "matchLabels" $.selector))) }}
{{- end }}
topologySpreadConstraints:
  {{- toYaml $constraints | nindent 2 }}
{{- end }}
{{- end -}}

{{/* The pod settings a runner pool has: each key the pool sets, else runner's. Args: root, pool. */}}
{{- define "lspmesh.poolSettings" -}}
{{- $root := index . 0 -}}
{{- $pool := index . 1 -}}
{{- $settings := dict -}}
{{- range $key := list "podAnnotations" "podLabels" "extraEnv" "extraVolumes" "extraVolumeMounts" "priorityClassName" "runtimeClassName" "nodeSelector" "tolerations" "affinity" "topologySpreadConstraints" "podSecurityContext" "containerSecurityContext" -}}
{{- $_ := set $settings $key (hasKey $pool $key | ternary (index $pool $key) (index $root.Values.runner $key)) -}}
{{- end -}}
{{- toJson $settings -}}
{{- end -}}
