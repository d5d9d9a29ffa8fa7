{{/* Labels every object carries. */}}
{{- define "ioqos.labels" -}}
app.kubernetes.io/name: ioqos
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/part-of: ioqos
{{- end }}

{{/* Selector of the agent's pods (immutable once installed: keep it small). */}}
{{- define "ioqos.agent.selector" -}}
app.kubernetes.io/name: ioqos
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: agent
{{- end }}

{{/* Selector of the aggregator's pods. */}}
{{- define "ioqos.aggregator.selector" -}}
app.kubernetes.io/name: ioqos
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: aggregator
{{- end }}

{{/* The agent's ServiceAccount name; the admission policy names it too. */}}
{{- define "ioqos.agent.serviceAccount" -}}
ioqos-agent
{{- end }}

{{- define "ioqos.aggregator.serviceAccount" -}}
ioqos-aggregator
{{- end }}

{{/* The image both commands run. */}}
{{- define "ioqos.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end }}

{{/* The release namespace; "default" as Helm's own commands assume when none is given (helm-java's
lint passes none). */}}
{{- define "ioqos.namespace" -}}
{{ .Release.Namespace | default "default" }}
{{- end }}
