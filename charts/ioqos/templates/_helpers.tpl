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

{{/* kubelet's kubepods cgroup, relative to the cgroup2 mount, from agent.cgroupDriver and
agent.kubeletCgroupRoot as kubelet names it (/kubepods, /kubepods.slice, /custom/kubepods,
/custom.slice/custom-kubepods.slice); empty when it cannot be known here (driver auto, or a
systemd cgroupRoot that is not a slice). */}}
{{- define "ioqos.agent.kubepodsCgroup" -}}
{{- $root := trimSuffix "/" .Values.agent.kubeletCgroupRoot -}}
{{- if eq .Values.agent.cgroupDriver "cgroupfs" -}}
{{ $root }}/kubepods
{{- else if eq .Values.agent.cgroupDriver "systemd" -}}
{{- if eq $root "" -}}
/kubepods.slice
{{- else if hasSuffix ".slice" $root -}}
{{ $root }}/{{ trimSuffix ".slice" (base $root) }}-kubepods.slice
{{- end -}}
{{- end -}}
{{- end }}

{{/* The host cgroup directory the agent's container may write: the kubepods cgroup when
agent.cgroupWriteScope allows narrowing and it is known, "/" (the whole tree) otherwise; the values
schema refuses a scope other than auto, kubepods or all. */}}
{{- define "ioqos.agent.cgroupWritable" -}}
{{- $kubepods := include "ioqos.agent.kubepodsCgroup" . -}}
{{- $scope := .Values.agent.cgroupWriteScope -}}
{{- if and (eq $scope "kubepods") (eq $kubepods "") -}}
{{- fail "agent.cgroupWriteScope kubepods needs agent.cgroupDriver systemd or cgroupfs (and, with systemd, a kubeletCgroupRoot that is / or a .slice)" -}}
{{- end -}}
{{- if and (eq $scope "kubepods") .Values.agent.enableIocost -}}
{{- fail "agent.cgroupWriteScope kubepods cannot go with agent.enableIocost: iocost is switched on in the root cgroup's io.cost.qos" -}}
{{- end -}}
{{- if or (eq $scope "all") (eq $kubepods "") .Values.agent.enableIocost -}}
/
{{- else -}}
{{ $kubepods }}
{{- end -}}
{{- end }}
