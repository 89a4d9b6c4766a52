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
