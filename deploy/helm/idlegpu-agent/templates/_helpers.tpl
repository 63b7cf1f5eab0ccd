{{/* The chart's name, at most 63 characters (a label value). */}}
{{- define "idlegpu-agent.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The release's full name: object names and the Service's DNS label. */}}
{{- define "idlegpu-agent.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/* Labels on every object. */}}
{{- define "idlegpu-agent.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "idlegpu-agent.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/* Labels that select the pods; never change them in an upgrade. */}}
{{- define "idlegpu-agent.selectorLabels" -}}
app.kubernetes.io/name: {{ include "idlegpu-agent.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "idlegpu-agent.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "idlegpu-agent.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "idlegpu-agent.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}

{{/*
The agent's home: .idlegpu-agent under the node's directory, which is the
containers' HOME, so the agent's commands find it without --home (as in the
image, and as the systemd unit lays it out).
*/}}
{{- define "idlegpu-agent.agentHome" -}}{{ .Values.home.hostPath }}/.idlegpu-agent{{- end }}

{{/* Where the Secret and the ConfigMap appear in the containers. */}}
{{- define "idlegpu-agent.secretDir" -}}/run/secrets/idlegpu-agent{{- end }}
{{- define "idlegpu-agent.configDir" -}}/etc/idlegpu-agent{{- end }}
{{- define "idlegpu-agent.passphraseFile" -}}{{ include "idlegpu-agent.secretDir" . }}/passphrase{{- end }}

{{/*
The environment of the setup and agent containers. ENDPOINT_HOST may name
the other two as $(NODE_NAME) and $(HOST_IP): the kubelet expands them.
*/}}
{{- define "idlegpu-agent.env" -}}
- name: NODE_NAME
  valueFrom:
    fieldRef:
      fieldPath: spec.nodeName
- name: HOST_IP
  valueFrom:
    fieldRef:
      fieldPath: status.hostIP
- name: ENDPOINT_HOST
  value: {{ .Values.endpoint.host | quote }}
- name: HOME
  value: {{ .Values.home.hostPath | quote }}
- name: DOCKER_HOST
  value: {{ printf "unix://%s" .Values.docker.socketPath | quote }}
{{- if eq .Values.gpu.mode "runtime" }}
# Every GPU of the node: see gpu.mode in values.yaml.
- name: NVIDIA_VISIBLE_DEVICES
  value: all
{{- end }}
- name: NVIDIA_DRIVER_CAPABILITIES
  value: {{ .Values.gpu.driverCapabilities | quote }}
# The CUDA driver's JIT cache (audit kernels): the root filesystem is read-only.
- name: CUDA_CACHE_PATH
  value: /tmp/cuda-cache
{{- end }}

{{/* The resources of a container that reads the GPUs. */}}
{{- define "idlegpu-agent.resources" -}}
{{- $r := deepCopy .Values.resources }}
{{- if eq .Values.gpu.mode "devicePlugin" }}
{{- $limits := merge (dict "nvidia.com/gpu" (int .Values.gpu.devicePluginCount)) ($r.limits | default dict) }}
{{- $_ := set $r "limits" $limits }}
{{- end }}
{{- toYaml $r }}
{{- end }}
