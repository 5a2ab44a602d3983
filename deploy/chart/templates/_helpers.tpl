{{/* The objects' name: the release name, with "-tiergate" unless it holds it already. */}}
{{- define "tiergate.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "tiergate.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "tiergate.labels" -}}
{{ include "tiergate.selectorLabels" . }}
app.kubernetes.io/version: {{ .Values.image.tag | default .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{/* An env entry from a Secret key: name, ref (secretName, key). */}}
{{- define "tiergate.secretEnv" -}}
- name: {{ .name }}
  valueFrom:
    secretKeyRef:
      name: {{ .ref.secretName }}
      key: {{ .ref.key }}
{{- end -}}

{{/* Refuses settings bot serve would refuse, at install rather than at start. */}}
{{- define "tiergate.validate" -}}
{{- $gh := .Values.github -}}
{{- if and $gh.appID $gh.token.secretName -}}
{{- fail "github: set appID (a GitHub App) or token, not both" -}}
{{- end -}}
{{- if and $gh.appID (not $gh.appKey.secretName) -}}
{{- fail "github.appKey.secretName: required with github.appID" -}}
{{- end -}}
{{- if and (or $gh.appID $gh.token.secretName) (not $gh.webhookSecret.secretName) -}}
{{- fail "github.webhookSecret.secretName: required with a GitHub App or token" -}}
{{- end -}}
{{- $gt := .Values.gitea -}}
{{- if and $gt.url (or (not $gt.token.secretName) (not $gt.webhookSecret.secretName)) -}}
{{- fail "gitea.token.secretName and gitea.webhookSecret.secretName: required with gitea.url" -}}
{{- end -}}
{{- if not (or $gh.appID $gh.token.secretName $gt.url .Values.existingSecret) -}}
{{- fail "no forge: set github.appID or github.token, gitea.url, or existingSecret" -}}
{{- end -}}
{{- end -}}
