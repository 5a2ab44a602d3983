package fleet

import "fmt"

// shapes lists the heads Write commits: every Shape, and ChartBump when the fleet has
// HelmReleases.
func (p *plan) shapes() []Shape {
	if p.spec.HelmReleases > 0 {
		return append(append([]Shape{}, Shapes...), ChartBump)
	}
	return Shapes
}

func (p *plan) hasRelease(tr *tier) bool { return tr.release }

// chartFiles writes charts/app: a chart of eight templates and helpers, shaped like
// a small application chart. bump raises its version and edits the Deployment template.
func (p *plan) chartFiles(t tree, bump bool) {
	version, extra := "1.0.0", ""
	if bump {
		version, extra = "1.1.0", "\n        fleet.example/chart-bump: \"true\""
	}
	t["charts/app/Chart.yaml"] = fmt.Sprintf(chartYAML, version)
	t["charts/app/values.yaml"] = chartValuesYAML
	t["charts/app/templates/_helpers.tpl"] = chartHelpersTPL
	t["charts/app/templates/deployment.yaml"] = fmt.Sprintf(chartDeploymentYAML, extra)
	for name, body := range chartTemplates {
		t["charts/app/templates/"+name] = body
	}
}

// helmReleaseYAML is app tier %[1]s's HelmRelease, image tag %[2]s.
const helmReleaseYAML = `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: %[1]s
  namespace: %[1]s
spec:
  interval: 10m
  chart:
    spec:
      chart: ./charts/app
      sourceRef:
        kind: GitRepository
        name: flux-system
        namespace: flux-system
  valuesFrom:
    - kind: ConfigMap
      name: %[1]s-config
      valuesKey: region
      targetPath: region
  values:
    image:
      tag: "%[2]s"
    cluster: ${cluster}
`

const chartYAML = `apiVersion: v2
name: app
version: %s
appVersion: "1.0"
`

const chartValuesYAML = `replicaCount: 2
image:
  repository: registry.example.invalid/app
  tag: latest
region: unknown
cluster: unknown
service:
  port: 80
ingress:
  enabled: true
  host: app.example.invalid
`

const chartHelpersTPL = `{{- define "app.fullname" -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- define "app.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
fleet.example/region: {{ .Values.region }}
{{- end -}}
`

const chartDeploymentYAML = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "app.fullname" . }}
  labels:
    {{- include "app.labels" . | nindent 4 }}
spec:
  replicas: {{ .Values.replicaCount }}
  selector:
    matchLabels:
      app.kubernetes.io/instance: {{ .Release.Name }}
  template:
    metadata:
      labels:
        app.kubernetes.io/instance: {{ .Release.Name }}%s
    spec:
      serviceAccountName: {{ include "app.fullname" . }}
      containers:
        - name: app
          image: "{{ .Values.image.repository }}:{{ .Values.image.tag }}"
          env:
            - name: CLUSTER
              value: {{ .Values.cluster | quote }}
          envFrom:
            - configMapRef:
                name: {{ include "app.fullname" . }}
`

// chartTemplates are charts/app's templates that no shape edits.
var chartTemplates = map[string]string{
	"service.yaml": `apiVersion: v1
kind: Service
metadata:
  name: {{ include "app.fullname" . }}
  labels:
    {{- include "app.labels" . | nindent 4 }}
spec:
  selector:
    app.kubernetes.io/instance: {{ .Release.Name }}
  ports:
    - port: {{ .Values.service.port }}
`,
	"serviceaccount.yaml": `apiVersion: v1
kind: ServiceAccount
metadata:
  name: {{ include "app.fullname" . }}
  labels:
    {{- include "app.labels" . | nindent 4 }}
`,
	"configmap.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ include "app.fullname" . }}
data:
  region: {{ .Values.region | quote }}
  cluster: {{ .Values.cluster | quote }}
`,
	"role.yaml": `apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: {{ include "app.fullname" . }}
rules:
  - apiGroups: [""]
    resources: [configmaps]
    verbs: [get, list]
`,
	"rolebinding.yaml": `apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: {{ include "app.fullname" . }}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: {{ include "app.fullname" . }}
subjects:
  - kind: ServiceAccount
    name: {{ include "app.fullname" . }}
`,
	"ingress.yaml": `{{- if .Values.ingress.enabled }}
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: {{ include "app.fullname" . }}
spec:
  rules:
    - host: {{ .Values.ingress.host }}
      http:
        paths:
          - path: /
            pathType: Prefix
            backend:
              service:
                name: {{ include "app.fullname" . }}
                port:
                  number: {{ .Values.service.port }}
{{- end }}
`,
	"pdb.yaml": `apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {{ include "app.fullname" . }}
spec:
  minAvailable: 1
  selector:
    matchLabels:
      app.kubernetes.io/instance: {{ .Release.Name }}
`,
}
