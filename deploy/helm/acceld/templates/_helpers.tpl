{{- define "acceld.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "acceld.fullname" -}}
{{- if contains (include "acceld.name" .) .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name (include "acceld.name" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "acceld.selectorLabels" -}}
app.kubernetes.io/name: {{ include "acceld.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "acceld.labels" -}}
{{ include "acceld.selectorLabels" . }}
app.kubernetes.io/component: node-agent
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{/* The metrics port, from config.metrics-address (HOST:PORT). */}}
{{- define "acceld.metricsPort" -}}
{{- index .Values.config "metrics-address" | splitList ":" | last | int -}}
{{- end -}}

{{/* Where the metrics TLS Secret and the token Secret are mounted in the container. */}}
{{- define "acceld.metricsTlsDir" -}}/run/secrets/acceld/metrics-tls{{- end -}}
{{- define "acceld.metricsAuthDir" -}}/run/secrets/acceld/metrics-auth{{- end -}}

{{/*
The agent's config with dra.driver as dra-driver when DRA is on, and the Secrets' mount paths in place of metrics-tls-cert, metrics-tls-key and
metrics-auth when the chart mounts them, so a setting and its mount cannot disagree.
*/}}
{{- define "acceld.config" -}}
{{- $config := deepCopy .Values.config -}}
{{- if .Values.metricsTls.secretName -}}
{{- $_ := set $config "metrics-tls-cert" (printf "%s/tls.crt" (include "acceld.metricsTlsDir" .)) -}}
{{- $_ := set $config "metrics-tls-key" (printf "%s/tls.key" (include "acceld.metricsTlsDir" .)) -}}
{{- end -}}
{{- if .Values.metricsAuth.secretName -}}
{{- $_ := set $config "metrics-auth" (printf "bearer:%s/%s" (include "acceld.metricsAuthDir" .) .Values.metricsAuth.key) -}}
{{- end -}}
{{- if .Values.dra.enabled -}}
{{- $_ := set $config "dra-driver" .Values.dra.driver -}}
{{- else if index $config "dra-driver" -}}
{{- fail "config.dra-driver needs dra.enabled=true (and dra.driver): DRA needs the chart's ServiceAccount, RBAC and plugins mount" -}}
{{- end -}}
{{- toJson $config -}}
{{- end -}}

{{/* HTTPS when the agent serves its metrics address over TLS, else HTTP: for probes and scrapes. */}}
{{- define "acceld.metricsScheme" -}}
{{- $config := include "acceld.config" . | fromJson -}}
{{- if index $config "metrics-tls-cert" -}}HTTPS{{- else -}}HTTP{{- end -}}
{{- end -}}
